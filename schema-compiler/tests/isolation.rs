//! The tenant-isolation verdict agrees with brute force.
//!
//! Random designs: a partition key `PREFIX<tenant>SEP<next>SUFFIX` with random
//! literals, delimiter, tenant alphabet and a following placeholder. Keys are
//! built for random tenants, and matched against the IAM `dynamodb:LeadingKeys`
//! pattern of every other principal tag that could read them
//! (`PREFIX<tag>SEP*`, as `StringLike` evaluates it). Whenever the checker
//! accepts a design, no other tag reaches a tenant's key; whenever the tenant
//! alphabet contains the delimiter, the checker rejects the design and brute
//! force finds a tenant that reaches another's keys.

use proptest::prelude::*;
use singletable::Compiler;

const TAG_PUNCTUATION: &str = " _.:/=+-@";

fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || TAG_PUNCTUATION.contains(c)
}

#[derive(Debug, Clone)]
struct Design {
    prefix: String,
    tenant_chars: Vec<char>,
    sep: String,
    next: Next,
    suffix: String,
    id_chars: Vec<char>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Next {
    Nothing,
    Shard,
    Id,
}

fn class(chars: &[char]) -> String {
    chars
        .iter()
        .map(|c| {
            if c.is_ascii_alphanumeric() || *c == '_' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

impl Design {
    fn template(&self) -> String {
        let next = match self.next {
            Next::Nothing => "",
            Next::Shard => "<shard>",
            Next::Id => "<id>",
        };
        format!("{}<tenant>{}{next}{}", self.prefix, self.sep, self.suffix)
    }

    fn spec(&self) -> String {
        let shards = if self.next == Next::Shard {
            "\n    shards: { count: 12, by: random }"
        } else {
            ""
        };
        format!(
            "version: 1\ntable: {{ name: Tbl, partition_key: pk, sort_key: sk }}\ntenant: {{ id_pattern: '^[{}]{{1,6}}$' }}\nentities:\n  Item:\n    attributes: {{ id: {{ type: string, pattern: '^[{}]{{1,5}}$' }} }}{shards}\n    key: {{ pk: '{}', sk: 'ITEM' }}\n",
            class(&self.tenant_chars),
            class(&self.id_chars),
            self.template().replace('\'', "''"),
        )
    }

    /// The partition key of an item of `tenant`.
    fn key(&self, tenant: &str, shard: u32, id: &str) -> String {
        let next = match self.next {
            Next::Nothing => String::new(),
            Next::Shard => shard.to_string(),
            Next::Id => id.to_owned(),
        };
        format!("{}{tenant}{}{next}{}", self.prefix, self.sep, self.suffix)
    }

    /// Principal tags other than `owner` whose LeadingKeys pattern matches `key`.
    fn intruders(&self, key: &str, owner: &str) -> Vec<String> {
        let Some(rest) = key.strip_prefix(&self.prefix) else {
            return Vec::new();
        };
        let exact = self.sep.is_empty() && self.next == Next::Nothing && self.suffix.is_empty();
        // The character after the tenant in the template, if it is a literal.
        let after = if self.sep.is_empty() && self.next == Next::Nothing {
            &self.suffix
        } else {
            &self.sep
        };
        let delimiter = after.chars().next();
        let mut out = Vec::new();
        for (j, c) in rest.char_indices() {
            // Pattern `PREFIX<tag><delimiter>*` matches when the tag is rest[..j]
            // and rest[j] is the delimiter; without a delimiter, `PREFIX<tag>*`.
            let tag = &rest[..j];
            let fits = match delimiter {
                Some(d) => c == d,
                None => true,
            };
            if fits && !exact && !tag.is_empty() && tag != owner && tag.chars().all(is_tag_char) {
                out.push(tag.to_owned());
            }
        }
        out
    }
}

fn chars_from(pool: &'static str) -> impl Strategy<Value = Vec<char>> {
    prop::sample::subsequence(pool.chars().collect::<Vec<_>>(), 1..=pool.chars().count())
}

/// A mostly safe alphabet, with up to two risky characters added.
fn risky(
    base: impl Strategy<Value = Vec<char>>,
    extra: &'static str,
) -> impl Strategy<Value = Vec<char>> {
    (
        base,
        prop::collection::vec(
            prop::sample::select(extra.chars().collect::<Vec<_>>()),
            0..3,
        ),
    )
        .prop_map(|(mut b, e)| {
            for c in e {
                if !b.contains(&c) {
                    b.push(c);
                }
            }
            b
        })
}

fn design() -> impl Strategy<Value = Design> {
    (
        prop::sample::select(vec!["TENANT#", "T", "", "ORG|"]),
        risky(chars_from("ab1"), "-_.:#|"),
        prop::sample::select(vec!["", "#", "|", "-", ":", ".", "_", "X", "|S#", "-S"]),
        prop::sample::select(vec![Next::Nothing, Next::Shard, Next::Id]),
        prop::sample::select(vec!["", "|ITEM", "#X", "-Y"]),
        risky(chars_from("ab1"), "-#|"),
    )
        .prop_map(
            |(prefix, tenant_chars, sep, next, suffix, id_chars)| Design {
                prefix: prefix.into(),
                tenant_chars,
                sep: sep.into(),
                next,
                suffix: suffix.into(),
                id_chars,
            },
        )
}

fn word(chars: &[char], picks: &[usize]) -> String {
    picks.iter().map(|i| chars[i % chars.len()]).collect()
}

fn accepted(design: &Design) -> bool {
    let compilation = Compiler::new()
        .source("design.yaml", design.spec())
        .compile();
    !compilation.has_errors()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, max_global_rejects: 20_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn accepted_designs_never_leak(
        design in design(),
        tenants in prop::collection::vec(prop::collection::vec(any::<usize>(), 1..6), 2..6),
        id in prop::collection::vec(any::<usize>(), 1..5),
        shard in 0u32..12,
    ) {
        prop_assume!(accepted(&design));
        let id = word(&design.id_chars, &id);
        for t in &tenants {
            let owner = word(&design.tenant_chars, t);
            let key = design.key(&owner, shard, &id);
            let intruders = design.intruders(&key, &owner);
            prop_assert!(intruders.is_empty(), "design {} accepted, but tags {:?} reach tenant {:?}'s key {:?}", design.template(), intruders, owner, key);
        }
    }

    #[test]
    fn a_delimiter_in_the_tenant_alphabet_is_rejected_and_exploitable(
        design in design(),
        t in prop::collection::vec(any::<usize>(), 1..3),
        shard in 0u32..12,
    ) {
        let after = if design.sep.is_empty() && design.next == Next::Nothing { &design.suffix } else { &design.sep };
        let Some(d) = after.chars().next() else { return Ok(()) };
        prop_assume!(design.tenant_chars.contains(&d));
        prop_assert!(!accepted(&design), "{} accepted although tenant ids may contain {d:?}", design.template());
        // Tenant `a` reaches tenant `a<d>a`'s keys (when `a` is a valid tag).
        let tag_chars: Vec<char> = design.tenant_chars.iter().copied().filter(|c| is_tag_char(*c)).collect();
        prop_assume!(!tag_chars.is_empty());
        let a = word(&tag_chars, &t);
        let victim = format!("{a}{d}{a}");
        let key = design.key(&victim, shard, "1");
        prop_assert!(design.intruders(&key, &victim).contains(&a));
    }
}

#[test]
fn the_generator_produces_both_verdicts() {
    // Guards the properties above against vacuity: some generated designs are
    // accepted and some rejected.
    let safe = Design {
        prefix: "TENANT#".into(),
        tenant_chars: vec!['a', '1'],
        sep: "|".into(),
        next: Next::Id,
        suffix: String::new(),
        id_chars: vec!['a'],
    };
    assert!(accepted(&safe), "{}", safe.spec());
    let unsafe_ = Design {
        sep: "-".into(),
        tenant_chars: vec!['a', '-'],
        ..safe.clone()
    };
    assert!(!accepted(&unsafe_));
}

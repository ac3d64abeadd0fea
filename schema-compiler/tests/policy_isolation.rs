//! The policy-level isolation verdict agrees with brute force.
//!
//! Random designs of two to four entities whose partition keys share and
//! extend each other's literal prefixes (`T#<tenant>|…` beside
//! `T#a<tenant>|…`, `<tenant>|…` beside a global `ab|<code>`), with small
//! alphabets and lengths, so that every tenant id and every placeholder
//! value can be enumerated. Brute force builds every partition key of every
//! tenant and every global key, and evaluates the union of the
//! `dynamodb:LeadingKeys` patterns (`PREFIX${tag}D*`, or `PREFIX${tag}` when
//! the tenant ends the key) the way `StringLike` does, for every tag.
//!
//! - A design `check` accepts has no tag that reaches a key not its own.
//! - A design where brute force finds such a tag is rejected by a tenant rule.
//! - A design rejected with `tenant_policy_overlap` or `tenant_policy_global`
//!   has such a tag (no false positives), and the tag named in the message
//!   is one of them.

use proptest::prelude::*;
use singletable::diagnostics::{Code, Severity};
use singletable::Compiler;

/// Tenant ids: one to three characters of `TENANT_CHARS`.
const TENANT_CHARS: [char; 2] = ['a', 'b'];
const MAX_TENANT: usize = 3;
/// Values of the other placeholders: one to eight characters of their
/// pool, enumerated up to four (longer values add no key a short tag and
/// the short literals here could need).
const MAX_VALUE: usize = 4;

#[derive(Debug, Clone)]
struct Entity {
    /// `None`: a global entity.
    tenant: Option<TenantKey>,
    /// Text after the tenant (or the whole key of a global entity), with
    /// `<v>` for the entity's value placeholder.
    rest: &'static str,
    /// The value placeholder's characters.
    value_chars: &'static str,
}

#[derive(Debug, Clone)]
struct TenantKey {
    prefix: &'static str,
}

impl Entity {
    fn template(&self) -> String {
        match &self.tenant {
            Some(t) => format!("{}<tenant>{}", t.prefix, self.rest),
            None => self.rest.to_owned(),
        }
    }

    /// Every partition key, with the tenant it belongs to.
    fn keys(&self, tenants: &[String]) -> Vec<(Option<String>, String)> {
        let values = words(&self.value_chars.chars().collect::<Vec<_>>(), MAX_VALUE);
        let fill = |s: &str| -> Vec<String> {
            if s.contains("<v>") {
                values.iter().map(|v| s.replace("<v>", v)).collect()
            } else {
                vec![s.to_owned()]
            }
        };
        match &self.tenant {
            Some(t) => tenants
                .iter()
                .flat_map(|u| {
                    fill(&format!("{}{u}{}", t.prefix, self.rest))
                        .into_iter()
                        .map(move |k| (Some(u.clone()), k))
                })
                .collect(),
            None => fill(self.rest).into_iter().map(|k| (None, k)).collect(),
        }
    }

    /// The LeadingKeys pattern for `tag`: the literal part and whether `*` follows.
    fn pattern(&self, tag: &str) -> Option<(String, bool)> {
        let t = self.tenant.as_ref()?;
        Some(match self.rest.chars().next() {
            Some(d) => (format!("{}{tag}{d}", t.prefix), true),
            None => (format!("{}{tag}", t.prefix), false),
        })
    }
}

#[derive(Debug, Clone)]
struct Design {
    entities: Vec<Entity>,
}

impl Design {
    fn spec(&self) -> String {
        let mut out = String::from(
            "version: 1\ntable: { name: Tbl, partition_key: pk, sort_key: sk }\ntenant: { id_pattern: '^[ab]{1,3}$' }\nentities:\n",
        );
        for (i, e) in self.entities.iter().enumerate() {
            let scope = if e.tenant.is_none() {
                "\n    scope: global"
            } else {
                ""
            };
            let class: String = e
                .value_chars
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_string()
                    } else {
                        format!("\\{c}")
                    }
                })
                .collect();
            out.push_str(&format!(
                "  E{i}:{scope}\n    attributes: {{ v: {{ type: string, pattern: '^[{class}]{{1,8}}$' }} }}\n    key: {{ pk: '{}', sk: 'E{i}' }}\n",
                e.template()
            ));
        }
        out.push_str("access_patterns:\n");
        for i in 0..self.entities.len() {
            out.push_str(&format!("  get_e{i}:\n    get: E{i}\n"));
        }
        out
    }

    /// Tags that reach a key that is not theirs, with one such key.
    fn leaks(&self) -> Vec<(String, String)> {
        let tenants = words(&TENANT_CHARS, MAX_TENANT);
        let keys: Vec<(Option<String>, String)> = self
            .entities
            .iter()
            .flat_map(|e| e.keys(&tenants))
            .collect();
        let mut out = Vec::new();
        for tag in &tenants {
            let patterns: Vec<(String, bool)> = self
                .entities
                .iter()
                .filter_map(|e| e.pattern(tag))
                .collect();
            let reached = keys.iter().find(|(owner, key)| {
                owner.as_deref() != Some(tag.as_str())
                    && patterns.iter().any(|(lit, star)| {
                        if *star {
                            key.starts_with(lit.as_str())
                        } else {
                            key == lit
                        }
                    })
            });
            if let Some((_, key)) = reached {
                out.push((tag.clone(), key.clone()));
            }
        }
        out
    }
}

/// Every string of 1..=max characters of `chars`.
fn words(chars: &[char], max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last = vec![String::new()];
    for _ in 0..max {
        last = last
            .iter()
            .flat_map(|w| chars.iter().map(move |c| format!("{w}{c}")))
            .collect();
        out.extend(last.iter().cloned());
    }
    out
}

fn entity() -> impl Strategy<Value = Entity> {
    let tenant = (
        prop::sample::select(vec![
            "T#", "T#a", "T#ab", "T#a|", "T#b|a", "", "a", "b|", "T#a|b#",
        ]),
        prop::sample::select(vec![
            "|X#<v>", "|<v>", "|<v>|Y", "#<v>", "|", "", "|X", "#a|<v>",
        ]),
    )
        .prop_map(|(prefix, rest)| (Some(TenantKey { prefix }), rest));
    let global = prop::sample::select(vec!["T#a|<v>", "ab|<v>", "G|<v>", "a|", "T#<v>|X", "b"])
        .prop_map(|rest| (None, rest));
    (
        prop_oneof![4 => tenant, 1 => global],
        prop::sample::select(vec!["ab", "XY", "a|", "b#", "1"]),
    )
        .prop_map(|((tenant, rest), value_chars)| Entity {
            tenant,
            rest,
            value_chars,
        })
}

fn design() -> impl Strategy<Value = Design> {
    prop::collection::vec(entity(), 2..=4).prop_map(|entities| Design { entities })
}

const TENANT_RULES: [Code; 5] = [
    Code::TenantPolicyOverlap,
    Code::TenantPolicyGlobal,
    Code::TenantPrefixUnsafe,
    Code::TenantPrefixMissing,
    Code::TenantIdUnsafe,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_policy_verdict_is_exact(design in design()) {
        let compilation = Compiler::new().source("design.yaml", design.spec()).compile();
        let diags: Vec<_> = compilation.diagnostics.iter().cloned().collect();
        let leaks = design.leaks();
        let codes: Vec<Code> = diags.iter().filter(|d| d.severity == Severity::Error).map(|d| d.code).collect();
        if !compilation.has_errors() {
            prop_assert!(leaks.is_empty(), "accepted, but tags reach keys not theirs: {:?}\n{}", leaks, design.spec());
        }
        if !leaks.is_empty() {
            prop_assert!(codes.iter().any(|c| TENANT_RULES.contains(c)), "leaks {:?} not reported: {:?}\n{}", leaks, codes, design.spec());
        }
        for d in diags.iter().filter(|d| matches!(d.code, Code::TenantPolicyOverlap | Code::TenantPolicyGlobal)) {
            let tag = d.message.split('`').nth(1).unwrap_or_default();
            prop_assert!(leaks.iter().any(|(t, _)| t == tag), "false positive: {}\nbrute force: {:?}\n{}", d.message, leaks, design.spec());
        }
    }
}

#[test]
fn the_generator_produces_both_verdicts() {
    // Guards the property against vacuity.
    let tenant = |prefix, rest| Entity {
        tenant: Some(TenantKey { prefix }),
        rest,
        value_chars: "XY",
    };
    let safe = Design {
        entities: vec![tenant("T#", "|X#<v>"), tenant("T#", "|<v>|Y")],
    };
    assert!(
        !Compiler::new()
            .source("d.yaml", safe.spec())
            .compile()
            .has_errors(),
        "{}",
        safe.spec()
    );
    assert!(safe.leaks().is_empty());
    let extended = Design {
        entities: vec![tenant("T#", "|X#<v>"), tenant("T#a", "|<v>|Y")],
    };
    assert!(!extended.leaks().is_empty());
    let report = Compiler::new().source("d.yaml", extended.spec()).compile();
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code == Code::TenantPolicyOverlap),
        "{}",
        extended.spec()
    );
}

//! Tenant isolation over the whole policy.
//!
//! Every tenant role is granted a union of `dynamodb:LeadingKeys` patterns,
//! one per partition-key shape it reaches: `L${tag}d*` for a template
//! `L<tenant>d…` (a literal prefix `L`, the tenant, the delimiter `d`), or
//! `L${tag}` when the tenant ends the key. The patterns apply to the table
//! and every index the policy names. Each template on its own is safe once
//! `d` is outside the tenant and tag alphabets (`tenant_prefix_unsafe`); the
//! union is safe only if, for every tenant `t`, no pattern of `t` matches a
//! partition key of another tenant `u` (on the table or any global index)
//! or a key of a global entity. This module decides that exactly over the
//! template languages, pair by pair, and names a witness.
//!
//! For a pattern `Lp t dp*` and a tenant template `Lk u R` (`R` empty or
//! starting with a delimiter outside the tenant alphabet `A`), a key `s`
//! both describe starts with `Lp` and with `Lk`, so one is a prefix of the
//! other, and `t` and `u` are runs of `A` that end at the first character
//! outside `A` after their start:
//! - `Lp = Lk`: both runs start at the same place, so `t = u`. Safe.
//! - `Lk = Lp w`: `t` starts inside `Lk`. If `w` holds a character outside
//!   `A` at `k`, `t = w[..k]` and the pattern matches every key of the
//!   template when `dp = w[k]`, whoever `u` is. Otherwise `t = w u`, longer
//!   than `u`, and the pattern matches when `R` starts with `dp` (or, for
//!   an exact pattern, when `R` is empty).
//! - `Lp = Lk v`: `u` starts inside `Lp`. If `v` lies in `A`, `u = v t`,
//!   as above. Otherwise `u = v[..k]` is fixed and `t` lies in `R`: the
//!   template languages decide whether `R` can begin with `v[k..] t dp`
//!   for some `t ≠ u`.
//!
//! Lengths are taken into account for the tenant (its least and greatest
//! length); other placeholders are modelled as one or more characters of
//! their alphabet, as everywhere in the checker.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir::{self, CharSet, IndexKind, Scope, TenantEnd};

use super::tenant::is_tag_char;
use crate::lang::{self, Tok};

/// A partition-key template granted to tenant roles, as its pattern.
struct Grant<'s> {
    /// Who the template belongs to, for messages: an entity or an access pattern.
    owner: String,
    template: &'s ir::KeyTemplate,
    /// The literal text before the tenant.
    prefix: String,
    /// The character after the tenant (`None`: the tenant ends the key).
    delimiter: Option<char>,
}

/// A partition key a tenant must not reach unless it is its own.
struct Target<'s> {
    entity: &'s ir::Entity,
    index: Option<&'s str>,
    template: &'s ir::KeyTemplate,
    tokens: Vec<Tok>,
    /// For a tenant template: the literal prefix before the tenant.
    tenant_prefix: Option<String>,
}

/// The tenant-id language: `min` characters of the alphabet or more.
struct Ids<'s> {
    alphabet: &'s CharSet,
    min: usize,
    max: Option<usize>,
}

impl Ids<'_> {
    /// Tokens for any id.
    fn any(&self) -> Vec<Tok> {
        let mut out = vec![Tok::One(self.alphabet.clone()); self.min.saturating_sub(1)];
        out.push(Tok::Class(self.alphabet.clone()));
        out
    }

    /// Token sequences whose union is every id other than `u`.
    fn except(&self, u: &[char]) -> Vec<Vec<Tok>> {
        let literal = |s: &[char]| s.iter().map(|c| Tok::Char(*c)).collect::<Vec<Tok>>();
        let mut out = Vec::new();
        // Shorter than `u`, as long as an id may be.
        for len in self.min.max(1)..u.len() {
            out.push(literal(&u[..len]));
        }
        // Longer than `u`.
        let mut longer = literal(u);
        longer.push(Tok::Class(self.alphabet.clone()));
        out.push(longer);
        // Different from `u` at position `p`, of any length an id may have.
        for (p, c) in u.iter().enumerate() {
            let others = CharSet {
                ranges: remove_char(&self.alphabet.ranges, *c),
            };
            if others.ranges.is_empty() {
                continue;
            }
            let mut base = literal(&u[..p]);
            base.push(Tok::One(others));
            let more = self.min.saturating_sub(p + 1);
            base.extend(std::iter::repeat_n(Tok::One(self.alphabet.clone()), more));
            let mut open = base.clone();
            open.push(Tok::Class(self.alphabet.clone()));
            out.push(base);
            out.push(open);
        }
        out
    }

    /// Whether an id of `len` characters exists.
    fn fits(&self, len: usize) -> bool {
        len >= self.min && self.max.is_none_or(|max| len <= max)
    }

    /// A readable id of the least length, other than `avoid`.
    fn sample(&self, avoid: &str) -> Option<String> {
        let len = self.min.max(1);
        ["acme", "globex", "initech"]
            .into_iter()
            .filter(|s| self.fits(s.len()) && s.chars().all(|c| self.alphabet.contains(c)))
            .map(str::to_owned)
            .chain(
                self.readable_chars()
                    .flat_map(|c| [c.to_string().repeat(len), c.to_string().repeat(len + 1)]),
            )
            .find(|s| s != avoid && self.fits(s.chars().count()))
    }

    fn readable_chars(&self) -> impl Iterator<Item = char> + '_ {
        ('a'..='z')
            .chain('0'..='9')
            .chain('A'..='Z')
            .filter(|c| self.alphabet.contains(*c))
            .chain(self.alphabet.ranges.first().map(|r| r.0))
    }

    /// The run of id characters at the start of `s`.
    fn run<'a>(&self, s: &'a str) -> &'a str {
        let end = s
            .char_indices()
            .find(|(_, c)| !self.alphabet.contains(*c))
            .map_or(s.len(), |(i, _)| i);
        &s[..end]
    }
}

fn remove_char(ranges: &[(char, char)], c: char) -> Vec<(char, char)> {
    let mut out = Vec::new();
    for &(lo, hi) in ranges {
        if c < lo || c > hi {
            out.push((lo, hi));
            continue;
        }
        if let Some(before) = char::from_u32(c as u32 - 1).filter(|b| lo <= *b && c > lo) {
            out.push((lo, before));
        }
        if let Some(after) = char::from_u32(c as u32 + 1).filter(|a| *a <= hi && c < hi) {
            out.push((after, hi));
        }
    }
    out
}

/// The templates granted to tenant roles: every entity's table partition
/// key and every queried partition key that starts with the tenant (the
/// runtime policy; each role's is a part of it). Templates whose tenant is
/// not followed by a delimiter are `tenant_prefix_unsafe`'s to report.
fn grants<'s>(spec: &'s ir::Spec, ids: &Ids<'_>) -> Vec<Grant<'s>> {
    let entities = spec
        .entities
        .values()
        .map(|e| (format!("entity `{}`", e.name), &e.primary_key.pk));
    let queries = spec
        .query_partition_keys()
        .map(|(p, pk)| (format!("access pattern `{}`", p.name), pk));
    let mut out: Vec<Grant<'s>> = Vec::new();
    for (owner, template) in entities.chain(queries) {
        let Some(ir::TenantPrefix {
            literal: prefix,
            end,
        }) = template.tenant_prefix()
        else {
            continue;
        };
        let delimiter = match end {
            TenantEnd::Key => None,
            TenantEnd::Delimiter(d) if !ids.alphabet.contains(d) && !is_tag_char(d) => Some(d),
            TenantEnd::Delimiter(_) | TenantEnd::Placeholder => continue,
        };
        if !out
            .iter()
            .any(|g| g.prefix == prefix && g.delimiter == delimiter)
        {
            out.push(Grant {
                owner,
                template,
                prefix,
                delimiter,
            });
        }
    }
    out
}

/// Every partition key on the table and on each global index.
fn targets(spec: &ir::Spec) -> Vec<Target<'_>> {
    let mut out = Vec::new();
    for entity in spec.entities.values() {
        let global_indexes = entity.index_keys.iter().filter(|(index, _)| {
            spec.indexes
                .get(*index)
                .is_some_and(|i| i.kind == IndexKind::Global)
        });
        let keys = std::iter::once((None, &entity.primary_key.pk))
            .chain(global_indexes.map(|(index, key)| (Some(index.as_str()), &key.pk)));
        for (index, template) in keys {
            let tenant_prefix = match entity.scope {
                Scope::Tenant => match template.tenant_prefix() {
                    Some(prefix) => Some(prefix.literal),
                    // `tenant_prefix_missing` reports it; no grant reaches it.
                    None => continue,
                },
                Scope::Global => None,
            };
            out.push(Target {
                entity,
                index,
                template,
                tokens: super::entity_tokens(spec, entity, template),
                tenant_prefix,
            });
        }
    }
    out
}

/// What a grant lets a tenant reach that is not its own.
struct Leak {
    /// The tag of the tenant that reaches.
    tag: String,
    /// The tenant whose key it reaches (`None`: a global key).
    victim: Option<String>,
    /// A key reached, `…` where it goes on.
    key: String,
}

/// Why: the IAM patterns of all templates together must confine each tenant to its own keys.
pub fn check_policy_isolation(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(tenant) = &spec.tenant else { return };
    if tenant.min_length == 0 {
        // `tenant_id_unsafe` reports it.
        return;
    }
    let ids = Ids {
        alphabet: &tenant.alphabet,
        min: tenant.min_length,
        max: tenant.max_length,
    };
    let grants = grants(spec, &ids);
    let targets = targets(spec);
    for grant in &grants {
        for target in &targets {
            let leak = match &target.tenant_prefix {
                Some(prefix) => tenant_leak(&ids, grant, target, prefix),
                None => global_leak(&ids, grant, target),
            };
            if let Some(leak) = leak {
                diags.push(leak_diagnostic(spec, grant, target, &leak));
            }
        }
    }
}

fn show_pattern(grant: &Grant<'_>) -> String {
    let mut out = grant.prefix.clone();
    out.push_str("${tag}");
    if let Some(d) = grant.delimiter {
        out.push(d);
        out.push('*');
    }
    out
}

fn leak_diagnostic(
    spec: &ir::Spec,
    grant: &Grant<'_>,
    target: &Target<'_>,
    leak: &Leak,
) -> Diagnostic {
    let whose = match target.index {
        None => format!("`{}` keys", target.entity.name),
        Some(index) => format!("`{}` keys on `{index}`", target.entity.name),
    };
    let (code, message) = match &leak.victim {
        Some(victim) => (
            Code::TenantPolicyOverlap,
            format!(
                "tenant `{}` would reach {whose} of tenant `{victim}`: the pattern `{}` granted for {} matches `{}`",
                leak.tag,
                show_pattern(grant),
                grant.owner,
                leak.key
            ),
        ),
        None => (
            Code::TenantPolicyGlobal,
            format!(
                "tenant `{}` would reach the global {whose}: the pattern `{}` granted for {} matches `{}`",
                leak.tag,
                show_pattern(grant),
                grant.owner,
                leak.key
            ),
        ),
    };
    let placeholder = spec
        .tenant
        .as_ref()
        .map_or("tenant", |t| t.placeholder.as_str());
    let (literal, delimiter) = super::tenant::tenant_key_example(spec);
    let help = match code {
        Code::TenantPolicyGlobal => format!("start global keys with a literal that no tenant key can begin with (`RATES{delimiter}<code>` beside `{literal}<{placeholder}>{delimiter}…`), or give tenant keys a literal prefix before `<{placeholder}>`"),
        _ => format!("give every tenant key the same text before `<{placeholder}>` (e.g. `{literal}<{placeholder}>{delimiter}ARCHIVE#…` rather than `{literal}archived<{placeholder}>{delimiter}…`)"),
    };
    Diagnostic::new(code, message)
        .label(
            grant.template.source.span,
            "granted to tenant roles as this pattern",
        )
        .label(target.template.source.span, "these keys are reached")
        .help(help)
}

/// A leak of `grant` into the keys of the tenant template `target`, whose
/// literal prefix before the tenant is `key_prefix`.
fn tenant_leak(
    ids: &Ids<'_>,
    grant: &Grant<'_>,
    target: &Target<'_>,
    key_prefix: &str,
) -> Option<Leak> {
    let lp: Vec<char> = grant.prefix.chars().collect();
    let lk: Vec<char> = key_prefix.chars().collect();
    // What follows the tenant in the key: its tokens, after the prefix and the tenant.
    let rest = &target.tokens[lk.len() + 1..];
    let rest_starts_with = |d: char| matches!(rest.first(), Some(Tok::Char(c)) if *c == d);
    // Whether the pattern matches a key whose tenant run ends where `rest` begins.
    let ends_together = match grant.delimiter {
        Some(d) => rest_starts_with(d),
        None => rest.is_empty(),
    };
    let shown_rest = |tenant: &str| {
        let mut key = format!("{key_prefix}{tenant}");
        if !rest.is_empty() {
            key.push_str(&show_tokens(rest));
        }
        key
    };
    if lp.len() < lk.len() && lk.starts_with(&lp) {
        let w = &lk[lp.len()..];
        match w.iter().position(|c| !ids.alphabet.contains(*c)) {
            Some(k) => {
                // `t = w[..k]`; the pattern covers every key of the template.
                let t: String = w[..k].iter().collect();
                if grant.delimiter != Some(w[k]) || !ids.fits(k) {
                    return None;
                }
                let u = ids.sample(&t)?;
                Some(Leak {
                    key: shown_rest(&u),
                    tag: t,
                    victim: Some(u),
                })
            }
            None => {
                // `t = w u`.
                let u = ids.sample("")?;
                let t = format!("{}{u}", w.iter().collect::<String>());
                (ends_together && ids.fits(t.chars().count())).then(|| Leak {
                    key: shown_rest(&u),
                    tag: t,
                    victim: Some(u),
                })
            }
        }
    } else if lk.len() < lp.len() && lp.starts_with(&lk) {
        let v = &lp[lk.len()..];
        match v.iter().position(|c| !ids.alphabet.contains(*c)) {
            None => {
                // `u = v t`.
                let t = ids.sample("")?;
                let u = format!("{}{t}", v.iter().collect::<String>());
                (ends_together && ids.fits(u.chars().count())).then(|| Leak {
                    key: shown_rest(&u),
                    tag: t,
                    victim: Some(u),
                })
            }
            Some(k) => {
                // `u = v[..k]` is fixed; `t` lies in what follows it.
                if !ids.fits(k) {
                    return None;
                }
                let u: String = v[..k].iter().collect();
                let head: Vec<Tok> = v[k..].iter().map(|c| Tok::Char(*c)).collect();
                ids.except(&v[..k]).into_iter().find_map(|t_tokens| {
                    let mut pattern = head.clone();
                    pattern.extend(t_tokens);
                    pattern.extend(grant.delimiter.map(Tok::Char));
                    let found = lang::witness(&pattern, rest, grant.delimiter.is_some())?;
                    let skip: usize = v[k..].iter().map(|c| c.len_utf8()).sum();
                    let t = ids.run(&found[skip..]).to_owned();
                    if !ids.fits(t.chars().count()) {
                        return None;
                    }
                    let key = format!(
                        "{key_prefix}{u}{found}{}",
                        if grant.delimiter.is_some() { "…" } else { "" }
                    );
                    Some(Leak {
                        tag: t,
                        victim: Some(u.clone()),
                        key,
                    })
                })
            }
        }
    } else {
        // The same prefix: both runs start together, so `t = u`. Prefixes
        // that differ at a character never describe the same key.
        None
    }
}

/// A leak of `grant` into the keys of the global template `target`.
fn global_leak(ids: &Ids<'_>, grant: &Grant<'_>, target: &Target<'_>) -> Option<Leak> {
    let mut pattern: Vec<Tok> = grant.prefix.chars().map(Tok::Char).collect();
    pattern.extend(ids.any());
    pattern.extend(grant.delimiter.map(Tok::Char));
    let found = lang::witness(&pattern, &target.tokens, grant.delimiter.is_some())?;
    let start = grant.prefix.len();
    let tag = ids.run(&found[start..]).to_owned();
    if !ids.fits(tag.chars().count()) {
        return None;
    }
    let more = if grant.delimiter.is_some() { "…" } else { "" };
    Some(Leak {
        tag,
        victim: None,
        key: format!("{found}{more}"),
    })
}

/// Tokens as people read them: literals as they are, classes as `…`.
fn show_tokens(tokens: &[Tok]) -> String {
    let mut out = String::new();
    for t in tokens {
        match t {
            Tok::Char(c) => out.push(*c),
            Tok::Class(_) | Tok::One(_) if out.ends_with('…') => {}
            Tok::Class(_) | Tok::One(_) => out.push('…'),
        }
    }
    out
}

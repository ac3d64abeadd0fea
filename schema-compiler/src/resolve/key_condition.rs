//! A query's key condition on the attributes of its index's keys: one
//! partition key and sort key, or a multi-attribute key's parts, bound as
//! DynamoDB requires (every partition key attribute by equality; sort key
//! attributes from the first, with no gap, and a range or prefix only on the
//! last one named).

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, IndexRef};
use crate::source::Spanned;
use crate::syntax::{self, de::NamedMap};

use super::pattern::KeyedPattern;
use super::unify::{match_template, Binding};
use super::Resolver;

impl Resolver<'_> {
    /// The partition key templates of a query, one per attribute of the
    /// index's partition key, in the index's order.
    pub(super) fn resolve_partition_value(
        &mut self,
        decl: &Spanned<syntax::PartitionValueDecl>,
        index: &IndexRef,
        partition: &[ir::KeyAttribute],
        spec: &ir::Spec,
    ) -> Option<Vec<ir::KeyTemplate>> {
        let parts = match &decl.value {
            syntax::PartitionValueDecl::Template(t) => {
                if partition.len() > 1 {
                    let example = example_map(partition);
                    self.error(
                        Diagnostic::new(
                            Code::MultiAttributeCondition,
                            format!(
                                "{} has a partition key of {} attributes, and the query gives one template",
                                place(index),
                                partition.len()
                            ),
                        )
                        .label(decl.span, "one template")
                        .help(format!("DynamoDB needs an equality on every partition key attribute: bind each by name, `pk: {example}`")),
                    );
                    return None;
                }
                let source = Spanned::new(t.clone(), decl.span);
                return Some(vec![self.resolve_pattern_template(
                    &source,
                    &partition[0],
                    spec,
                )?]);
            }
            syntax::PartitionValueDecl::Parts(parts) => parts,
        };
        let named = self.named_parts(parts, partition, index, "partition")?;
        let missing: Vec<&str> = partition
            .iter()
            .zip(&named)
            .filter(|(_, n)| n.is_none())
            .map(|(k, _)| k.name.as_str())
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.error(
                Diagnostic::new(
                    Code::MultiAttributeCondition,
                    format!(
                        "the query binds no value for partition key attribute(s) {list} of {}",
                        place(index)
                    ),
                )
                .label(decl.span, "this partition key condition")
                .help(format!(
                    "DynamoDB needs an equality on every partition key attribute: write `pk: {}`",
                    example_map(partition)
                )),
            );
            return None;
        }
        partition
            .iter()
            .zip(named)
            .map(|(key, source)| self.resolve_pattern_template(source?, key, spec))
            .collect()
    }

    /// A query's sort-key condition: the equalities on a multi-attribute
    /// sort key's attributes before the last one named, and the condition
    /// on that one (or on the sort key).
    pub(super) fn resolve_sort_key(
        &mut self,
        decl: &Spanned<syntax::SortKeyDecl>,
        index: &IndexRef,
        sort: &[ir::KeyAttribute],
        spec: &ir::Spec,
    ) -> Option<(Vec<ir::KeyTemplate>, Option<ir::SortCondition>)> {
        let parts = match &decl.value {
            syntax::SortKeyDecl::Condition(c) => {
                let cond = Spanned::new((**c).clone(), decl.span);
                let condition = self.resolve_sort_condition(&cond, sort.first(), spec)?;
                return Some((Vec::new(), Some(condition)));
            }
            syntax::SortKeyDecl::Parts(parts) => parts,
        };
        if sort.is_empty() {
            self.no_sort_key(decl.span);
            return None;
        }
        let named = self.named_parts(parts, sort, index, "sort")?;
        let last = named.iter().rposition(Option::is_some)?;
        let mut prefix = Vec::new();
        for (position, (key, given)) in sort.iter().zip(&named).take(last).enumerate() {
            let Some(given) = given else {
                self.error(
                    Diagnostic::new(
                        Code::MultiAttributeCondition,
                        format!(
                            "the query skips sort key attribute `{}` of {} but has a condition on `{}`",
                            key.name,
                            place(index),
                            sort[last].name
                        ),
                    )
                    .label(
                        parts
                            .iter()
                            .find(|(name, _)| name.value == sort[last].name.value)
                            .map_or(decl.span, |(name, _)| name.span),
                        format!("a condition on `{}`", sort[last].name),
                    )
                    .help(format!(
                        "DynamoDB reads sort key attributes from the first with no gap: give `{}` an equality, or drop the conditions after position {}",
                        key.name,
                        position + 1
                    )),
                );
                return None;
            };
            match &given.value {
                syntax::SortConditionDecl {
                    equals: Some(t),
                    begins_with: None,
                    between: None,
                    lt: None,
                    lte: None,
                    gt: None,
                    gte: None,
                } => {
                    prefix.push(self.resolve_pattern_template(
                        &or_outer(t, given.span),
                        key,
                        spec,
                    )?);
                }
                _ => {
                    self.error(
                        Diagnostic::new(
                            Code::MultiAttributeCondition,
                            format!(
                                "sort key attribute `{}` of {} has a range or prefix, but a later one, `{}`, has a condition too",
                                key.name,
                                place(index),
                                sort[last].name
                            ),
                        )
                        .label(given.span, "not an equality")
                        .help(format!("only the last sort key attribute the query names may have a range or `begins_with`: make `{}` an equality, or drop the condition on `{}` and filter on it", key.name, sort[last].name)),
                    );
                    return None;
                }
            }
        }
        let given = named[last].as_ref()?;
        let condition = self.resolve_sort_condition(given, Some(&sort[last]), spec)?;
        Some((prefix, Some(condition)))
    }

    /// The conditions `parts` gives, one slot per attribute of `keys` in
    /// order; a name that is none of them is an error.
    fn named_parts<'p, T>(
        &mut self,
        parts: &'p NamedMap<T>,
        keys: &[ir::KeyAttribute],
        index: &IndexRef,
        which: &str,
    ) -> Option<Vec<Option<&'p Spanned<T>>>> {
        let mut named = vec![None; keys.len()];
        let mut ok = true;
        for (name, condition) in parts.iter() {
            match keys.iter().position(|k| k.name.value == name.value) {
                Some(i) => named[i] = Some(condition),
                None => {
                    ok = false;
                    let names = keys.iter().map(|k| k.name.as_str());
                    // On a one-attribute sort key, a misspelt operator.
                    let operator = (which == "sort" && keys.len() == 1)
                        .then(|| did_you_mean(name, syntax::SORT_OPERATORS.iter().copied()))
                        .flatten();
                    let help = match (did_you_mean(name, names), operator) {
                        (Some(close), _) => format!("did you mean `{close}`?"),
                        (None, Some(operator)) => format!(
                            "did you mean `{operator}`? (a map of attribute names is for a multi-attribute sort key)"
                        ),
                        (None, None) => format!(
                            "the {which} key attributes of {} are {}",
                            place(index),
                            keys.iter().map(|k| format!("`{}`", k.name)).collect::<Vec<_>>().join(", ")
                        ),
                    };
                    self.error(
                        Diagnostic::new(
                            Code::MultiAttributeCondition,
                            format!(
                                "`{name}` is not a {which} key attribute of {}",
                                place(index)
                            ),
                        )
                        .label(name.span, "not a key attribute here")
                        .help(help),
                    );
                }
            }
        }
        ok.then_some(named)
    }
}

/// `the table` or `index `x``.
fn place(index: &IndexRef) -> String {
    match index {
        IndexRef::Table => "the table".to_owned(),
        IndexRef::Index(i) => format!("index `{i}`"),
    }
}

/// `{ a: "<a>", b: "<b>" }` for the attributes of a key.
fn example_map(keys: &[ir::KeyAttribute]) -> String {
    let entries = keys
        .iter()
        .map(|k| format!("{}: \"<{}>\"", k.name, k.name))
        .collect::<Vec<_>>()
        .join(", ");
    format!("{{ {entries} }}")
}

/// A template with the span of what holds it when it has none of its own.
fn or_outer(t: &Spanned<String>, outer: crate::source::Span) -> Spanned<String> {
    super::or_span(t, outer)
}

impl<'a> KeyedPattern<'a> {
    /// Every template of the key condition, as [`ir::Query::templates`].
    pub(super) fn templates(&self) -> impl Iterator<Item = &'a ir::KeyTemplate> {
        std::iter::once(self.pk)
            .chain(self.more_pk)
            .chain(self.sk_prefix)
            .chain(self.sk.into_iter().flat_map(|s| s.operands.iter()))
    }

    /// The template of `keys` that the sort condition is on: the sort key,
    /// or the attribute of a multi-attribute sort key after the prefix.
    pub(super) fn condition_template<'e>(
        &self,
        keys: &'e ir::EntityKey,
    ) -> Option<&'e ir::KeyTemplate> {
        keys.sort_templates().nth(self.sk_prefix.len())
    }

    /// The bindings if `keys`' partition key (every attribute of it) and
    /// sort key prefix are what the pattern's equalities give.
    pub(super) fn match_equalities(&self, keys: &ir::EntityKey) -> Option<Vec<Binding>> {
        let entity_sorts: Vec<&ir::KeyTemplate> = keys.sort_templates().collect();
        if keys.more_pk.len() != self.more_pk.len() || entity_sorts.len() < self.sk_prefix.len() {
            return None;
        }
        let pairs = std::iter::once((self.pk, &keys.pk))
            .chain(self.more_pk.iter().zip(&keys.more_pk))
            .chain(self.sk_prefix.iter().zip(entity_sorts));
        let mut bindings = Vec::new();
        for (query, entity) in pairs {
            bindings.extend(match_template(query, entity, false)?);
        }
        Some(bindings)
    }
}

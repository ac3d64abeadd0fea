//! Attribute declarations → typed attributes.

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, AttributeType, CharSet};
use crate::source::{Span, Spanned};
use crate::syntax::de::NamedMap;
use crate::syntax::AttributeDecl;
use indexmap::IndexMap;

use super::{bounds, or_span, text, Resolver};

const TYPE_NAMES: [&str; 10] = [
    "string", "integer", "decimal", "boolean", "datetime", "enum", "list", "map", "set", "binary",
];

/// Which options each type accepts, for "does not apply" errors.
fn allowed_options(ty: &str) -> &'static [&'static str] {
    match ty {
        "string" => &["min_length", "max_length", "pattern", "escape", "case"],
        "integer" => &["min", "max"],
        "decimal" => &["min", "max", "scale"],
        "datetime" => &["format", "precision"],
        "enum" => &["values"],
        "list" => &["items", "min_length", "max_length"],
        "set" => &["items"],
        "map" => &["fields"],
        "binary" => &["min_length", "max_length"],
        _ => &[],
    }
}

impl Resolver<'_> {
    pub(crate) fn resolve_attribute(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<AttributeDecl>,
    ) -> ir::Attribute {
        let r#type = self.resolve_type(decl, 1, 1).unwrap_or_else(|| {
            self.untyped.push(name.span);
            AttributeType::ANY
        });
        let default = decl
            .default
            .as_ref()
            .and_then(|d| self.resolve_default(name, decl, d, &r#type));
        ir::Attribute {
            name: name.clone(),
            r#type,
            optional: decl.optional.as_ref().is_some_and(|o| o.value),
            description: text(&decl.description),
            typical_size: decl.typical_size.as_ref().map(|s| {
                self.at_most(
                    s,
                    bounds::ITEM_BYTES,
                    "typical_size",
                    "an item holds at most 400 KB",
                )
            }),
            escape: decl.escape.as_ref().is_some_and(|e| e.value),
            case: decl
                .case
                .as_ref()
                .and_then(|c| self.resolve_case(name, decl, c)),
            key_only: decl.key_only.as_ref().is_some_and(|k| k.value),
            stored_as: decl.stored_as.as_ref().map(|s| {
                self.check_stored_name(s, false);
                s.value.clone()
            }),
            timestamp: decl.timestamp.as_ref().map(|t| {
                self.check_timestamp(decl, t);
                t.value
            }),
            at_least_once: decl.at_least_once.as_ref().is_some_and(|a| {
                self.check_at_least_once(decl, a);
                a.value
            }),
            default,
        }
    }

    /// A key `case`: not on a `key_only` value, which is read back out of
    /// its key (a folded key has lost the value's case).
    fn resolve_case(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<AttributeDecl>,
        case: &Spanned<crate::syntax::KeyCase>,
    ) -> Option<crate::syntax::KeyCase> {
        if let Some(key_only) = decl.key_only.as_ref().filter(|k| k.value) {
            self.error(
                Diagnostic::new(
                    Code::InvalidAttribute,
                    format!("`{name}` cannot have a key `case`: a `key_only` value is read back out of its key, and a key in one case has lost the value's"),
                )
                .label(case.span, "`case` given here")
                .label(key_only.span, "`key_only` here")
                .help("remove `case`, or store the attribute (remove `key_only`) so that reads take it from the item"),
            );
            return None;
        }
        Some(case.value)
    }

    /// A `default`: on a required attribute the repository does not set,
    /// of a scalar type, keeping the attribute's rules.
    fn resolve_default(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<AttributeDecl>,
        default: &Spanned<crate::syntax::Scalar>,
        ty: &AttributeType,
    ) -> Option<ir::FilterLiteral> {
        let flag = |f: &Option<Spanned<bool>>| f.as_ref().is_some_and(|f| f.value);
        let not_here = if flag(&decl.optional) {
            Some("an optional attribute reads as `None` where an item lacks it")
        } else if flag(&decl.key_only) {
            Some("a `key_only` value is always in the item's key")
        } else if decl.timestamp.is_some() {
            Some("the repository sets a timestamp on every write that stores it")
        } else {
            None
        };
        if let Some(why) = not_here {
            self.error(
                Diagnostic::new(
                    Code::InvalidAttribute,
                    format!("`{name}` cannot have a `default`: {why}"),
                )
                .label(default.span, "`default` given here")
                .help("remove `default`"),
            );
            return None;
        }
        match super::filter_operands::default_literal(&default.value, ty) {
            Ok(literal) => Some(literal),
            Err(why) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidLiteral,
                        format!("the default of `{name}`, {}, is invalid: {why}", ty.article_name()),
                    )
                    .label(default.span, "this default")
                    .help("give a value of the attribute's type that keeps its rules (pattern, lengths, bounds, scale)"),
                );
                None
            }
        }
    }

    /// `at_least_once` is about the changes an update makes relative to
    /// the stored value: a counter's `ADD`, a list's appends and removals.
    fn check_at_least_once(&mut self, decl: &Spanned<AttributeDecl>, a: &Spanned<bool>) {
        let ty = or_span(&decl.r#type, decl.span);
        let counter = ty.as_str() == "integer" && !decl.optional.as_ref().is_some_and(|o| o.value);
        if counter || ty.as_str() == "list" {
            return;
        }
        self.error(
            Diagnostic::new(
                Code::InvalidAttribute,
                format!(
                    "`at_least_once` applies to a counter (a required integer) or a list, not {}",
                    ir::with_article(&ty)
                ),
            )
            .label(a.span, "at_least_once")
            .help("remove it: every other change an update makes applies once however often it is sent"),
        );
    }

    /// A timestamp is a required `datetime` the item always holds.
    fn check_timestamp(
        &mut self,
        decl: &Spanned<AttributeDecl>,
        t: &Spanned<crate::syntax::Timestamp>,
    ) {
        let ty = or_span(&decl.r#type, decl.span);
        let problem = if ty.as_str() != "datetime" {
            Some(format!(
                "a timestamp is a datetime, not {}",
                ir::with_article(&ty)
            ))
        } else if decl.optional.as_ref().is_some_and(|o| o.value) {
            Some("a timestamp is set on every write it names: it cannot be optional".to_owned())
        } else if decl.key_only.as_ref().is_some_and(|k| k.value) {
            Some("a timestamp is an attribute of its own: it cannot be `key_only`".to_owned())
        } else {
            None
        };
        if let Some(problem) = problem {
            self.error(
                Diagnostic::new(Code::InvalidAttribute, problem)
                    .label(t.span, "timestamp")
                    .help(
                        "declare `{ type: datetime, timestamp: created }` (or `updated`), required",
                    ),
            );
        }
    }

    /// The fields of a typed map nested `depth` levels deep: each typed like
    /// an attribute, stored under its name (or `stored_as`) in the map.
    fn resolve_fields(
        &mut self,
        fields: &NamedMap<AttributeDecl>,
        ty: &Spanned<String>,
        depth: usize,
    ) -> Option<IndexMap<String, ir::Attribute>> {
        if !self.within_nesting(depth, ty.span) {
            return None;
        }
        if fields.0.is_empty() {
            self.error(
                Diagnostic::new(
                    Code::InvalidAttribute,
                    "a map with `fields` needs at least one",
                )
                .label(ty.span, "this map")
                .help("declare its fields, or remove `fields` for a map of any keys and values"),
            );
            return None;
        }
        let mut out: IndexMap<String, ir::Attribute> = IndexMap::with_capacity(fields.0.len());
        for (name, decl) in &fields.0 {
            self.check_attribute_name(name);
            for (option, given) in [
                ("escape", decl.escape.as_ref().map(|v| v.span)),
                ("case", decl.case.as_ref().map(|v| v.span)),
                ("key_only", decl.key_only.as_ref().map(|v| v.span)),
                ("typical_size", decl.typical_size.as_ref().map(|v| v.span)),
                ("timestamp", decl.timestamp.as_ref().map(|v| v.span)),
                ("at_least_once", decl.at_least_once.as_ref().map(|v| v.span)),
                ("default", decl.default.as_ref().map(|v| v.span)),
            ] {
                if let Some(span) = given {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidAttribute,
                            format!("`{option}` does not apply to a map's field"),
                        )
                        .label(span, format!("`{option}` given here"))
                        .help(format!("remove `{option}`: a field is never part of a key, and the map's size counts for the attribute")),
                    );
                }
            }
            let field = ir::Attribute {
                name: name.clone(),
                r#type: self
                    .resolve_type(decl, depth + 1, 1)
                    .unwrap_or(AttributeType::ANY),
                optional: decl.optional.as_ref().is_some_and(|o| o.value),
                description: text(&decl.description),
                typical_size: None,
                escape: false,
                case: None,
                key_only: false,
                timestamp: None,
                at_least_once: false,
                default: None,
                stored_as: decl.stored_as.as_ref().map(|s| {
                    self.check_stored_name(s, true);
                    s.value.clone()
                }),
            };
            if let Some(other) = out.values().find(|o| o.stored() == field.stored()) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!(
                            "fields `{}` and `{}` are both stored as `{}`",
                            other.name,
                            field.name,
                            field.stored()
                        ),
                    )
                    .label(field.name.span, "second")
                    .label(other.name.span, "first")
                    .help("a map holds one value per name: store each field under its own name"),
                );
                continue;
            }
            if out.contains_key(&name.value) {
                continue;
            }
            out.insert(name.value.clone(), field);
        }
        Some(out)
    }

    /// Whether a value `depth` levels deep is within DynamoDB's nesting
    /// limit; reports it when not.
    fn within_nesting(&mut self, depth: usize, span: Span) -> bool {
        if depth <= bounds::NESTING {
            return true;
        }
        self.error(
            Diagnostic::new(
                Code::InvalidBounds,
                format!(
                    "values nested {depth} levels deep; DynamoDB nests at most {} levels",
                    bounds::NESTING
                ),
            )
            .label(span, "too deep")
            .help("flatten the structure, or store the inner levels as a map or binary"),
        );
        false
    }

    /// A name DynamoDB accepts for an attribute (or a map's field): 1 to
    /// 255 bytes; an attribute's is none of the names generated code
    /// stores (`__applied`, `__counted_…`, `__recount_…`). Other names
    /// beginning with `__` are other libraries' (ElectroDB's `__edb_e__`).
    pub(super) fn check_stored_name(&mut self, name: &Spanned<String>, field: bool) {
        let problem = if name.is_empty() {
            Some("an attribute name cannot be empty")
        } else if name.len() > 255 {
            Some("DynamoDB attribute names are at most 255 bytes")
        } else if !field && is_generated_stored_name(name) {
            Some("`__applied`, `__counted_…` and `__recount_…` are kept for generated code")
        } else {
            None
        };
        if let Some(problem) = problem {
            self.error(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("the stored name {:?}: {problem}", name.value),
                )
                .label(name.span, "stored name")
                .help("write the attribute's name in the table"),
            );
        }
    }

    /// The type of an attribute nested `depth` levels deep (1 at the top),
    /// in lists that hold at least `least` values of it together.
    fn resolve_type(
        &mut self,
        decl: &Spanned<AttributeDecl>,
        depth: usize,
        least: u64,
    ) -> Option<AttributeType> {
        let ty = or_span(&decl.r#type, decl.span);
        if !TYPE_NAMES.contains(&ty.as_str()) {
            let mut d =
                Diagnostic::new(Code::UnknownType, format!("unknown attribute type `{ty}`"))
                    .label(ty.span, "not a type");
            d = d.help(match did_you_mean(&ty, TYPE_NAMES) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("use one of: {}", TYPE_NAMES.join(", ")),
            });
            self.error(d);
            return None;
        }
        self.check_options_apply(&ty, decl);
        Some(match ty.as_str() {
            "string" => self.string_type(decl),
            "integer" => self.integer_type(decl),
            "decimal" => AttributeType::Decimal {
                min: self.decimal_bound(&decl.min),
                max: self
                    .decimal_bound(&decl.max)
                    .inspect(|_| self.decimal_order(decl)),
                scale: decl.scale.as_ref().map(|s| {
                    self.at_most(
                        s,
                        bounds::DECIMAL_SCALE,
                        "scale",
                        "DynamoDB numbers have at most 38 digits",
                    )
                }),
            },
            "boolean" => AttributeType::Boolean,
            "datetime" => AttributeType::Datetime {
                format: decl
                    .format
                    .as_ref()
                    .map_or(ir::DatetimeFormat::Rfc3339, |f| f.value),
                precision: decl
                    .precision
                    .as_ref()
                    .map_or(ir::TimePrecision::Millis, |p| p.value),
            },
            "enum" => self.enum_type(decl, ty.span),
            "list" => {
                let min_length = self.min_length(decl);
                let least = least.saturating_mul(min_length.unwrap_or(0).max(1));
                if least > bounds::ITEM_BYTES {
                    let span = decl.min_length.as_ref().map_or(decl.span, |m| m.span);
                    self.error(
                        Diagnostic::new(
                            Code::InvalidBounds,
                            format!("nested lists hold at least {least} values, more than fit in a 400 KB item"),
                        )
                        .label(span, "min_length")
                        .help("lower the min_length of the nested lists"),
                    );
                }
                AttributeType::List {
                    items: decl
                        .items
                        .as_ref()
                        .and_then(|i| self.list_items(i, depth + 1, least))
                        .map(Box::new),
                    min_length,
                    max_length: self.length_bounds(decl),
                }
            }
            "binary" => AttributeType::Binary {
                min_length: self.min_length(decl),
                max_length: self.length_bounds(decl),
            },
            "set" => AttributeType::Set {
                of: self.set_of(decl, &ty)?,
            },
            _ => AttributeType::Map {
                fields: decl
                    .fields
                    .as_ref()
                    .and_then(|f| self.resolve_fields(f, &ty, depth)),
            },
        })
    }

    /// What a set holds: DynamoDB has sets of strings, numbers and binaries.
    fn set_of(&mut self, decl: &Spanned<AttributeDecl>, ty: &Spanned<String>) -> Option<ir::SetOf> {
        let Some(items) = &decl.items else {
            self.error(
                Diagnostic::new(Code::InvalidAttribute, "a set needs `items`")
                    .label(ty.span, "this set")
                    .help(
                        "write `{ type: set, items: string }` (or `integer`, `decimal`, `binary`)",
                    ),
            );
            return None;
        };
        let name = or_span(&items.r#type, items.span);
        let of = match name.as_str() {
            "string" => ir::SetOf::String,
            "integer" => ir::SetOf::Integer,
            "decimal" => ir::SetOf::Decimal,
            "binary" => ir::SetOf::Binary,
            other => {
                self.error(
                    Diagnostic::new(Code::InvalidAttribute, format!("DynamoDB has no set of `{other}`"))
                        .label(name.span, "set items")
                        .help("a set holds strings, integers, decimals or binaries; use a list for other values"),
                );
                return None;
            }
        };
        Some(of)
    }

    fn list_items(
        &mut self,
        items: &Spanned<AttributeDecl>,
        depth: usize,
        least: u64,
    ) -> Option<AttributeType> {
        if let Some(default) = &items.value.default {
            self.error(
                Diagnostic::new(
                    Code::InvalidAttribute,
                    "`default` does not apply to a list's items",
                )
                .label(default.span, "`default` given here")
                .help("remove `default`: a list holds the elements written to it"),
            );
        }
        if !self.within_nesting(depth, items.span) {
            return None;
        }
        self.resolve_type(items, depth, least)
    }

    fn check_options_apply(&mut self, ty: &Spanned<String>, decl: &AttributeDecl) {
        let given: [(&str, Option<Span>); 13] = [
            ("escape", decl.escape.as_ref().map(|v| v.span)),
            ("case", decl.case.as_ref().map(|v| v.span)),
            ("min_length", decl.min_length.as_ref().map(|v| v.span)),
            ("max_length", decl.max_length.as_ref().map(|v| v.span)),
            ("pattern", decl.pattern.as_ref().map(|v| v.span)),
            ("min", decl.min.as_ref().map(|v| v.span)),
            ("max", decl.max.as_ref().map(|v| v.span)),
            ("scale", decl.scale.as_ref().map(|v| v.span)),
            (
                "values",
                decl.values
                    .as_ref()
                    .map(|v| v.first().map_or(ty.span, |f| f.span)),
            ),
            ("items", decl.items.as_ref().map(|v| v.span)),
            (
                "fields",
                decl.fields
                    .as_ref()
                    .map(|f| f.0.first().map_or(ty.span, |(n, _)| n.span)),
            ),
            ("format", decl.format.as_ref().map(|v| v.span)),
            ("precision", decl.precision.as_ref().map(|v| v.span)),
        ];
        let allowed = allowed_options(ty);
        for (option, span) in given {
            let Some(span) = span else { continue };
            if !allowed.contains(&option) {
                self.error(
                    Diagnostic::new(
                        Code::InvalidAttribute,
                        format!("`{option}` does not apply to {}", ir::with_article(ty)),
                    )
                    .label(span, format!("`{option}` given here"))
                    .label(ty.span, format!("the type is {ty}"))
                    .help(if allowed.is_empty() {
                        format!(
                            "{} takes no options: remove `{option}`",
                            ir::with_article(ty)
                        )
                    } else {
                        format!("{} takes: {}", ir::with_article(ty), allowed.join(", "))
                    }),
                );
            }
        }
    }

    fn string_type(&mut self, decl: &Spanned<AttributeDecl>) -> AttributeType {
        let max_length = self.length_bounds(decl);
        let (pattern, alphabet) = match &decl.pattern {
            None => (None, CharSet::any()),
            Some(p) => match crate::alphabet::analyze(p) {
                Ok(info) => (Some(p.value.clone()), info.alphabet),
                Err(message) => {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidPattern,
                            format!("pattern does not parse: {message}"),
                        )
                        .label(p.span, "this regular expression")
                        .help("write an anchored regular expression such as `^[a-z0-9]+$`"),
                    );
                    (None, CharSet::any())
                }
            },
        };
        AttributeType::String {
            min_length: self.min_length(decl),
            max_length,
            pattern,
            alphabet,
        }
    }

    fn length_bounds(&mut self, decl: &Spanned<AttributeDecl>) -> Option<u64> {
        if let (Some(min), Some(max)) = (&decl.min_length, &decl.max_length) {
            if min.value > max.value {
                self.error(
                    Diagnostic::new(
                        Code::InvalidBounds,
                        format!(
                            "min_length {} is greater than max_length {}",
                            min.value, max.value
                        ),
                    )
                    .label(min.span, "min_length")
                    .label(max.span, "max_length")
                    .help("swap the bounds or correct one of them"),
                );
            }
        }
        if let Some(max) = &decl.max_length {
            if max.value == 0 {
                self.error(
                    Diagnostic::new(Code::InvalidBounds, "max_length is 0")
                        .label(max.span, "max_length")
                        .help("an attribute that is always empty carries no information: remove it or raise the bound"),
                );
            }
        }
        decl.max_length.as_ref().map(|v| {
            self.at_most(
                v,
                bounds::ITEM_BYTES,
                "max_length",
                "an item holds at most 400 KB",
            )
        })
    }

    fn min_length(&mut self, decl: &AttributeDecl) -> Option<u64> {
        decl.min_length.as_ref().map(|v| {
            self.at_most(
                v,
                bounds::ITEM_BYTES,
                "min_length",
                "an item holds at most 400 KB",
            )
        })
    }

    /// A decimal bound, which DynamoDB must be able to store: a magnitude
    /// below 10^126.
    fn decimal_bound(&mut self, n: &Option<Spanned<serde_json::Number>>) -> Option<String> {
        let n = n.as_ref()?;
        if n.value
            .as_f64()
            .is_none_or(|v| v.is_nan() || v.abs() >= 1e126)
        {
            self.error(
                Diagnostic::new(Code::InvalidBounds, format!("`{}` is beyond the numbers DynamoDB stores", n.value))
                    .label(n.span, "decimal bound")
                    .help("DynamoDB numbers have a magnitude below 10^126: write a smaller bound, or leave it out"),
            );
            return None;
        }
        Some(n.value.to_string())
    }

    /// Reports decimal bounds whose `min` is above `max`.
    fn decimal_order(&mut self, decl: &AttributeDecl) {
        let (Some(min), Some(max)) = (&decl.min, &decl.max) else {
            return;
        };
        if let (Some(lo), Some(hi)) = (min.value.as_f64(), max.value.as_f64()) {
            if lo > hi {
                self.error(
                    Diagnostic::new(
                        Code::InvalidBounds,
                        format!("min {} is greater than max {}", min.value, max.value),
                    )
                    .label(min.span, "min")
                    .label(max.span, "max")
                    .help("swap the bounds or correct one of them"),
                );
            }
        }
    }

    fn integer_type(&mut self, decl: &Spanned<AttributeDecl>) -> AttributeType {
        let bound = |r: &mut Self, n: &Option<Spanned<serde_json::Number>>, default: i64| {
            match n {
            None => default,
            Some(n) => n.value.as_i64().unwrap_or_else(|| {
                r.error(
                    Diagnostic::new(Code::InvalidBounds, format!("`{}` is not a 64-bit integer", n.value))
                        .label(n.span, "integer bound")
                        .help("integer bounds are whole numbers between -9223372036854775808 and 9223372036854775807"),
                );
                default
            }),
        }
        };
        let min = bound(self, &decl.min, i64::MIN);
        let max = bound(self, &decl.max, i64::MAX);
        if min > max {
            let span = decl.min.as_ref().map_or(decl.span, |m| m.span);
            self.error(
                Diagnostic::new(
                    Code::InvalidBounds,
                    format!("min {min} is greater than max {max}"),
                )
                .label(span, "min")
                .help("swap the bounds or correct one of them"),
            );
        }
        AttributeType::Integer { min, max }
    }

    fn enum_type(&mut self, decl: &Spanned<AttributeDecl>, ty_span: Span) -> AttributeType {
        let values = decl.values.clone().unwrap_or_default();
        if values.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidBounds, "an enum needs at least one value")
                    .label(ty_span, "enum declared here")
                    .help("add `values: [A, B]`"),
            );
        }
        let mut seen = indexmap::IndexSet::with_capacity(values.len());
        for v in &values {
            if !seen.insert(v.value.as_str()) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!("enum value `{v}` is listed twice"),
                    )
                    .label(v.span, "repeated value")
                    .help("list each value once"),
                );
            }
            if v.is_empty() {
                self.error(
                    Diagnostic::new(Code::InvalidBounds, "an enum value cannot be empty")
                        .label(v.span, "empty value")
                        .help("give the value a name"),
                );
            }
        }
        AttributeType::Enum {
            values: values.into_iter().map(|v| v.value).collect(),
        }
    }
}

/// Whether `name` is one generated code stores on items: a stream counter's
/// `__applied` marks, a pending recount's `__counted_<aggregate>` and
/// `__recount_<mark>`.
pub(crate) fn is_generated_stored_name(name: &str) -> bool {
    name == "__applied" || name.starts_with("__counted_") || name.starts_with("__recount_")
}

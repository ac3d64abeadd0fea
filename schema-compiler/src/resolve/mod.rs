//! Syntax → IR: names resolved, templates parsed and typed, defaults applied.
//!
//! Resolution reports every problem it finds into the collector and keeps
//! going with a best-effort model, so one run shows every mistake.

mod attribute;
mod bind;
mod entity;
mod entity_names;
mod example;
mod filter;
mod filter_operands;
pub(crate) mod global;
mod healthy;
mod index;
mod index_keys;
mod key_condition;
mod pattern;
mod range;
mod role;
mod settings;
mod unify;
mod writes;

pub use healthy::healthy_part;

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::ir;
use crate::source::{SourceMap, Span, Spanned};
use crate::syntax::{self, de::NamedMap};

/// The tenant id pattern when the spec gives none.
pub const DEFAULT_TENANT_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";
/// The tenant placeholder name when the spec gives none.
pub const DEFAULT_TENANT_PLACEHOLDER: &str = "tenant";
/// The IAM principal tag when the spec gives none.
pub const DEFAULT_PRINCIPAL_TAG: &str = "TenantId";
/// The entity-type attribute when the spec gives none.
pub const DEFAULT_ENTITY_TYPE_ATTRIBUTE: &str = "entity_type";
/// The placeholder that stands for the write shard.
/// The most attributes a partition or sort key of a global index may have.
pub const MAX_KEY_PARTS: usize = 4;
/// The placeholder of the write shard.
pub const SHARD_PLACEHOLDER: &str = "shard";

/// Resolves a parsed spec. The model is returned even when errors were
/// reported; callers must not emit from it if `diags.has_errors()`.
pub fn resolve_spec(
    decl: &syntax::SpecDecl,
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> ir::Spec {
    let mut cx = Resolver {
        sources,
        diags,
        broken_entities: std::collections::BTreeSet::new(),
        untyped: Vec::new(),
        leads: IndexMap::new(),
    };
    cx.resolve(decl)
}

pub(crate) struct Resolver<'a> {
    pub(crate) sources: &'a SourceMap,
    pub(crate) diags: &'a mut Diagnostics,
    /// Entities whose key templates had errors: access patterns are not
    /// matched against them, so one typo is reported once, not again at
    /// every access pattern that reads the entity.
    pub(crate) broken_entities: std::collections::BTreeSet<String>,
    /// The names of attributes whose type had an error (they resolve as
    /// untyped maps): no rule about their type reports them again.
    pub(crate) untyped: Vec<crate::source::Span>,
    /// The entities' partition keys on each index, grouped for matching
    /// access patterns (built on first use, once the entities are resolved).
    pub(crate) leads: IndexMap<ir::IndexRef, unify::Leads>,
}

/// The greatest value of each kind of number in a spec. Every number is
/// bounded where it is read, with a diagnostic on its span, so that no later
/// arithmetic (sizes, capacity, cost) can overflow whatever the spec says.
pub(crate) mod bounds {
    /// Lengths and sizes in bytes: DynamoDB's item size limit.
    pub const ITEM_BYTES: u64 = 400 * 1024;
    /// Digits after the point of a decimal: DynamoDB numbers have 38 digits.
    pub const DECIMAL_SCALE: u32 = 38;
    /// Capacity units and declared throughput per second.
    pub const UNITS_PER_SECOND: u64 = 1_000_000_000;
    /// Calls per second of an access pattern.
    pub const CALLS_PER_SECOND: f64 = 1e9;
    /// Items per call of an access pattern.
    pub const ITEMS_PER_CALL: u64 = 1_000_000;
    /// Write shards of one entity (each a partition a query reads).
    pub const SHARDS: u32 = 10_000;
    /// Levels of nested lists: DynamoDB nests documents 32 levels deep.
    pub const NESTING: usize = 32;
}

impl Resolver<'_> {
    pub(crate) fn error(&mut self, diagnostic: Diagnostic) {
        self.diags.push(diagnostic);
    }

    /// `value`, reported and clamped when it is over `max`.
    pub(crate) fn at_most<T: Copy + PartialOrd + std::fmt::Display>(
        &mut self,
        value: &Spanned<T>,
        max: T,
        what: &str,
        why: &str,
    ) -> T {
        if value.value > max {
            self.error(
                Diagnostic::new(
                    Code::InvalidBounds,
                    format!("{what} {} is over the greatest allowed, {max}", value.value),
                )
                .label(value.span, what.to_owned())
                .help(format!("{why}: write a value up to {max}")),
            );
            return max;
        }
        value.value
    }

    fn resolve(&mut self, decl: &syntax::SpecDecl) -> ir::Spec {
        if decl.version.value != 1 {
            self.error(
                Diagnostic::new(
                    Code::UnsupportedVersion,
                    format!("spec version {} is not supported", decl.version.value),
                )
                .label(decl.version.span, "this version")
                .help("write `version: 1`"),
            );
        }
        let table = self.resolve_table(&decl.table);
        let tenant = decl.tenant.as_ref().map(|t| self.resolve_tenant(t));
        let indexes = self.resolve_indexes(&decl.indexes, &table);
        let mut spec = ir::Spec {
            description: text(&decl.description),
            table,
            tenant,
            indexes,
            entities: IndexMap::new(),
            access_patterns: IndexMap::new(),
            roles: IndexMap::new(),
            lints: self.resolve_lints(&decl.lints),
        };
        spec.entities = self.resolve_entities(&decl.entities, &spec);
        self.check_entity_type_values(&decl.table, &spec);
        spec.access_patterns = self.resolve_patterns(&decl.access_patterns, &spec);
        spec.roles = self.resolve_roles(&decl.roles, &decl.access_patterns);
        Self::derive_warm_throughput(&mut spec);
        spec
    }

    fn resolve_lints(
        &mut self,
        decls: &NamedMap<ir::LintLevel>,
    ) -> IndexMap<String, ir::LintLevel> {
        let mut out = IndexMap::new();
        for (name, level) in decls.iter() {
            let code = Code::ALL.iter().find(|c| c.name() == name.value);
            match code {
                Some(code) if code.default_severity() != crate::diagnostics::Severity::Error => {
                    out.insert(name.value.clone(), level.value);
                }
                Some(_) => self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`{name}` is an error and cannot be allowed"),
                    )
                    .label(name.span, "this lint")
                    .help("only warnings and notes have levels; fix the error instead"),
                ),
                None => {
                    let names = Code::ALL
                        .iter()
                        .filter(|c| c.default_severity() != crate::diagnostics::Severity::Error)
                        .map(|c| c.name());
                    let mut d =
                        Diagnostic::new(Code::InvalidValue, format!("no lint is named `{name}`"))
                            .label(name.span, "unknown lint");
                    d = d.help(match did_you_mean(name, names) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => "see docs/diagnostics.md for the lint names".to_owned(),
                    });
                    self.error(d);
                }
            }
        }
        out
    }

    fn resolve_table(&mut self, decl: &Spanned<syntax::TableDecl>) -> ir::Table {
        self.check_table_name(&decl.name, "table");
        let partition_key = self.table_key(&decl.partition_key, "partition");
        let sort_key = decl.sort_key.as_ref().map(|k| self.table_key(k, "sort"));
        let billing = decl.billing.as_ref().map_or(
            ir::Billing {
                mode: ir::BillingMode::OnDemand,
                read_capacity: None,
                write_capacity: None,
            },
            |b| self.resolve_billing(b),
        );
        let entity_type = self.resolve_entity_type(decl);
        let names = [
            Some(&partition_key.name),
            sort_key.as_ref().map(|k| &k.name),
            entity_type.attribute(),
        ];
        self.check_distinct(names.into_iter().flatten(), "table key attribute");
        let settings = self.resolve_settings(decl, billing.mode);
        ir::Table {
            name: decl.name.clone(),
            description: text(&decl.description),
            partition_key,
            sort_key,
            ttl: decl.ttl.clone(),
            billing,
            stream: decl.stream.as_ref().map(|s| s.value),
            entity_type,
            protection: ir::Protection {
                deletion_protection: decl.deletion_protection.as_ref().is_none_or(|p| p.value),
                deletion_policy: decl
                    .deletion_policy
                    .as_ref()
                    .map_or_else(Default::default, |p| p.value),
                update_replace_policy: decl
                    .update_replace_policy
                    .as_ref()
                    .map_or_else(Default::default, |p| p.value),
            },
            settings,
        }
    }

    /// `entity_type: keys`, `entity_type: { attribute, values }`, or the
    /// short `entity_type_attribute: name` (default `entity_type`). The
    /// values map is checked against the entities once they are resolved
    /// ([`Resolver::check_entity_type_values`]).
    fn resolve_entity_type(&mut self, decl: &syntax::TableDecl) -> ir::EntityType {
        if let (Some(short), Some(long)) = (&decl.entity_type_attribute, &decl.entity_type) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "`entity_type_attribute` and `entity_type` both say how entities are told",
                )
                .label(short.span, "short form")
                .label(long.span, "long form")
                .help(
                    "keep one: `entity_type_attribute: kind` is `entity_type: { attribute: kind }`",
                ),
            );
        }
        let attribute = |name: Spanned<String>, values: IndexMap<String, String>| {
            ir::EntityType::Attribute { name, values }
        };
        let Some(decl_type) = &decl.entity_type else {
            let name = decl
                .entity_type_attribute
                .clone()
                .unwrap_or_else(|| Spanned::dummy(DEFAULT_ENTITY_TYPE_ATTRIBUTE.to_owned()));
            self.check_stored_name(&name, false);
            return attribute(name, IndexMap::new());
        };
        match (&decl_type.by, &decl_type.attribute) {
            (_, Some(name)) => {
                // A name in the table, as `stored_as` is: `__edb_e__` too.
                self.check_stored_name(name, false);
                let values = decl_type
                    .values
                    .iter()
                    .map(|(entity, value)| (entity.value.clone(), value.value.clone()))
                    .collect();
                attribute(name.clone(), values)
            }
            (Some(by), None) if by.value == "keys" => ir::EntityType::Keys,
            (by, None) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!(
                            "unknown entity type rule `{}`",
                            by.as_ref().map_or("", |b| b.value.as_str())
                        ),
                    )
                    .label(decl_type.span, "not an entity type rule")
                    .help("write `keys` (the primary key tells the entity) or `{ attribute: kind, values: { Order: order } }`"),
                );
                ir::EntityType::Keys
            }
        }
    }

    /// Every entity named in `entity_type.values` exists, and no two
    /// entities store the same value.
    fn check_entity_type_values(&mut self, decl: &syntax::TableDecl, spec: &ir::Spec) {
        let Some(decl_type) = &decl.entity_type else {
            return;
        };
        for (entity, value) in decl_type.values.iter() {
            if !spec.entities.contains_key(&entity.value) {
                let mut d = Diagnostic::new(
                    Code::UnknownEntity,
                    format!("no entity is named `{entity}`"),
                )
                .label(entity.span, "unknown entity");
                d = d.help(
                    match did_you_mean(entity, spec.entities.keys().map(String::as_str)) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => "name an entity declared under `entities:`".to_owned(),
                    },
                );
                self.error(d);
            }
            if value.value.is_empty() {
                self.error(
                    Diagnostic::new(Code::InvalidValue, "an entity type value cannot be empty")
                        .label(value.span, "empty value")
                        .help("give each entity a non-empty value"),
                );
            }
        }
        let mut seen: IndexMap<&str, &str> = IndexMap::new();
        for entity in spec.entities.keys() {
            let value = spec.table.entity_type.value_of(entity);
            if let Some(first) = seen.insert(value, entity) {
                let span = decl_type
                    .values
                    .get(entity)
                    .or_else(|| decl_type.values.get(first))
                    .map_or(decl_type.span, |v| v.span);
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!("entities `{first}` and `{entity}` store the same entity type value `{value}`"),
                    )
                    .label(span, "this value")
                    .help("give each entity its own value: reads tell items apart by it"),
                );
            }
        }
    }

    /// A key attribute of the table: exactly one attribute (DynamoDB takes
    /// one partition key attribute and at most one sort key attribute for a
    /// table; multi-attribute keys are for global secondary indexes).
    fn table_key(
        &mut self,
        decl: &Spanned<syntax::de::Parts<syntax::KeyAttributeDecl>>,
        which: &str,
    ) -> ir::KeyAttribute {
        if decl.len() != 1 {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("the table's {which} key lists {} attributes", decl.len()),
                )
                .label(decl.span, "these attributes")
                .help(format!("a table's {which} key is one attribute: DynamoDB takes multi-attribute keys for global secondary indexes only (declare one under `indexes:`)")),
            );
        }
        match decl.first() {
            Some(first) => self.resolve_key_attribute(first),
            None => ir::KeyAttribute {
                name: Spanned::new(String::new(), decl.span),
                r#type: ir::KeyType::String,
            },
        }
    }

    fn resolve_key_attribute(
        &mut self,
        decl: &Spanned<syntax::KeyAttributeDecl>,
    ) -> ir::KeyAttribute {
        let name = or_span(&decl.name, decl.span);
        self.check_key_attribute_name(&name);
        ir::KeyAttribute {
            name,
            r#type: decl
                .r#type
                .as_ref()
                .map_or(ir::KeyType::String, |t| t.value),
        }
    }

    fn resolve_billing(&mut self, decl: &Spanned<syntax::BillingDecl>) -> ir::Billing {
        let mode = decl.mode.value;
        if mode == syntax::BillingMode::Unknown {
            self.error(
                Diagnostic::new(Code::InvalidValue, "unknown billing mode")
                    .label(decl.span, "not a billing mode")
                    .help("write `on_demand` or `provisioned`"),
            );
        }
        let provisioned = mode == syntax::BillingMode::Provisioned;
        if provisioned && (decl.read_capacity.is_none() || decl.write_capacity.is_none()) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "provisioned billing needs read and write capacity",
                )
                .label(decl.span, "billing declared here")
                .help(
                    "write `billing: { mode: provisioned, read_capacity: 5, write_capacity: 5 }`",
                ),
            );
        }
        if !provisioned && (decl.read_capacity.is_some() || decl.write_capacity.is_some()) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "capacity is only set for provisioned billing",
                )
                .label(decl.span, "on-demand billing")
                .help("remove read_capacity and write_capacity, or use `mode: provisioned`"),
            );
        }
        ir::Billing {
            mode,
            read_capacity: self.capacity(&decl.read_capacity),
            write_capacity: self.capacity(&decl.write_capacity),
        }
    }

    fn capacity(&mut self, units: &Option<Spanned<u64>>) -> Option<u64> {
        units.as_ref().map(|u| {
            if u.value == 0 {
                self.error(
                    Diagnostic::new(Code::InvalidBounds, "capacity is 0")
                        .label(u.span, "capacity")
                        .help("DynamoDB provisions at least 1 unit per second: write 1 or more"),
                );
            }
            self.at_most(
                u,
                bounds::UNITS_PER_SECOND,
                "capacity",
                "capacity units per second beyond any table's quota",
            )
        })
    }

    fn resolve_tenant(&mut self, decl: &Spanned<syntax::TenantDecl>) -> ir::Tenant {
        let placeholder = decl
            .placeholder
            .clone()
            .unwrap_or_else(|| Spanned::new(DEFAULT_TENANT_PLACEHOLDER.to_owned(), decl.span));
        if !is_identifier(&placeholder) {
            self.error(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("`{placeholder}` is not a valid placeholder name"),
                )
                .label(placeholder.span, "tenant placeholder")
                .help("use letters, digits and `_`, starting with a letter"),
            );
        }
        let id_pattern = decl
            .id_pattern
            .clone()
            .unwrap_or_else(|| Spanned::new(DEFAULT_TENANT_PATTERN.to_owned(), decl.span));
        let info = match crate::alphabet::analyze(&id_pattern) {
            Ok(info) => info,
            Err(message) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidPattern,
                        format!("tenant id_pattern does not parse: {message}"),
                    )
                    .label(id_pattern.span, "this regular expression")
                    .help("write a regular expression such as `^[A-Za-z0-9_]{1,64}$`"),
                );
                crate::alphabet::PatternInfo {
                    alphabet: ir::CharSet::any(),
                    min_length: 0,
                    max_length: None,
                }
            }
        };
        let principal_tag = decl
            .principal_tag
            .clone()
            .unwrap_or_else(|| Spanned::new(DEFAULT_PRINCIPAL_TAG.to_owned(), decl.span));
        let tag_ok = (1..=128).contains(&principal_tag.len())
            && principal_tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.:/=+-@".contains(c));
        if !tag_ok {
            self.error(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("`{principal_tag}` is not a valid IAM principal tag key"),
                )
                .label(principal_tag.span, "principal tag")
                .help("use 1 to 128 letters, digits or `_.:/=+-@`, e.g. `TenantId`"),
            );
        }
        ir::Tenant {
            placeholder,
            id_pattern,
            alphabet: info.alphabet,
            min_length: info.min_length,
            max_length: info.max_length,
            principal_tag,
        }
    }

    /// DynamoDB table and index names: 3–255 of `[A-Za-z0-9_.-]`.
    fn check_table_name(&mut self, name: &Spanned<String>, what: &str) {
        let ok = (3..=255).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if !ok {
            self.error(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("`{name}` is not a valid DynamoDB {what} name"),
                )
                .label(name.span, format!("{what} name"))
                .help("use 3 to 255 letters, digits, `_`, `.` or `-`"),
            );
        }
    }

    /// Attribute names become Rust fields and expression names: identifiers, at most 255 bytes.
    pub(crate) fn check_attribute_name(&mut self, name: &Spanned<String>) {
        if name.starts_with("__") {
            self.error(
                Diagnostic::new(
                    Code::InvalidName,
                    format!(
                        "`{name}` begins with `__`, which generated code keeps for its own names"
                    ),
                )
                .label(name.span, "attribute name")
                .help("rename the attribute so it does not begin with `__`"),
            );
            return;
        }
        if !is_identifier(name) || name.len() > 255 {
            self.error(
                Diagnostic::new(Code::InvalidName, format!("`{name}` is not a valid attribute name"))
                    .label(name.span, "attribute name")
                    .help("use letters, digits and `_`, starting with a letter or `_` (at most 255 bytes)"),
            );
        }
    }

    /// Key attribute names only appear in requests as strings (behind
    /// `#pk`-style expression names) and never become Rust fields, so every
    /// name DynamoDB accepts for a key attribute is allowed, such as
    /// `GSI1-PK` or `Status#Time`: 1 to 255 bytes.
    fn check_key_attribute_name(&mut self, name: &Spanned<String>) {
        if !(1..=255).contains(&name.len()) {
            self.error(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("`{name}` is not a valid key attribute name"),
                )
                .label(name.span, "key attribute name")
                .help("a key attribute's name is 1 to 255 bytes"),
            );
        }
    }

    fn check_distinct<'n>(&mut self, names: impl Iterator<Item = &'n Spanned<String>>, what: &str) {
        let mut seen: Vec<&Spanned<String>> = Vec::new();
        for name in names {
            if let Some(first) = seen.iter().find(|s| s.value == name.value) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!("two {what}s are named `{name}`"),
                    )
                    .label(name.span, "second use")
                    .label(first.span, "first use")
                    .help("give each its own name"),
                );
            } else {
                seen.push(name);
            }
        }
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn text(s: &Option<Spanned<String>>) -> Option<String> {
    s.as_ref().map(|s| s.value.clone())
}

/// A shorthand value gets the span of its whole node.
pub(crate) fn or_span(value: &Spanned<String>, outer: Span) -> Spanned<String> {
    if value.span.is_dummy() {
        Spanned::new(value.value.clone(), outer)
    } else {
        value.clone()
    }
}

//! The list of diagnostic codes. Codes are stable: a code, once released,
//! keeps its name and meaning. Each is documented in `docs/diagnostics.md`.

use std::fmt;

use super::Severity;

macro_rules! codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, $severity:ident; )*) => {
        /// A stable diagnostic code, printed as `singletable::<name>`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The name after `singletable::`.
            pub fn name(self) -> &'static str {
                match self { $( Code::$variant => $name, )* }
            }

            /// The severity a diagnostic with this code has unless a rule says otherwise.
            pub fn default_severity(self) -> Severity {
                match self { $( Code::$variant => Severity::$severity, )* }
            }

            /// The one-line description from the code list.
            pub fn description(self) -> &'static str {
                match self { $( Code::$variant => concat!($($doc),*).trim_ascii(), )* }
            }
        }
    };
}

codes! {
    // ---- reading the file -------------------------------------------------
    /// The spec file could not be read.
    Io = "io", Error;
    /// The file is not well-formed YAML, or a value has the wrong YAML shape.
    YamlSyntax = "yaml_syntax", Error;
    /// A mapping has a key the spec format does not know.
    UnknownField = "unknown_field", Error;
    /// A value has the wrong type, or is not one of the allowed words.
    InvalidValue = "invalid_value", Error;
    /// A mapping key appears twice.
    DuplicateKey = "duplicate_key", Error;
    /// `version` is not a version this compiler reads.
    UnsupportedVersion = "unsupported_version", Error;

    // ---- the lock ------------------------------------------------------------
    /// The design differs from the one `singletable.lock` records, by a change it has not accepted.
    UnacceptedChange = "unaccepted_change", Error;
    /// The design differs from the lock by a compatible change it does not record yet.
    UnrecordedChange = "unrecorded_change", Warning;

    // ---- names and references ---------------------------------------------
    /// A table, index, entity, attribute or access-pattern name is not valid.
    InvalidName = "invalid_name", Error;
    /// Two things in one namespace have the same name.
    DuplicateName = "duplicate_name", Error;
    /// An attribute uses a name reserved for keys or the entity-type marker.
    ReservedName = "reserved_name", Error;
    /// Two spec names become the same name in the generated Rust code.
    GeneratedNameClash = "generated_name_clash", Error;
    /// A reference names an entity that is not declared.
    UnknownEntity = "unknown_entity", Error;
    /// A reference names an index that is not declared.
    UnknownIndex = "unknown_index", Error;
    /// A reference names an attribute the entity does not have.
    UnknownAttribute = "unknown_attribute", Error;
    /// A role names an access pattern that is not declared.
    UnknownAccessPattern = "unknown_access_pattern", Error;

    // ---- attributes ---------------------------------------------------------
    /// An attribute type name is not one of the spec's types.
    UnknownType = "unknown_type", Error;
    /// An option does not apply to the attribute's type, or is missing.
    InvalidAttribute = "invalid_attribute", Error;
    /// Bounds are contradictory (`min` above `max`, an empty enum, ...).
    InvalidBounds = "invalid_bounds", Error;
    /// A regular expression (tenant `id_pattern`, string `pattern`) does not parse.
    InvalidPattern = "invalid_pattern", Error;

    // ---- key templates ------------------------------------------------------
    /// A key template is malformed (unclosed `<`, empty placeholder, ...).
    TemplateSyntax = "template_syntax", Error;
    /// A placeholder names neither an attribute, the tenant nor the shard.
    UnknownPlaceholder = "unknown_placeholder", Error;
    /// A template uses the tenant placeholder but the spec declares no `tenant`.
    TenantUndeclared = "tenant_undeclared", Error;
    /// A placeholder is bound to an attribute whose type cannot be part of a key.
    PlaceholderType = "placeholder_type", Error;
    /// An optional attribute is a placeholder in the table's primary key.
    OptionalInPrimaryKey = "optional_in_primary_key", Error;
    /// An entity lacks a key the table requires, or has one the table lacks.
    MissingKey = "missing_key", Error;
    /// A key attribute would hold two values: an index key attribute named like an entity attribute but written with another value, or one key attribute written by two different templates.
    KeyAttributeConflict = "key_attribute_conflict", Error;
    /// Shards are declared without a `<shard>` placeholder, or the reverse.
    ShardPlaceholder = "shard_placeholder", Error;
    /// An index's keys are not ones DynamoDB takes, or an entity's index keys do not fit the index: a partition key template for a local index, a local index on a table without a sort key, a multi-attribute key on a local index, more than four attributes, an attribute named twice, or a template count that differs from the key's attributes.
    InvalidIndexKey = "invalid_index_key", Error;

    // ---- access patterns ----------------------------------------------------
    /// An access pattern declares no operation, or more than one.
    AmbiguousOperation = "ambiguous_operation", Error;
    /// An access pattern's key does not match the key templates of the entities it returns.
    PatternMismatch = "pattern_mismatch", Error;
    /// A literal in an access pattern key is not a valid value of the attribute it fills.
    InvalidLiteral = "invalid_literal", Error;
    /// A sort-key condition is given for an index without a sort key.
    NoSortKey = "no_sort_key", Error;
    /// A query on a multi-attribute index key does not bind it as DynamoDB requires: every partition key attribute by equality, sort key attributes from the first with no gap, a range or prefix only on the last one named.
    MultiAttributeCondition = "multi_attribute_condition", Error;

    // ---- tenant isolation (check) -------------------------------------------
    /// A partition key template of a tenant-scoped entity does not begin with the tenant.
    TenantPrefixMissing = "tenant_prefix_missing", Error;
    /// An access pattern over tenant-scoped data does not bind the tenant in its partition key.
    PatternTenantUnbound = "pattern_tenant_unbound", Error;
    /// The character after the tenant is not a delimiter tenant ids (and IAM tags) cannot contain.
    TenantPrefixUnsafe = "tenant_prefix_unsafe", Error;
    /// The tenant id pattern allows empty ids or IAM wildcard characters.
    TenantIdUnsafe = "tenant_id_unsafe", Error;
    /// The IAM patterns granted to tenant roles, taken together, reach another tenant's keys.
    TenantPolicyOverlap = "tenant_policy_overlap", Error;
    /// The IAM patterns granted to tenant roles reach the keys of a global entity.
    TenantPolicyGlobal = "tenant_policy_global", Error;
    /// IAM cannot stop a write whose index key names another tenant.
    GsiWriteIsolation = "gsi_write_isolation", Warning;
    /// Entities declared global are exempt from tenant checks.
    GlobalEntities = "global_entities", Note;
    /// Global entities are read from an index (or a table scan) that any
    /// tenant can write items into.
    GlobalReadTenantWritable = "global_read_tenant_writable", Warning;
    /// The counter items of an aggregate the stream keeps share their
    /// partitions with another entity's, so IAM cannot deny tenants writes to them.
    DerivedDataTenantWritable = "derived_data_tenant_writable", Warning;
    /// A declared transaction or batch writes the counter of an aggregate the stream keeps.
    DerivedWrite = "derived_write", Error;
    /// A role of a multi-tenant spec lists an access pattern over keys that do not start with the tenant.
    RoleNotTenantScoped = "role_not_tenant_scoped", Error;

    // ---- key soundness (check) ----------------------------------------------
    /// A placeholder's values can contain a delimiter of its template.
    DelimiterInjection = "delimiter_injection", Error;
    /// Two placeholders follow each other with nothing to tell where one ends.
    AmbiguousTemplate = "ambiguous_template", Error;
    /// Two entities can produce the same primary key.
    KeyCollision = "key_collision", Error;
    /// A query can return items of an entity it does not declare.
    KeySpaceOverlap = "key_space_overlap", Error;
    /// A range condition runs over values whose text order is not their value order.
    SortOrder = "sort_order", Warning;
    /// A key `case` writes two values of an attribute into one key: they
    /// differ only in letter case, so their items share the key.
    KeyCaseFolds = "key_case_folds", Warning;
    /// A range's bounds give a later key part a range of its own, which
    /// only cuts the first and last value of the part before it.
    RangeOverParts = "range_over_parts", Warning;
    /// A `begins_with` prefix ends in a value, so `p1` also matches `p10`.
    PrefixNotDelimited = "prefix_not_delimited", Warning;
    /// An index does not carry every attribute of an entity its queries return.
    IndexProjection = "index_projection", Error;

    // ---- access patterns (check) --------------------------------------------
    /// No access pattern queries this index.
    UnusedIndex = "unused_index", Warning;
    /// No access pattern reads or writes this entity.
    UnusedEntity = "unused_entity", Warning;
    /// A `get` of a randomly sharded entity cannot know the shard.
    ShardedGet = "sharded_get", Error;
    /// A query reads every shard in one partition (`<shard>` only in its
    /// sort-key condition) with overlapping ranges: an item would be
    /// returned once per shard.
    ShardRangeOverlap = "shard_range_overlap", Error;
    /// A query reads every shard of more than the runtime reads at once:
    /// one request per shard, in several rounds.
    QueryFanOut = "query_fan_out", Warning;
    /// A query's filter is applied after its key condition read the items:
    /// every item read is billed, kept or not.
    FilterAmplification = "filter_amplification", Warning;
    /// A scan reads, and bills, every item of its table or index; IAM
    /// cannot confine the role that runs it to some of them.
    ScanPattern = "scan_pattern", Warning;
    /// A scan of a tenant-scoped entity would read every tenant's items.
    TenantScan = "tenant_scan", Error;

    // ---- limits, capacity, cost (check) -------------------------------------
    /// More than 20 global or 5 local secondary indexes.
    TooManyIndexes = "too_many_indexes", Error;
    /// The worst-case key exceeds DynamoDB's key size limit.
    KeyTooLarge = "key_too_large", Error;
    /// A key placeholder has no length bound, so the key size cannot be proven.
    KeySizeUnbounded = "key_size_unbounded", Warning;
    /// The worst-case item exceeds 400 KB.
    ItemTooLarge = "item_too_large", Error;
    /// The typical item is over 1 KB, so each write costs more than one write unit.
    ItemOverOneKb = "item_over_one_kb", Note;
    /// The TTL attribute is not a Number of epoch seconds.
    TtlAttribute = "ttl_attribute", Error;
    /// The table has a TTL attribute that no entity declares.
    TtlUnused = "ttl_unused", Warning;
    /// A transaction may carry more than 100 items.
    TransactionLimit = "transaction_limit", Error;
    /// A transaction mixes tenant-scoped and global entities.
    TransactionScope = "transaction_scope", Warning;
    /// The shard count cannot carry the declared throughput.
    ShardCapacity = "shard_capacity", Error;
    /// A declared rate exceeds what one partition serves, and the key keeps it in one partition.
    HotPartition = "hot_partition", Error;
    /// The declared rates need more request units than the table's on-demand maximum throughput.
    MaxThroughputBelowRates = "max_throughput_below_rates", Error;
    /// An index partition key has few distinct values under a declared write rate.
    LowCardinalityIndex = "low_cardinality_index", Warning;
    /// A strongly consistent global table has a feature DynamoDB's multi-Region strong consistency does not support: transactions, TTL, local indexes.
    StrongConsistencyUnsupported = "strong_consistency_unsupported", Error;
    /// The resource-based policy denies, to every caller and without a condition, an action the design's access patterns or entity operations need.
    ResourcePolicyDeniesAccess = "resource_policy_denies_access", Error;
    /// Warm throughput declared below what the declared rates need.
    WarmThroughputBelowRates = "warm_throughput_below_rates", Warning;
    /// A global index's key templates only concatenate attributes the entity stores: a multi-attribute key of those attributes would need no synthetic attribute.
    NativeKey = "native_key", Note;

    // ---- IAM policies (check) -----------------------------------------------
    /// A generated IAM policy exceeds the 6,144-character managed-policy limit (whitespace excluded).
    PolicyTooLarge = "policy_too_large", Error;
    /// A session policy for the longest tenant id exceeds the 2,048-character STS limit.
    SessionPolicyTooLarge = "session_policy_too_large", Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "singletable::{}", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_snake_case() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        assert!(names
            .iter()
            .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
    }

    #[test]
    fn every_code_has_a_description() {
        for code in Code::ALL {
            assert!(!code.description().is_empty(), "{code}");
        }
    }
}

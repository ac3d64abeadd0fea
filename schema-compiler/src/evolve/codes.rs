//! The kinds of design change `singletable diff` reports, each with a
//! stable code, its default class and the order to deploy it in. Codes are
//! printed `singletable::evolve::<name>` and listed in `docs/evolution.md`.

use std::fmt;

use serde::Serialize;

/// Who a change breaks, and what it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// No stored item changes meaning, every access pattern finds the same
    /// items, and old and new code can run together.
    Compatible,
    /// Stored items must be rewritten, or proven to meet the new design
    /// (a verify job); the affected access patterns wait for the job.
    Backfill,
    /// Stored items become unfindable or unreadable, or the table must be
    /// replaced: a multi-phase plan and a new generation.
    Breaking,
    /// No stored data changes, but the generated Rust API or the IAM
    /// policies change incompatibly for their users.
    Clients,
}

impl Class {
    /// The class's name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Compatible => "compatible",
            Class::Backfill => "backfill",
            Class::Breaking => "breaking",
            Class::Clients => "clients",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to deploy first (Confluent's "upgrade first").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeployOrder {
    /// Either order.
    Any,
    /// Readers first: old readers must understand what new writers write.
    Readers,
    /// Writers first: items must be written in the new form before they
    /// are read that way.
    Writers,
    /// The table's infrastructure first (an index, a TTL setting).
    Infrastructure,
}

impl DeployOrder {
    /// The order's name.
    pub fn name(self) -> &'static str {
        match self {
            DeployOrder::Any => "any",
            DeployOrder::Readers => "readers",
            DeployOrder::Writers => "writers",
            DeployOrder::Infrastructure => "infrastructure",
        }
    }
}

macro_rules! change_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, $class:ident, $order:ident, $row:literal; )*) => {
        /// A stable code of a kind of design change.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum ChangeCode {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl ChangeCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ChangeCode] = &[ $( ChangeCode::$variant, )* ];

            /// The name after `singletable::evolve::`.
            pub fn name(self) -> &'static str {
                match self { $( ChangeCode::$variant => $name, )* }
            }

            /// The class a change of this kind has unless the diff finds
            /// otherwise (a witness that decodes lowers it).
            pub fn default_class(self) -> Class {
                match self { $( ChangeCode::$variant => Class::$class, )* }
            }

            /// What to deploy first.
            pub fn deploy_order(self) -> DeployOrder {
                match self { $( ChangeCode::$variant => DeployOrder::$order, )* }
            }

            /// The row of the compatibility table in `docs/evolution.md`.
            pub fn row(self) -> &'static str {
                match self { $( ChangeCode::$variant => $row, )* }
            }

            /// The one-line description.
            pub fn description(self) -> &'static str {
                match self { $( ChangeCode::$variant => concat!($($doc),*).trim_ascii(), )* }
            }
        }
    };
}

change_codes! {
    // ---- attributes ---------------------------------------------------------
    /// An optional attribute was added: old items read it as absent.
    AttributeAddedOptional = "attribute_added_optional", Compatible, Any, "A1";
    /// A required attribute was added: old items lack it until a job fills it.
    AttributeAddedRequired = "attribute_added_required", Backfill, Writers, "A2";
    /// An attribute was removed: items keep the stored value; its field and setter go.
    AttributeRemoved = "attribute_removed", Clients, Readers, "A3";
    /// An attribute's spec name changed, its stored name did not: only the Rust API changes.
    AttributeRenamed = "attribute_renamed", Clients, Any, "A4";
    /// An attribute's stored name changed: old items hold the value under the old name.
    StoredNameChanged = "stored_name_changed", Backfill, Writers, "A5";
    /// An attribute's type now accepts every value it accepted (same DynamoDB type).
    TypeWidened = "type_widened", Compatible, Readers, "A6";
    /// An attribute's type accepts fewer values (same DynamoDB type): stored values may not fit.
    TypeNarrowed = "type_narrowed", Backfill, Readers, "A7";
    /// An attribute's stored DynamoDB type changed: old values no longer decode.
    StoredTypeChanged = "stored_type_changed", Breaking, Writers, "A8";
    /// An optional attribute became required: old items without it no longer decode.
    MadeRequired = "made_required", Backfill, Readers, "A9";
    /// A required attribute became optional: its field becomes an `Option`.
    MadeOptional = "made_optional", Clients, Readers, "A10";
    /// A bound was tightened (`max_length`, `max`, `min`, `pattern`, `scale`): stored values may break it.
    BoundTightened = "bound_tightened", Backfill, Readers, "A11";
    /// A bound was loosened: old readers refuse the new values.
    BoundLoosened = "bound_loosened", Compatible, Readers, "A12";
    /// An enum value was added: readers built before it read it as an unknown value.
    EnumValueAdded = "enum_value_added", Compatible, Readers, "A13";
    /// An enum value was removed: stored items holding it no longer decode.
    EnumValueRemoved = "enum_value_removed", Backfill, Writers, "A14";
    /// A required attribute gained a `default:`: stored items without it read the default instead of failing to decode.
    DefaultAdded = "default_added", Compatible, Any, "A15";
    /// A required attribute's `default:` changed or was removed: stored items without it read another value, or fail to decode.
    DefaultChanged = "default_changed", Backfill, Writers, "A16";

    // ---- entities -----------------------------------------------------------
    /// An entity was added.
    EntityAdded = "entity_added", Compatible, Any, "E1";
    /// An entity was removed: its items stay in the table, orphaned.
    EntityRemoved = "entity_removed", Breaking, Readers, "E2";
    /// The value of the entity-type attribute an entity's items carry changed.
    DiscriminatorChanged = "discriminator_changed", Backfill, Writers, "E3";
    /// An entity moved between tenant scope and global scope: its keys change.
    EntityScopeChanged = "entity_scope_changed", Breaking, Writers, "E5";
    /// Items are now told by an attribute instead of their keys, or the other way.
    EntityTypeModeChanged = "entity_type_mode_changed", Backfill, Writers, "E6";
    /// A version attribute was added: old items have no version yet.
    VersionAdded = "version_added", Backfill, Writers, "E8";
    /// The version attribute was removed.
    VersionRemoved = "version_removed", Compatible, Any, "E9";
    /// An aggregate was added or regrouped: its counts must be recomputed.
    AggregateChanged = "aggregate_changed", Backfill, Writers, "E10";
    /// A derived attribute was added or its template changed: stored items hold no value, or the old one, until a job writes it.
    DerivedChanged = "derived_changed", Backfill, Writers, "E11";

    // ---- keys ---------------------------------------------------------------
    /// An entity's table key template or an encoding in it changed: stored items sit at their old keys.
    TableKeyChanged = "table_key_changed", Breaking, Writers, "K1";
    /// An entity's index key template or an encoding in it changed: stored items carry the old index keys.
    IndexKeyChanged = "index_key_changed", Backfill, Writers, "K5";
    /// A string key placeholder's pattern was tightened: stored keys may hold values it refuses.
    KeyPatternTightened = "key_pattern_tightened", Backfill, Readers, "K6";

    // ---- indexes ------------------------------------------------------------
    /// A global index was added whose keys are attributes items already have: DynamoDB fills it.
    IndexAddedNatural = "index_added_natural", Compatible, Infrastructure, "I1";
    /// A global index was added with computed keys, or an entity newly writes into an index: old items are missing from it.
    IndexComputedKeysAdded = "index_computed_keys_added", Backfill, Writers, "I2";
    /// A local index was added, removed or changed: local indexes exist only from a table's creation.
    LocalIndexChanged = "local_index_changed", Breaking, Infrastructure, "I3";
    /// An entity no longer writes into an index: its old items keep stale index keys.
    EntityLeftIndex = "entity_left_index", Backfill, Writers, "I4";
    /// A global index was removed: its queries go, and callers with them.
    IndexRemoved = "index_removed", Clients, Readers, "I5";
    /// A global index's key attributes or types changed: DynamoDB cannot change them in place.
    IndexKeySchemaChanged = "index_key_schema_changed", Breaking, Infrastructure, "I6";
    /// An index's projection changed: the index is rebuilt, and partial types change.
    ProjectionChanged = "projection_changed", Clients, Infrastructure, "I7";

    // ---- sharding, TTL, tenant ----------------------------------------------
    /// An entity's write shards changed: items sit in shards the new count does not read.
    ShardingChanged = "sharding_changed", Breaking, Writers, "S1";
    /// More random write shards: reads scatter wider and still find every item.
    ShardsAdded = "shards_added", Compatible, Any, "S2";
    /// A TTL attribute was set where there was none: items holding it start to expire.
    TtlAdded = "ttl_added", Compatible, Infrastructure, "T1";
    /// The TTL attribute changed: one TTL per table, an hour between changes.
    TtlChanged = "ttl_changed", Backfill, Writers, "T2";
    /// The TTL was removed: reads stop hiding expired items.
    TtlRemoved = "ttl_removed", Compatible, Any, "T3";
    /// The tenant id pattern was tightened: some stored tenants may not validate.
    TenantPatternTightened = "tenant_pattern_tightened", Backfill, Readers, "N1";
    /// The tenant id pattern was loosened (the isolation proof was run again).
    TenantPatternLoosened = "tenant_pattern_loosened", Compatible, Readers, "N2";
    /// The principal tag the policies read changed: session tags must carry it first.
    PrincipalTagChanged = "principal_tag_changed", Clients, Infrastructure, "N3";

    // ---- access patterns and roles -------------------------------------------
    /// An access pattern was added.
    PatternAdded = "pattern_added", Compatible, Any, "P1";
    /// An access pattern was removed: its method goes, and the policies stop granting it.
    PatternRemoved = "pattern_removed", Clients, Readers, "P2";
    /// An access pattern's request changed: its method's signature or results change.
    PatternChanged = "pattern_changed", Clients, Readers, "P3";
    /// A role was added or granted more.
    RoleWidened = "role_widened", Compatible, Any, "R1";
    /// A role was removed or granted less: its callers get AccessDenied.
    RoleNarrowed = "role_narrowed", Clients, Readers, "R2";

    // ---- the table ------------------------------------------------------------
    /// The table was renamed: CloudFormation creates a new, empty table.
    TableRenamed = "table_renamed", Breaking, Infrastructure, "TB1";
    /// The table's key attributes changed: the table must be replaced.
    TableKeySchemaChanged = "table_key_schema_changed", Breaking, Infrastructure, "TB2";
    /// The stream's view changed: CloudFormation replaces the stream, and its consumers lose their place.
    StreamChanged = "stream_changed", Clients, Infrastructure, "TB3";
    /// Deletion protection was turned off, or a CloudFormation policy no longer retains the table: deleting or replacing the stack would delete the items.
    ProtectionLowered = "protection_lowered", Clients, Infrastructure, "TB4";
    /// Deletion protection was turned on, or a CloudFormation policy now keeps more.
    ProtectionRaised = "protection_raised", Compatible, Any, "TB5";
    /// The table becomes global or stops being global, or its consistency changes, or a strongly consistent table's replicas or witness change: what CloudFormation cannot apply to the deployed table in place.
    GlobalTableChanged = "global_table_changed", Breaking, Infrastructure, "TB6";
    /// An eventually consistent global table gains or loses a replica Region: applied in place; a removed replica's copy of the items is deleted.
    ReplicasChanged = "replicas_changed", Compatible, Infrastructure, "TB7";
    /// The table's warm throughput is lowered: DynamoDB never lowers it, and Terraform replaces the table to.
    WarmThroughputLowered = "warm_throughput_lowered", Breaking, Infrastructure, "TB8";

    // ---- the lock -------------------------------------------------------------
    /// A name or key prefix the lock reserves (an entity or attribute removed, a key moved) is used again: old items would be read as new ones.
    ReservedReused = "reserved_reused", Breaking, Writers, "L1";
}

impl fmt::Display for ChangeCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "singletable::evolve::{}", self.name())
    }
}

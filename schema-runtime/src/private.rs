//! What generated code calls, under one short name: a generated module
//! imports it as `use ::singletable_runtime::__private as __rt;` (the `__` prefix
//! is reserved in specs, so no generated name can clash with it).
//!
//! Not an API: its contents change with the generator, in any release.

pub use crate::__update_methods as update_methods;
pub use crate::codec::{ItemWriter, Store};
pub use crate::reader::{lit, until, width, Step, REST};
pub use crate::sdk::types::AttributeValue::{self, N, S};
#[cfg(feature = "serde")]
pub use crate::serde_support::adapt as serde_adapt;
#[cfg(feature = "serde")]
pub use crate::serde_support::Scale as SerdeScale;
pub use crate::{aggregate, codec, iam, migrate, schema, sdk};
pub use crate::{
    batch::batch_get_of, batch::batch_write_of, batch_get, batch_write, entity::decode_as,
    entity::decode_claimed, entity::decode_if, entity::decode_partial_as,
    entity::decode_partial_claimed, entity::Decoded, entity::IndexKeys, entity_type, optional,
    optional_with, required, required_with, transact_write,
};
pub use crate::{
    Attr, Blob, CancellationReason, Condition, DateTime, Decimal, DecodeError, DecodeProblem,
    Decoder, Entity, EntityKey, Error, Field, Identity, Item, KeyShape, PageTokens, Partial, Query,
    QueryRequest, Repository, RetryPolicy, Scan, ScanRequest, Shape, Slot, TenantId, TenantKeys,
    TenantRules, TimeFormat, TransactGet, TransactGetResult, ValueError,
};
#[cfg(feature = "serde")]
pub use ::serde;

/// Whether two strings are equal, in a `const` context (generated code
/// checks that an extern entity derives the entity it stands for).
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Single-item operations: what a generated repository's entity methods
/// call (the documented [`crate::Table`] wraps them).
pub mod ops {
    pub use crate::ops::*;
}

/// Reading placeholder values back out of stored keys.
pub mod reader {
    pub use crate::reader::*;
}

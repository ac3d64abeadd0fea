//! The migration jobs a change needs, as the diff plans them, the lock
//! records them and the generated module instantiates them.

use serde::{Deserialize, Serialize};

/// A migration job a change needs, generated for the new design.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Job {
    /// Writes the keys of `index` into every stored item of `entity`.
    BackfillIndexKeys {
        /// The entity.
        entity: String,
        /// The index.
        index: String,
    },
    /// Writes the derived attribute `attribute` (its stored name), as the
    /// design computes it, into every stored item of `entity`.
    BackfillDerived {
        /// The entity.
        entity: String,
        /// The derived attribute's name in the table.
        attribute: String,
    },
    /// Removes the keys of `index` from every stored item of `entity`.
    CleanupIndexKeys {
        /// The entity.
        entity: String,
        /// The index.
        index: String,
    },
    /// Reads every stored item of `entity` under the new rules and counts
    /// (and lists) the ones that break them; writes nothing.
    VerifyItems {
        /// The entity.
        entity: String,
    },
    /// Moves every stored item of `entity` from its old key to its new one,
    /// one transaction per item.
    Rekey {
        /// The entity.
        entity: String,
    },
    /// Moves the value of every stored item of `entity` from the stored
    /// attribute `from` to `to` (a changed stored name).
    MoveAttribute {
        /// The entity.
        entity: String,
        /// The stored name the old design wrote.
        from: String,
        /// The stored name the new design writes.
        to: String,
    },
    /// Sets `attribute` (its spec name) on every stored item of `entity`
    /// that lacks it: to `value` when the design decides it (a version
    /// attribute's first value), otherwise to what a function the user
    /// passes returns for the item (`migrations::fill_<entity>_<attribute>`).
    FillAttribute {
        /// The entity.
        entity: String,
        /// The attribute, by its spec name.
        attribute: String,
        /// The integer every item lacking it gets, when the design decides.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<i64>,
    },
    /// Rewrites the entity-type value stored items of `entity` hold from
    /// the old design's to the new one's.
    Remark {
        /// The entity.
        entity: String,
    },
    /// Deletes every stored item of `entity`, which the design removed, or
    /// the old counter items of a regrouped aggregate (as the old design
    /// tells them; never an item that is a current entity by its marker
    /// and keys).
    Purge {
        /// The removed entity, or the regrouped aggregate.
        entity: String,
    },
    /// Copies every item of table `from` into the design's table (a
    /// renamed table), each only where its key is free.
    CopyTable {
        /// The table the old design names.
        from: String,
    },
    /// Recounts aggregate `aggregate` from the items it counts, exactly,
    /// beside live counter updates: while it is pending, writes mark the
    /// items they count, and the job marks and counts the others, then
    /// sets each counter's count to its recount.
    Recount {
        /// The aggregate entity.
        aggregate: String,
        /// The recount's mark, unique in the spec's history (the items it
        /// counted hold it): set when the lock accepts the change.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mark: Option<String>,
    },
    /// Copies every stored item of `entity` out of table `from` into the
    /// design's table under its new keys (a renamed table whose key
    /// attributes changed), each only where its new key is free.
    CopyEntity {
        /// The entity.
        entity: String,
        /// The table the old design names.
        from: String,
    },
}

impl Job {
    /// The job's id: stable for the same change, so a lock entry and a
    /// control table agree on it.
    pub fn id(&self) -> String {
        let slug = |s: &str| crate::naming::snake(s).replace('_', "-");
        match self {
            Job::BackfillIndexKeys { entity, index } => {
                format!("backfill-{}-{}", slug(entity), slug(index))
            }
            Job::CleanupIndexKeys { entity, index } => {
                format!("cleanup-{}-{}", slug(entity), slug(index))
            }
            Job::BackfillDerived { entity, attribute } => {
                format!("derive-{}-{}", slug(entity), slug(attribute))
            }
            Job::VerifyItems { entity } => format!("verify-{}", slug(entity)),
            Job::Rekey { entity } => format!("rekey-{}", slug(entity)),
            Job::MoveAttribute { entity, to, .. } => {
                format!("move-{}-{}", slug(entity), slug(to))
            }
            Job::FillAttribute {
                entity, attribute, ..
            } => format!("fill-{}-{}", slug(entity), slug(attribute)),
            Job::Remark { entity } => format!("remark-{}", slug(entity)),
            Job::Purge { entity } => format!("purge-{}", slug(entity)),
            Job::CopyTable { from } => format!("copy-from-{}", slug(from)),
            Job::CopyEntity { entity, from } => {
                format!("copy-{}-from-{}", slug(entity), slug(from))
            }
            Job::Recount { aggregate, .. } => format!("recount-{}", slug(aggregate)),
        }
    }

    /// The entity the job works on, if it works on one.
    pub fn entity(&self) -> Option<&str> {
        match self {
            Job::BackfillIndexKeys { entity, .. }
            | Job::BackfillDerived { entity, .. }
            | Job::CleanupIndexKeys { entity, .. }
            | Job::VerifyItems { entity }
            | Job::Rekey { entity }
            | Job::MoveAttribute { entity, .. }
            | Job::FillAttribute { entity, .. }
            | Job::Remark { entity }
            | Job::Purge { entity }
            | Job::CopyEntity { entity, .. }
            | Job::Recount {
                aggregate: entity, ..
            } => Some(entity),
            Job::CopyTable { .. } => None,
        }
    }

    /// Whether the job tells the items it works on by the old design (a
    /// re-key, a re-mark, a purge, a copy that leaves removed entities
    /// behind): the lock keeps that design's source.
    pub fn reads_old_design(&self) -> bool {
        matches!(
            self,
            Job::Rekey { .. }
                | Job::Remark { .. }
                | Job::Purge { .. }
                | Job::CopyTable { .. }
                | Job::CopyEntity { .. }
        )
    }

    /// A recount's attributes: the mark counted items hold, in which
    /// attribute, and the shadow count its counter items hold while it is
    /// pending; `None` for other jobs and for a recount the lock has not
    /// accepted.
    pub fn recount_attributes(&self) -> Option<RecountAttributes> {
        match self {
            Job::Recount {
                aggregate,
                mark: Some(mark),
            } => Some(RecountAttributes {
                attribute: format!("__counted_{aggregate}"),
                mark: mark.clone(),
                shadow: format!("__recount_{mark}"),
            }),
            _ => None,
        }
    }

    /// Whether the job needs a value from the user to run (a required
    /// attribute the design cannot fill itself).
    pub fn needs_value(&self) -> bool {
        matches!(self, Job::FillAttribute { value: None, .. })
    }
}

/// The attributes of a pending recount (see [`Job::recount_attributes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecountAttributes {
    /// The attribute counted items hold the mark in: `__counted_<aggregate>`.
    pub attribute: String,
    /// The mark.
    pub mark: String,
    /// The counter items' shadow count: `__recount_<mark>`.
    pub shadow: String,
}

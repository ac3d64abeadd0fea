//! Workspace-level end-to-end tests: the repositories generated from every
//! spec in `schemas/` (by this crate's build script), and the servers they
//! run against.

pub mod capture;
pub mod dice;
pub mod dynamo_json;
pub mod extern_entities;
pub mod faults;
pub mod migration;
pub mod samples;
pub mod server;
pub mod soundness;
pub mod streams;
pub mod tables;

/// Whether `t` is the time of a write just made (within the last minute,
/// or a second ahead of this machine's clock): a timestamp the repository set.
pub fn close_to_now(t: singletable_runtime::DateTime) -> bool {
    let now = singletable_runtime::DateTime::from(std::time::SystemTime::now()).secs();
    (now - 60..=now + 1).contains(&t.secs())
}

/// Includes a generated module as a public module of this library, with
/// only the lints `include_generated!` allows for reasons of its own, and
/// not `dead_code`: every public item is exported here, so a private helper
/// the generated code never calls fails the build.
macro_rules! generated {
    ($name:ident) => {
        #[doc = concat!("The repository generated from `", stringify!($name), "`.")]
        #[allow(
            clippy::disallowed_types,
            clippy::too_many_arguments,
            clippy::wrong_self_convention,
            clippy::enum_variant_names
        )]
        pub mod $name {
            include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
        }
    };
}

/// The repositories generated from imported NoSQL Workbench models: the
/// real exports beside the repository and the examples of real export
/// shapes in `schema-compiler/tests/data/workbench` (see `build.rs`).
pub mod imported {
    include!(concat!(env!("OUT_DIR"), "/imported_modules.rs"));
}

/// The two designs of the evolution test (`tests/evolution/`): v1, and v2
/// with the migration jobs its lock holds pending.
pub mod evolution {
    /// The first design.
    #[allow(clippy::disallowed_types)]
    pub mod v1 {
        include!(concat!(env!("OUT_DIR"), "/evolution/v1.rs"));
    }
    /// The second design.
    #[allow(clippy::disallowed_types)]
    pub mod v2 {
        include!(concat!(env!("OUT_DIR"), "/evolution/v2.rs"));
    }
    /// The rewrite test's designs (`tests/evolution/rewrite/`): a renamed
    /// table, a moved attribute, filled attributes, a re-marked entity and
    /// a removed one.
    pub mod rewrite {
        /// The first design.
        #[allow(clippy::disallowed_types)]
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/evolution/rewrite/v1.rs"));
        }
        /// The second design, with the jobs its lock holds pending.
        #[allow(clippy::disallowed_types)]
        pub mod v2 {
            include!(concat!(env!("OUT_DIR"), "/evolution/rewrite/v2.rs"));
        }
    }
    /// The derive test's designs (`tests/evolution/derived/`): a derived
    /// attribute added and a derived constant changed over stored items.
    pub mod derived {
        /// The first design.
        #[allow(clippy::disallowed_types)]
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/evolution/derived/v1.rs"));
        }
        /// The second design, with the jobs its lock holds pending.
        #[allow(clippy::disallowed_types)]
        pub mod v2 {
            include!(concat!(env!("OUT_DIR"), "/evolution/derived/v2.rs"));
        }
    }
    /// The recount test's designs (`tests/evolution/recount/`): two
    /// aggregates added over stored items, one kept in transactions, one
    /// from the stream.
    pub mod recount {
        /// The first design.
        #[allow(clippy::disallowed_types)]
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/evolution/recount/v1.rs"));
        }
        /// The second design, with the recounts its lock holds pending.
        #[allow(clippy::disallowed_types)]
        pub mod v2 {
            include!(concat!(env!("OUT_DIR"), "/evolution/recount/v2.rs"));
        }
    }
    /// The regroup test's designs (`tests/evolution/regroup/`): an
    /// aggregate counted per other groups.
    pub mod regroup {
        /// The first design.
        #[allow(clippy::disallowed_types)]
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/evolution/regroup/v1.rs"));
        }
        /// The second design, with its recount and purge pending.
        #[allow(clippy::disallowed_types)]
        pub mod v2 {
            include!(concat!(env!("OUT_DIR"), "/evolution/regroup/v2.rs"));
        }
    }
    /// The re-keyed copy test's designs (`tests/evolution/rekeyed/`): a
    /// renamed table whose key attributes changed.
    pub mod rekeyed {
        /// The first design.
        #[allow(clippy::disallowed_types)]
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/evolution/rekeyed/v1.rs"));
        }
        /// The second design, with the copy jobs its lock holds pending.
        #[allow(clippy::disallowed_types)]
        pub mod v2 {
            include!(concat!(env!("OUT_DIR"), "/evolution/rekeyed/v2.rs"));
        }
    }
}

/// The generated repositories, one module per spec.
pub mod generated {
    generated!(read_transactions);
    generated!(electrodb_task_app);
    generated!(index_membership_by_flag);
    generated!(derived_attributes);
    generated!(contest_votes);
    generated!(inverted_role_index);
    generated!(iot_device_reports);
    generated!(monthly_activity);
    generated!(photo_site);
    generated!(pooled_product_catalog);
    generated!(project_task_comment);
    generated!(saas_tenant_users_orders);
    generated!(shopping_cart);
    generated!(short_lived_messages);
    generated!(support_ticket);
    generated!(vertical_partitioning);
    generated!(work_queue);
    generated!(range_returns_what_sorts_between);
    generated!(index_membership_by_attributes);
    generated!(attribute_named_like_update_internals);
    generated!(patterns_named_like_repository_internals);
    generated!(range_over_decimal_number_key);
    generated!(global_reads_refuse_forged_items);
    generated!(global_roles);
    generated!(user_names_like_generated_locals);
    generated!(private_helpers_cannot_clash);
    generated!(names_like_entity_conveniences);
    generated!(delimiters_that_forge_nothing);
    generated!(attribute_defaults);
    generated!(input_types);
    generated!(existing_table_natural_keys);
    generated!(existing_table_key_shapes);
    generated!(existing_table_discriminator);
    generated!(existing_table_binary_keys);
    generated!(index_key_of_two_attributes);
    generated!(typed_maps);
    generated!(declared_bounds);
    generated!(sequence_numbers);
    generated!(partial_reads);
    generated!(filtered_queries);
    generated!(scans);
}

/// The soundness harness's generated specs that `check` accepted, each
/// with its repository and its driver (see `tests/soundness/gen.rs`).
#[allow(missing_docs, clippy::all, unused_imports, unused_variables)]
pub mod soundness_specs {
    include!(concat!(env!("OUT_DIR"), "/soundness_drivers.rs"));
}

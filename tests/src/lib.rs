//! Workspace-level end-to-end tests: the repositories generated from every
//! spec in `schemas/` (by this crate's build script), and the servers they
//! run against.

pub mod capture;
pub mod dynamo_json;
pub mod faults;
pub mod server;
pub mod soundness;
pub mod tables;

/// The generated repositories, one module per spec.
pub mod generated {
    schema_runtime::include_generated!(pub contest_votes);
    schema_runtime::include_generated!(pub inverted_role_index);
    schema_runtime::include_generated!(pub iot_device_reports);
    schema_runtime::include_generated!(pub monthly_activity);
    schema_runtime::include_generated!(pub photo_site);
    schema_runtime::include_generated!(pub pooled_product_catalog);
    schema_runtime::include_generated!(pub project_task_comment);
    schema_runtime::include_generated!(pub saas_tenant_users_orders);
    schema_runtime::include_generated!(pub shopping_cart);
    schema_runtime::include_generated!(pub short_lived_messages);
    schema_runtime::include_generated!(pub support_ticket);
    schema_runtime::include_generated!(pub vertical_partitioning);
    schema_runtime::include_generated!(pub range_returns_what_sorts_between);
    schema_runtime::include_generated!(pub index_membership_by_attributes);
    schema_runtime::include_generated!(pub user_names_like_generated_locals);
    schema_runtime::include_generated!(pub private_helpers_cannot_clash);
}

/// The soundness harness's generated specs that `check` accepted, each
/// with its repository and its driver (see `tests/soundness/gen.rs`).
#[allow(missing_docs, clippy::all, unused_imports, unused_variables)]
pub mod soundness_specs {
    include!(concat!(env!("OUT_DIR"), "/soundness_drivers.rs"));
}

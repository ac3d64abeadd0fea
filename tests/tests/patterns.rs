//! Every access pattern of the specs that have no test file of their own, end
//! to end. Each test writes the same items for two tenants (or two owners,
//! where a spec has no tenant), with values that name their owner, runs each
//! pattern for the first and asserts it returns exactly the first's items.

use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Decimal, Error, Item};
use singletable_tests::generated::*;
use singletable_tests::server;
use singletable_tests::server::put_stored;

async fn client() -> singletable_runtime::sdk::Client {
    server::client(&server::server().await.endpoint)
}

fn decimal(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

/// The canceled-transaction error, or a panic naming what came instead.
fn assert_canceled<T: std::fmt::Debug>(result: Result<T, Error>) {
    assert!(
        matches!(result, Err(Error::TransactionCanceled(_))),
        "expected a canceled transaction, got {result:?}"
    );
}

#[path = "patterns/inverted_role_index_patterns.rs"]
mod inverted_role_index_patterns;

#[path = "patterns/iot_device_reports_patterns.rs"]
mod iot_device_reports_patterns;

#[path = "patterns/monthly_activity_patterns.rs"]
mod monthly_activity_patterns;

#[path = "patterns/photo_site_patterns.rs"]
mod photo_site_patterns;

#[path = "patterns/project_task_comment_patterns.rs"]
mod project_task_comment_patterns;

#[path = "patterns/saas_tenant_users_orders_patterns.rs"]
mod saas_tenant_users_orders_patterns;

#[path = "patterns/shopping_cart_patterns.rs"]
mod shopping_cart_patterns;

#[path = "patterns/vertical_partitioning_patterns.rs"]
mod vertical_partitioning_patterns;

#[path = "patterns/optimistic_locking.rs"]
mod optimistic_locking;

#[path = "patterns/transactions.rs"]
mod transactions;

#[path = "patterns/transact_get.rs"]
mod transact_get;

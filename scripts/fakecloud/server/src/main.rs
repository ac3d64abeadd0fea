//! fakecloud's DynamoDB, DynamoDB Streams, IAM and STS services behind its
//! dispatcher, with SigV4 verified and IAM policies enforced (`strict`), state
//! in memory. Listens on `127.0.0.1` at the port in `FAKECLOUD_ADDR`'s port
//! (0: any free one), prints `FAKECLOUD_PORT=<port>` once it listens, answers
//! `GET /_fakecloud/health`.
//!
//! Access keys beginning with `test` are the emulator's administrator, as in
//! fakecloud itself; every other key must belong to an IAM principal and is
//! held to that principal's policies.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::{Extension, Router};
use fakecloud_core::auth::{IamMode, MultiResourcePolicyProvider};
use fakecloud_core::dispatch::{self, DispatchConfig};
use fakecloud_core::multi_account::MultiAccountState;
use fakecloud_core::registry::ServiceRegistry;
use fakecloud_dynamodb::{DynamoDbResourcePolicyProvider, DynamoDbService, DynamoDbStreamsService};
use fakecloud_iam::credential_resolver::IamCredentialResolver;
use fakecloud_iam::iam_service::IamService;
use fakecloud_iam::policy_evaluator::IamPolicyEvaluatorImpl;
use fakecloud_iam::resource_policy::StsResourcePolicyProvider;
use fakecloud_iam::sts_service::StsService;

const ACCOUNT: &str = "123456789012";
const REGION: &str = "us-east-1";

#[tokio::main]
async fn main() {
    let addr: SocketAddr = std::env::var("FAKECLOUD_ADDR")
        .unwrap_or_else(|_| "127.0.0.1:0".to_owned())
        .parse()
        .expect("FAKECLOUD_ADDR is an address such as 127.0.0.1:0");
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .expect("the address is free");
    let bound = listener
        .local_addr()
        .expect("a bound listener has an address");
    let endpoint = format!("http://{bound}");

    let iam = Arc::new(parking_lot::RwLock::new(MultiAccountState::new(
        ACCOUNT, REGION, &endpoint,
    )));
    let dynamodb = Arc::new(parking_lot::RwLock::new(MultiAccountState::new(
        ACCOUNT, REGION, &endpoint,
    )));

    let mut registry = ServiceRegistry::new();
    let iam_service = IamService::new(iam.clone());
    let sts_service = StsService::new(iam.clone()).with_snapshot_lock(iam_service.snapshot_lock());
    registry.register(Arc::new(iam_service));
    registry.register(Arc::new(sts_service));
    registry.register(Arc::new(
        DynamoDbService::new(dynamodb.clone()).with_region(REGION.to_owned()),
    ));
    registry.register(Arc::new(DynamoDbStreamsService::new(dynamodb.clone())));

    let config = DispatchConfig {
        region: REGION.to_owned(),
        account_id: ACCOUNT.to_owned(),
        verify_sigv4: true,
        iam_mode: IamMode::Strict,
        credential_resolver: Some(IamCredentialResolver::shared(iam.clone())),
        policy_evaluator: Some(IamPolicyEvaluatorImpl::shared(iam.clone())),
        resource_policy_provider: Some(MultiResourcePolicyProvider::shared(vec![
            StsResourcePolicyProvider::shared(iam.clone()),
            DynamoDbResourcePolicyProvider::shared(dynamodb.clone()),
        ])),
        scp_resolver: None,
    };
    let app = Router::new()
        .route(
            "/_fakecloud/health",
            axum::routing::get(|| async { "{\"status\":\"ok\"}" }),
        )
        .fallback(dispatch::dispatch)
        .layer(Extension(Arc::new(registry)))
        .layer(Extension(Arc::new(config)));

    println!("FAKECLOUD_PORT={}", bound.port());
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
    .expect("the server runs");
}

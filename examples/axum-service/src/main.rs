//! Serves the API on 127.0.0.1 (`PORT`, default 3000) against
//! `DYNAMODB_ENDPOINT` or an embedded dynoxide server, and prints a bearer
//! token for the tenant `acme` to try it with:
//!
//! ```sh
//! curl -H "Authorization: Bearer $TOKEN" localhost:3000/tickets
//! ```
//!
//! In production the repository's client comes from `aws-config`, and the
//! page-token and bearer-token keys from a secret store.

use axum_service::{bearer_token, router, AppState, Repository};
use singletable_runtime::PageTokens;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = singletable_runtime::testing::server()?;
    let repo = Repository::new(singletable_runtime::testing::client(&server.endpoint))
        .with_table_name(singletable_runtime::testing::unique_table_name(
            "SupportTicket",
        ))
        .with_page_tokens(PageTokens::new(&[7; 32]));
    repo.create_table().await?;
    let auth_key = b"demo signing key: use a secret".to_vec();
    println!("TOKEN={}", bearer_token(&auth_key, "acme"));
    let state = AppState { repo, auth_key };
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".into());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router(state)).await?;
    Ok(())
}

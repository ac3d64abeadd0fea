//! The DynamoDB-compatible server the tests run against: Amazon's DynamoDB
//! Local when `DYNAMODB_ENDPOINT` names one (the test script starts it), or
//! an embedded dynoxide server on 127.0.0.1 otherwise.

use std::sync::atomic::{AtomicU32, Ordering};

use singletable_runtime::sdk;
use tokio::sync::OnceCell;

/// A running server.
#[derive(Debug, Clone)]
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    /// Which server it is.
    pub kind: &'static str,
}

static SERVER: OnceCell<Server> = OnceCell::const_new();

/// Starts an embedded dynoxide server on a free loopback port, serving from
/// a background thread with its own runtime (so it outlives any one test's runtime).
pub async fn start_dynoxide() -> Result<Server, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("dynoxide".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Err(format!("cannot start a runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = tx.send(Err(format!("cannot bind 127.0.0.1: {e}")));
                        return;
                    }
                };
                let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
                let db = match dynoxide::Database::memory() {
                    Ok(db) => db,
                    Err(e) => {
                        let _ = tx.send(Err(format!("cannot open dynoxide: {e}")));
                        return;
                    }
                };
                let _ = tx.send(Ok(port));
                dynoxide::server::serve_on(listener, db).await;
            });
        })
        .map_err(|e| format!("cannot spawn the server thread: {e}"))?;
    let port = rx
        .await
        .map_err(|_| "the server thread ended".to_owned())??;
    Ok(Server {
        endpoint: format!("http://127.0.0.1:{port}"),
        kind: "dynoxide",
    })
}

/// The server of this test process: `DYNAMODB_ENDPOINT` if set, else an
/// embedded dynoxide. Panics (failing the test, never skipping it) when
/// neither is available.
pub async fn server() -> Server {
    SERVER
        .get_or_init(|| async {
            match std::env::var("DYNAMODB_ENDPOINT") {
                Ok(endpoint) if !endpoint.is_empty() => Server {
                    endpoint,
                    kind: "external",
                },
                _ => start_dynoxide()
                    .await
                    .unwrap_or_else(|e| panic!("cannot start the embedded dynoxide server: {e}")),
            }
        })
        .await
        .clone()
}

/// An SDK client for `endpoint` with static local credentials.
pub fn client(endpoint: &str) -> sdk::Client {
    let config = sdk::Config::builder()
        .behavior_version(sdk::config::BehaviorVersion::latest())
        .region(sdk::config::Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(sdk::config::Credentials::new(
            "local", "local", None, None, "static",
        ))
        .build();
    sdk::Client::from_conf(config)
}

/// A table name no other test of this process uses.
pub fn unique_table(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{}-{n}", std::process::id())
}

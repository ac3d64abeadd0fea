//! A generated repository on a fresh table, for tests (feature `testing`).
//!
//! ```ignore
//! // In a test: a server, a table of its own, ready.
//! let repo: support_ticket::Repository = singletable_runtime::testing::repository().await;
//! ```
//!
//! The server is the one `DYNAMODB_ENDPOINT` names (DynamoDB Local, or any
//! DynamoDB-compatible server), else an embedded dynoxide server on
//! 127.0.0.1, started once per test process on a thread of its own so it
//! outlives each test's runtime. Every call creates a table no other call
//! of the process uses, so tests run in parallel without cleaning up.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use crate::{sdk, Error, Repository};

/// The server the tests of this process use.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Server {
    /// `http://127.0.0.1:PORT`, or `DYNAMODB_ENDPOINT`.
    pub endpoint: String,
    /// `"dynoxide"` (embedded) or `"external"`.
    pub kind: &'static str,
}

static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();

/// The server of this test process: `DYNAMODB_ENDPOINT` if set, else an
/// embedded dynoxide started now (once).
pub fn server() -> Result<Server, String> {
    SERVER
        .get_or_init(|| match std::env::var("DYNAMODB_ENDPOINT") {
            Ok(endpoint) if !endpoint.is_empty() => Ok(Server {
                endpoint,
                kind: "external",
            }),
            _ => start_dynoxide(),
        })
        .clone()
}

/// Starts an embedded dynoxide server on a free loopback port, serving
/// from a thread with its own runtime.
pub fn start_dynoxide() -> Result<Server, String> {
    let (tx, rx) = std::sync::mpsc::channel();
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
        .recv()
        .map_err(|_| "the server thread ended".to_owned())??;
    Ok(Server {
        endpoint: format!("http://127.0.0.1:{port}"),
        kind: "dynoxide",
    })
}

/// An SDK client for `endpoint` with static local credentials, in
/// `us-east-1`.
pub fn client(endpoint: &str) -> sdk::Client {
    let config = sdk::Config::builder()
        .behavior_version(sdk::config::BehaviorVersion::latest())
        .region(sdk::config::Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(sdk::config::Credentials::new(
            "local", "local", None, None, "static",
        ));
    #[cfg(all(feature = "rustls-ring", not(feature = "rustls-aws-lc")))]
    let config = config.http_client(crate::https_client_ring());
    sdk::Client::from_conf(config.build())
}

/// A table name no other call of this process uses: `prefix-<pid>-<n>`.
pub fn unique_table_name(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{}-{n}", std::process::id())
}

/// A repository on a table of its own, created and active, on the test
/// server. Panics (failing the test) when there is no server or the table
/// cannot be created; [`try_repository`] returns the error instead.
pub async fn repository<R: Repository>() -> R {
    match try_repository().await {
        Ok(repo) => repo,
        Err(e) => {
            let mut message = format!("cannot set up a test table: {e}");
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                message.push_str(&format!(": {c}"));
                cause = c.source();
            }
            panic!("{message}")
        }
    }
}

/// Why [`try_repository`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum SetupError {
    /// No server: `DYNAMODB_ENDPOINT` is not set and the embedded one did not start.
    Server(String),
    /// The table could not be created.
    Table(Error),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Server(e) => write!(f, "no test server: {e}"),
            SetupError::Table(_) => f.write_str("cannot create the test table"),
        }
    }
}

impl std::error::Error for SetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SetupError::Server(_) => None,
            SetupError::Table(e) => Some(e),
        }
    }
}

/// [`repository`], returning what failed.
pub async fn try_repository<R: Repository>() -> Result<R, SetupError> {
    let server = server().map_err(SetupError::Server)?;
    let table = unique_table_name(R::TABLE_NAME);
    let repo = R::new(client(&server.endpoint)).with_table_name(table);
    repo.create_table().await.map_err(SetupError::Table)?;
    Ok(repo)
}

/// Records the spans of repository calls (features `testing` and
/// `tracing`), to check what a handler asked of DynamoDB:
///
/// ```no_run
/// # async fn demo() {
/// let calls = singletable_runtime::testing::CallRecorder::default();
/// let _guard = calls.install(); // this thread's spans, until dropped
/// // … run the code under test …
/// let spans = calls.calls();
/// assert_eq!(spans.len(), 1);
/// assert_eq!(spans[0].name, "singletable.query");
/// assert_eq!(spans[0].fields["pattern"], "open_tickets");
/// # }
/// ```
///
/// Tests running in parallel each keep their own spans: the first
/// `install` makes one process-wide subscriber the global default, and it
/// hands each span to the recorder installed on the thread that opens it
/// (or to the recorder of the future [`CallRecorder::scope`] runs, on any
/// thread). A subscriber per thread (`tracing::subscriber::set_default`)
/// is not reliable here: `tracing` caches per call site whether anyone
/// listens, and a test thread with no subscriber can make another test's
/// spans go unrecorded. When the application has set a global subscriber
/// of its own, `install` falls back to a subscriber for this thread only.
#[cfg(feature = "tracing")]
pub use recorder::{CallRecorder, RecordedCall, RecorderGuard, Scoped};

#[cfg(feature = "tracing")]
mod recorder {
    use std::cell::RefCell;
    use std::collections::{BTreeMap, HashMap};
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex, OnceLock, PoisonError};
    use std::task::{Context, Poll};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::Interest;
    use tracing::{Event, Metadata, Subscriber};

    /// A span as the recorder saw it.
    #[derive(Debug, Clone, Default)]
    #[non_exhaustive]
    pub struct RecordedCall {
        /// The span's name (`singletable.query`, …).
        pub name: &'static str,
        /// Its target (`singletable` for repository calls; the SDK's
        /// spans have theirs).
        pub target: &'static str,
        /// The id of the span it was opened in, if any.
        pub parent: Option<u64>,
        /// Its id.
        pub id: u64,
        /// Every field, as last recorded, in `Debug` form (strings as they are).
        pub fields: BTreeMap<String, String>,
    }

    /// A `tracing` subscriber that keeps every span opened while it is
    /// installed.
    #[derive(Debug, Clone, Default)]
    pub struct CallRecorder {
        spans: Arc<Mutex<Vec<RecordedCall>>>,
        stack: Arc<Mutex<Vec<u64>>>,
        /// The last id given; never reset, so a span still open across
        /// [`clear`](Self::clear) keeps an id of its own.
        last_id: Arc<AtomicU64>,
    }

    thread_local! {
        /// The recorders installed on this thread, innermost last.
        static CURRENT: RefCell<Vec<CallRecorder>> = const { RefCell::new(Vec::new()) };
    }

    /// The process-wide subscriber: each span goes to the recorder current
    /// on the thread that opens it, and its later records, enters and
    /// exits to that recorder, whatever thread they come from.
    #[derive(Default)]
    struct Router {
        /// Span ids are the router's own, unique in the process.
        last_id: AtomicU64,
        /// The recorder of each open span that had one, with its id there
        /// and the number of handles to it.
        owners: Mutex<HashMap<u64, (CallRecorder, Id, usize)>>,
    }

    /// Whether the router is the global default (`false`: the application
    /// set one of its own first).
    fn router_installed() -> bool {
        static INSTALLED: OnceLock<bool> = OnceLock::new();
        *INSTALLED
            .get_or_init(|| tracing::subscriber::set_global_default(Router::default()).is_ok())
    }

    impl Router {
        fn owner(&self, id: &Id) -> Option<(CallRecorder, Id)> {
            self.owners
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&id.into_u64())
                .map(|(recorder, inner, _)| (recorder.clone(), inner.clone()))
        }
    }

    impl Subscriber for Router {
        // Asked on every span: only a thread (or scoped future) with a
        // recorder installed opens spans, so the rest of the process pays
        // one thread-local read per call site.
        fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
            Interest::sometimes()
        }
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            CURRENT.with(|c| !c.borrow().is_empty())
        }
        fn new_span(&self, attrs: &Attributes<'_>) -> Id {
            let id = Id::from_u64(self.last_id.fetch_add(1, Ordering::Relaxed) + 1);
            let current = CURRENT.with(|c| c.borrow().last().cloned());
            if let Some(recorder) = current {
                let inner = recorder.new_span(attrs);
                self.owners
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(id.into_u64(), (recorder, inner, 1));
            }
            id
        }
        fn record(&self, id: &Id, values: &Record<'_>) {
            if let Some((recorder, inner)) = self.owner(id) {
                recorder.record(&inner, values);
            }
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, id: &Id) {
            if let Some((recorder, inner)) = self.owner(id) {
                recorder.enter(&inner);
            }
        }
        fn exit(&self, id: &Id) {
            if let Some((recorder, inner)) = self.owner(id) {
                recorder.exit(&inner);
            }
        }
        fn clone_span(&self, id: &Id) -> Id {
            let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((_, _, handles)) = owners.get_mut(&id.into_u64()) {
                *handles += 1;
            }
            id.clone()
        }
        fn try_close(&self, id: Id) -> bool {
            let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
            let key = id.into_u64();
            let Some((_, _, handles)) = owners.get_mut(&key) else {
                return true;
            };
            *handles -= 1;
            if *handles == 0 {
                owners.remove(&key);
                return true;
            }
            false
        }
    }

    /// Keeps a recorder installed until dropped (see
    /// [`CallRecorder::install`]).
    #[must_use = "the recorder is uninstalled when the guard is dropped"]
    pub struct RecorderGuard {
        /// The per-thread subscriber when the router could not be the
        /// global default.
        _fallback: Option<tracing::subscriber::DefaultGuard>,
        routed: bool,
    }

    impl std::fmt::Debug for RecorderGuard {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("RecorderGuard")
                .field("routed", &self.routed)
                .finish_non_exhaustive()
        }
    }

    impl Drop for RecorderGuard {
        fn drop(&mut self) {
            if self.routed {
                CURRENT.with(|c| c.borrow_mut().pop());
            }
        }
    }

    /// A future run with a recorder current on whatever thread polls it
    /// (see [`CallRecorder::scope`]).
    #[derive(Debug)]
    pub struct Scoped<F> {
        recorder: CallRecorder,
        future: Pin<Box<F>>,
    }

    impl<F: Future> Future for Scoped<F> {
        type Output = F::Output;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
            // `Scoped` is `Unpin`: the future it runs is boxed.
            let this = self.get_mut();
            let _guard = this.recorder.install();
            this.future.as_mut().poll(cx)
        }
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
    }

    impl CallRecorder {
        /// Records the spans this thread opens until the guard is dropped
        /// (with a current-thread runtime, those of the whole test). Other
        /// threads' spans, other tests' included, are not recorded.
        pub fn install(&self) -> RecorderGuard {
            if router_installed() {
                CURRENT.with(|c| c.borrow_mut().push(self.clone()));
                RecorderGuard {
                    _fallback: None,
                    routed: true,
                }
            } else {
                RecorderGuard {
                    _fallback: Some(tracing::subscriber::set_default(self.clone())),
                    routed: false,
                }
            }
        }

        /// Runs `future` with this recorder installed on whichever thread
        /// polls it: the spans of a task on a multi-thread runtime (tasks it
        /// spawns need a scope of their own).
        pub fn scope<F: Future>(&self, future: F) -> Scoped<F> {
            Scoped {
                recorder: self.clone(),
                future: Box::pin(future),
            }
        }

        /// The repository calls recorded (spans of target `singletable`).
        pub fn calls(&self) -> Vec<RecordedCall> {
            self.all()
                .into_iter()
                .filter(|s| s.target == "singletable")
                .collect()
        }

        /// Every span recorded, the SDK's included.
        pub fn all(&self) -> Vec<RecordedCall> {
            self.spans
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        }

        /// Forgets what was recorded.
        pub fn clear(&self) {
            self.spans
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        }
    }

    impl Subscriber for CallRecorder {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, attrs: &Attributes<'_>) -> Id {
            let parent = self
                .stack
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .last()
                .copied();
            let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
            // Ids count from 1 and are never reused, cleared or not.
            let id = self.last_id.fetch_add(1, Ordering::Relaxed) + 1;
            let mut seen = RecordedCall {
                name: attrs.metadata().name(),
                target: attrs.metadata().target(),
                parent,
                id,
                fields: BTreeMap::new(),
            };
            attrs.record(&mut Fields(&mut seen.fields));
            spans.push(seen);
            Id::from_u64(id)
        }
        fn record(&self, id: &Id, values: &Record<'_>) {
            let mut spans = self.spans.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(seen) = spans.iter_mut().rev().find(|s| s.id == id.into_u64()) {
                values.record(&mut Fields(&mut seen.fields));
            }
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, id: &Id) {
            self.stack
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(id.into_u64());
        }
        fn exit(&self, _: &Id) {
            self.stack
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
        }
    }
}

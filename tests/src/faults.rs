//! A fault-injecting HTTP proxy on 127.0.0.1, in front of a test server.
//!
//! Per request, by a seeded schedule, it passes the request through, or
//! answers with a throttling error (`ProvisionedThroughputExceededException`
//! or `ThrottlingException`), a 500 or 503, drops the connection without an
//! answer, delays the answer, or — for BatchWriteItem and BatchGetItem —
//! forwards only part of the batch and reports the rest as
//! `UnprocessedItems` / `UnprocessedKeys`. Requests it fails never reach the
//! server, so what the server holds is exactly what it was sent.
//!
//! [`start_with_latency`] faults nothing and holds every answer for a fixed
//! time: a local server with the round trip of a remote one.
//!
//! [`start_losing`] passes every request to the server and then, for
//! `rate` of the data requests, cuts the connection instead of answering:
//! the request was applied and its answer lost, so the SDK retries a
//! request the server already applied.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy did, by kind.
#[derive(Debug, Default)]
pub struct Counts {
    /// Requests seen.
    pub requests: AtomicU64,
    /// Answered with a throttling error.
    pub throttled: AtomicU64,
    /// Answered with a 500 or 503.
    pub server_errors: AtomicU64,
    /// Connections dropped.
    pub dropped: AtomicU64,
    /// Answers delayed.
    pub delayed: AtomicU64,
    /// Batches cut short.
    pub partial_batches: AtomicU64,
    /// Requests applied whose answers were lost.
    pub lost: AtomicU64,
}

impl Counts {
    /// `requests 812, throttled 40, …` for test logs and docs.
    pub fn summary(&self) -> String {
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        format!(
            "requests {}, faults {} (throttled {}, 5xx {}, dropped {}, delayed {}, partial batches {}, answers lost {})",
            n(&self.requests),
            n(&self.throttled)
                + n(&self.server_errors)
                + n(&self.dropped)
                + n(&self.delayed)
                + n(&self.partial_batches)
                + n(&self.lost),
            n(&self.throttled),
            n(&self.server_errors),
            n(&self.dropped),
            n(&self.delayed),
            n(&self.partial_batches),
            n(&self.lost),
        )
    }
}

/// A running proxy.
pub struct FaultProxy {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    /// What it did so far.
    pub counts: Arc<Counts>,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    Pass,
    Throttle,
    ServerError,
    Drop,
    Delay,
    PartialBatch,
    Lost,
}

/// Starts a proxy to `upstream` (`http://127.0.0.1:PORT`) that faults
/// `rate` of the data requests (0.0–1.0), choosing with `seed`.
pub async fn start(upstream: &str, rate: f64, seed: u64) -> std::io::Result<FaultProxy> {
    launch(upstream, rate, seed, None, Duration::ZERO, Lose::Never).await
}

/// Starts a proxy that applies every request and loses the answer of
/// `rate` of the data requests (0.0–1.0), choosing with `seed`.
pub async fn start_losing(upstream: &str, rate: f64, seed: u64) -> std::io::Result<FaultProxy> {
    launch(upstream, rate, seed, None, Duration::ZERO, Lose::Always).await
}

/// Starts a proxy that faults `rate` of the data requests (0.0–1.0),
/// choosing with `seed`: half of them as [`start`] does (throttling, 5xx,
/// dropped connections, delays, partial batches), half applied with their
/// answers lost as [`start_losing`] does.
pub async fn start_mixed(upstream: &str, rate: f64, seed: u64) -> std::io::Result<FaultProxy> {
    launch(upstream, rate, seed, None, Duration::ZERO, Lose::Half).await
}

/// Starts a proxy that passes every request and answers each after
/// `latency` more: the network round trip a local server does not have.
pub async fn start_with_latency(upstream: &str, latency: Duration) -> std::io::Result<FaultProxy> {
    launch(upstream, 0.0, 0, None, latency, Lose::Never).await
}

/// Starts a proxy that passes every request but rewrites the server's
/// answers, replacing `from` with `to` in their bodies: a server (or a
/// bug) that returns another tenant's items.
pub async fn start_tampering(upstream: &str, from: &str, to: &str) -> std::io::Result<FaultProxy> {
    let tamper = Some((from.to_owned(), to.to_owned()));
    launch(upstream, 0.0, 0, tamper, Duration::ZERO, Lose::Never).await
}

/// Which faulted requests are applied with their answers lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lose {
    Never,
    Always,
    Half,
}

async fn launch(
    upstream: &str,
    rate: f64,
    seed: u64,
    tamper: Option<(String, String)>,
    latency: Duration,
    lose: Lose,
) -> std::io::Result<FaultProxy> {
    let upstream = upstream
        .strip_prefix("http://")
        .unwrap_or(upstream)
        .trim_end_matches('/')
        .to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let endpoint = format!("http://{}", listener.local_addr()?);
    let counts = Arc::new(Counts::default());
    let rng = Arc::new(Mutex::new(fastrand::Rng::with_seed(seed)));
    let shared = counts.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let rng = rng.clone();
            let counts = shared.clone();
            let tamper = tamper.clone();
            tokio::spawn(async move {
                let tamper = tamper.as_ref();
                let faults = Faults {
                    rate,
                    tamper,
                    latency,
                    lose,
                };
                let _ = serve(socket, &upstream, &faults, &rng, &counts).await;
            });
        }
    });
    Ok(FaultProxy { endpoint, counts })
}

/// One HTTP/1.1 message: head (request or status line and headers) and body.
struct Message {
    head: String,
    body: Vec<u8>,
}

impl Message {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// Reads one message from `socket`, using `buffer` for bytes read past it.
/// `None` at a clean end of the connection.
async fn read_message(
    socket: &mut TcpStream,
    buffer: &mut Vec<u8>,
) -> std::io::Result<Option<Message>> {
    let end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let mut chunk = [0u8; 8192];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
    buffer.drain(..end + 4);
    let mut message = Message {
        head,
        body: Vec::new(),
    };
    if message
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        message.body = read_chunked(socket, buffer).await?;
    } else {
        let length: usize = message
            .header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        while buffer.len() < length {
            let mut chunk = [0u8; 8192];
            let n = socket.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        message.body = buffer.drain(..length).collect();
    }
    Ok(Some(message))
}

async fn read_chunked(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(i) = buffer.windows(2).position(|w| w == b"\r\n") {
                break i;
            }
            let mut chunk = [0u8; 8192];
            let n = socket.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            buffer.extend_from_slice(&chunk[..n]);
        };
        let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
        buffer.drain(..line_end + 2);
        while buffer.len() < size + 2 {
            let mut chunk = [0u8; 8192];
            let n = socket.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        body.extend(buffer.drain(..size));
        buffer.drain(..2);
        if size == 0 {
            return Ok(body);
        }
    }
}

/// The request with a new body, to send upstream on a fresh connection.
fn request_bytes(request: &Message, body: &[u8]) -> Vec<u8> {
    let mut lines = request.head.lines();
    let mut out = String::new();
    if let Some(first) = lines.next() {
        out.push_str(first);
        out.push_str("\r\n");
    }
    push_headers(&mut out, lines);
    out.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    ));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A response with a JSON body.
fn response(status: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_body(code: &str, message: &str) -> Vec<u8> {
    serde_json::json!({
        "__type": format!("com.amazonaws.dynamodb.v20120810#{code}"),
        "message": message,
    })
    .to_string()
    .into_bytes()
}

/// Sends `bytes` to `upstream` and returns its answer.
async fn forward(upstream: &str, bytes: &[u8]) -> std::io::Result<Message> {
    let mut server = TcpStream::connect(upstream).await?;
    server.write_all(bytes).await?;
    let mut buffer = Vec::new();
    read_message(&mut server, &mut buffer)
        .await?
        .ok_or_else(|| std::io::ErrorKind::UnexpectedEof.into())
}

/// Puts a shortened list back where it came from.
type Rebuild = Box<dyn Fn(Vec<Value>) -> Value>;

/// The request body with some of the batch held back, and what was held
/// back (by table): `RequestItems` of a BatchWriteItem (lists of write
/// requests) or of a BatchGetItem (`Keys` lists).
fn split_batch(body: &Value, rng: &Mutex<fastrand::Rng>) -> Option<(Value, Map<String, Value>)> {
    let requests = body.get("RequestItems")?.as_object()?;
    let mut kept = Map::new();
    let mut held = Map::new();
    let mut any_kept = false;
    for (table, value) in requests {
        let (list, rebuild): (&Vec<Value>, Rebuild) = match value {
            Value::Array(list) => (list, Box::new(Value::Array)),
            Value::Object(o) => {
                let keys = o.get("Keys")?.as_array()?;
                let template = o.clone();
                (
                    keys,
                    Box::new(move |keys| {
                        let mut t = template.clone();
                        t.insert("Keys".into(), Value::Array(keys));
                        Value::Object(t)
                    }),
                )
            }
            _ => return None,
        };
        let (mut keep, mut hold) = (Vec::new(), Vec::new());
        {
            let mut rng = rng.lock().ok()?;
            for entry in list {
                if rng.bool() {
                    keep.push(entry.clone());
                } else {
                    hold.push(entry.clone());
                }
            }
        }
        if keep.is_empty() && !hold.is_empty() {
            keep.push(hold.remove(0));
        }
        any_kept |= !keep.is_empty();
        kept.insert(table.clone(), rebuild(keep));
        if !hold.is_empty() {
            held.insert(table.clone(), rebuild(hold));
        }
    }
    if !any_kept || held.is_empty() {
        return None;
    }
    let mut body = body.clone();
    body.as_object_mut()?
        .insert("RequestItems".into(), Value::Object(kept));
    Some((body, held))
}

/// What a proxy does to the requests it passes.
struct Faults<'a> {
    rate: f64,
    tamper: Option<&'a (String, String)>,
    latency: Duration,
    lose: Lose,
}

async fn serve(
    mut client: TcpStream,
    upstream: &str,
    faults: &Faults<'_>,
    rng: &Mutex<fastrand::Rng>,
    counts: &Counts,
) -> std::io::Result<()> {
    let Faults {
        rate,
        tamper,
        latency,
        lose,
    } = *faults;
    let mut buffer = Vec::new();
    while let Some(request) = read_message(&mut client, &mut buffer).await? {
        counts.requests.fetch_add(1, Ordering::Relaxed);
        let target = request.header("x-amz-target").unwrap_or("").to_owned();
        let operation = target.rsplit('.').next().unwrap_or("").to_owned();
        let data = !matches!(
            operation.as_str(),
            "CreateTable" | "DescribeTable" | "UpdateTimeToLive" | "DeleteTable" | "ListTables"
        );
        let is_batch = matches!(operation.as_str(), "BatchWriteItem" | "BatchGetItem");
        let fault = {
            let mut rng = rng.lock().map_err(|_| std::io::ErrorKind::Other)?;
            if !data || rng.f64() >= rate {
                Fault::Pass
            } else if lose == Lose::Always || (lose == Lose::Half && rng.bool()) {
                Fault::Lost
            } else {
                match rng.u8(0..if is_batch { 5 } else { 4 }) {
                    0 => Fault::Throttle,
                    1 => Fault::ServerError,
                    2 => Fault::Drop,
                    3 => Fault::Delay,
                    _ => Fault::PartialBatch,
                }
            }
        };
        let answer = match fault {
            Fault::Throttle => {
                counts.throttled.fetch_add(1, Ordering::Relaxed);
                let code = if rng.lock().map(|mut r| r.bool()).unwrap_or(true) {
                    "ProvisionedThroughputExceededException"
                } else {
                    "ThrottlingException"
                };
                response("400 Bad Request", &error_body(code, "injected throttling"))
            }
            Fault::ServerError => {
                counts.server_errors.fetch_add(1, Ordering::Relaxed);
                if rng.lock().map(|mut r| r.bool()).unwrap_or(true) {
                    response(
                        "500 Internal Server Error",
                        &error_body("InternalServerError", "injected"),
                    )
                } else {
                    response(
                        "503 Service Unavailable",
                        &error_body("ServiceUnavailable", "injected"),
                    )
                }
            }
            Fault::Drop => {
                counts.dropped.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            Fault::Lost => {
                // Applied by the server; the answer never arrives.
                counts.lost.fetch_add(1, Ordering::Relaxed);
                forward(upstream, &request_bytes(&request, &request.body)).await?;
                return Ok(());
            }
            Fault::Delay => {
                counts.delayed.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
                let answer = forward(upstream, &request_bytes(&request, &request.body)).await?;
                response_bytes(&answer)
            }
            Fault::Pass => {
                if !latency.is_zero() {
                    tokio::time::sleep(latency).await;
                }
                let mut answer = forward(upstream, &request_bytes(&request, &request.body)).await?;
                if let Some((from, to)) = tamper {
                    let body = String::from_utf8_lossy(&answer.body).replace(from, to);
                    answer.body = body.into_bytes();
                }
                response_bytes(&answer)
            }
            Fault::PartialBatch => {
                let parsed: Option<Value> = serde_json::from_slice(&request.body).ok();
                match parsed.as_ref().and_then(|b| split_batch(b, rng)) {
                    Some((body, held)) => {
                        counts.partial_batches.fetch_add(1, Ordering::Relaxed);
                        let bytes = serde_json::to_vec(&body).unwrap_or_default();
                        let answer = forward(upstream, &request_bytes(&request, &bytes)).await?;
                        let field = if operation == "BatchWriteItem" {
                            "UnprocessedItems"
                        } else {
                            "UnprocessedKeys"
                        };
                        let mut reply: Value =
                            serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
                        let ok = answer.head.split_whitespace().nth(1) == Some("200");
                        match (ok, reply.as_object_mut()) {
                            (true, Some(object)) => {
                                let merged = object
                                    .entry(field)
                                    .or_insert_with(|| Value::Object(Map::new()));
                                if let Value::Object(merged) = merged {
                                    for (table, value) in held {
                                        merge_held(merged, table, value);
                                    }
                                }
                                response("200 OK", &serde_json::to_vec(&reply).unwrap_or_default())
                            }
                            _ => response_bytes(&answer),
                        }
                    }
                    None => {
                        let answer =
                            forward(upstream, &request_bytes(&request, &request.body)).await?;
                        response_bytes(&answer)
                    }
                }
            }
        };
        client.write_all(&answer).await?;
    }
    Ok(())
}

/// Adds held-back requests to what the server itself left unprocessed.
fn merge_held(merged: &mut Map<String, Value>, table: String, held: Value) {
    match (merged.get_mut(&table), held) {
        (Some(Value::Array(existing)), Value::Array(more)) => existing.extend(more),
        (Some(Value::Object(existing)), Value::Object(more)) => {
            if let (Some(Value::Array(keys)), Some(Value::Array(more_keys))) =
                (existing.get_mut("Keys"), more.get("Keys"))
            {
                keys.extend(more_keys.iter().cloned());
            }
        }
        (_, held) => {
            merged.insert(table, held);
        }
    }
}

/// Copies header lines to `out`, without those that frame the message
/// (content length, connection, transfer encoding): the proxy re-frames it.
fn push_headers<'a>(out: &mut String, lines: impl Iterator<Item = &'a str>) {
    for line in lines {
        let name = line.split(':').next().unwrap_or("").trim();
        if ["content-length", "connection", "transfer-encoding"]
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h))
        {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
}

/// The upstream answer, re-framed with a content length.
fn response_bytes(answer: &Message) -> Vec<u8> {
    let status = answer
        .head
        .lines()
        .next()
        .and_then(|l| l.split_once(' ').map(|(_, s)| s.to_owned()))
        .unwrap_or_else(|| "502 Bad Gateway".to_owned());
    let mut out = format!("HTTP/1.1 {status}\r\n");
    push_headers(&mut out, answer.head.lines().skip(1));
    out.push_str(&format!("content-length: {}\r\n\r\n", answer.body.len()));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&answer.body);
    bytes
}

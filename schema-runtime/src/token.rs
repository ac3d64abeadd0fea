//! Page tokens: a query's [`Cursor`] as an opaque string a client can hold.
//!
//! A cursor holds the keys of the last items returned (`TENANT#acme|…`),
//! and sent back as it is it would tell a client the table's key structure
//! and let it choose where a query starts. A page token is the cursor
//! sealed with XChaCha20-Poly1305 under a key the application supplies: the
//! client sees random bytes, and a token it altered or made up is refused
//! before any request. Inside, the token names what it resumes — the
//! access pattern, the tenant, a SHA-256 digest of the query's parameters
//! (table, index, partitions, filter values, order) — and when it was
//! issued, so a token of another pattern, tenant or parameter set, or an
//! old one, is refused with its own [`TokenError`].
//!
//! ```
//! use singletable_runtime::PageTokens;
//!
//! // 32 bytes from your secret store; the same key on every server.
//! let tokens = PageTokens::new(&[7; 32]).max_age(std::time::Duration::from_secs(3600));
//! # drop(tokens);
//! ```
//!
//! A query given the keys (`.with_tokens(&tokens)`) fills
//! [`Page::next_token`](crate::Page::next_token) and resumes from one with
//! `.after_token(&tokens, token)`.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};

use crate::cursor::{Cursor, Position};
use crate::query::QueryRequest;
use crate::sdk::primitives::Blob;
use crate::sdk::types::AttributeValue;
use crate::Item;

/// The format of the tokens this version writes; the first byte of every
/// token.
const VERSION: u8 = 1;
/// Nonce bytes of XChaCha20-Poly1305: random nonces of this size never
/// repeat in practice.
const NONCE: usize = 24;
/// Authentication tag bytes.
const TAG: usize = 16;
/// The longest token accepted, in characters: far above any cursor of a
/// real query (32 shards of 2 KB keys), and small enough that a hostile
/// one costs nothing to refuse.
const MAX_TOKEN: usize = 256 * 1024;

/// The keys that seal and open page tokens, and how long a token lives.
/// Cloning is cheap.
#[derive(Clone)]
pub struct PageTokens {
    inner: Arc<Keys>,
}

struct Keys {
    /// Seals new tokens, opens tokens.
    current: XChaCha20Poly1305,
    /// Open tokens only: keys being rotated out.
    previous: Vec<XChaCha20Poly1305>,
    max_age: Option<Duration>,
}

impl fmt::Debug for PageTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageTokens")
            .field("previous_keys", &self.inner.previous.len())
            .field("max_age", &self.inner.max_age)
            .finish_non_exhaustive()
    }
}

/// Why a page token was refused; no request was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// Not a token at all: not base64url, too short or too long.
    Malformed,
    /// A token format this version does not read.
    Version(u8),
    /// Not sealed by these keys: altered, made up, or sealed under a key
    /// no longer listed.
    Forged,
    /// A token of another access pattern (of the same tenant).
    OtherPattern {
        /// The pattern the token resumes (not in the `Display` text, which
        /// an API may show its client).
        token: String,
        /// The pattern it was given to.
        query: &'static str,
    },
    /// A token issued to another tenant (or to a query of no tenant).
    OtherTenant,
    /// A token of the same pattern with other parameters (another status,
    /// date range, index, order or filter value).
    OtherParameters,
    /// Issued longer ago than the keys' `max_age`.
    Expired {
        /// How old the token is.
        age: Duration,
    },
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Malformed => f.write_str("page token refused: not a page token"),
            TokenError::Version(v) => write!(f, "page token refused: unknown format {v}"),
            TokenError::Forged => {
                f.write_str("page token refused: not sealed by this application's keys")
            }
            TokenError::OtherPattern { query, .. } => write!(
                f,
                "page token refused: it resumes another access pattern than `{query}`"
            ),
            TokenError::OtherTenant => {
                f.write_str("page token refused: it was issued to another tenant")
            }
            TokenError::OtherParameters => {
                f.write_str("page token refused: it resumes the same pattern with other parameters")
            }
            TokenError::Expired { age } => write!(
                f,
                "page token refused: issued {}s ago, past its lifetime",
                age.as_secs()
            ),
        }
    }
}

impl std::error::Error for TokenError {}

impl PageTokens {
    /// Keys from 32 secret bytes. Every server that hands out or reads the
    /// application's tokens uses the same bytes.
    pub fn new(key: &[u8; 32]) -> Self {
        PageTokens {
            inner: Arc::new(Keys {
                current: XChaCha20Poly1305::new(key.into()),
                previous: Vec::new(),
                max_age: None,
            }),
        }
    }

    /// Also open tokens sealed under `key` (one being rotated out); new
    /// tokens are sealed under the key given to [`new`](Self::new).
    pub fn with_previous_key(self, key: &[u8; 32]) -> Self {
        let mut keys = self.into_keys();
        keys.previous.push(XChaCha20Poly1305::new(key.into()));
        PageTokens {
            inner: Arc::new(keys),
        }
    }

    /// Refuse tokens issued longer ago than `age` ([`TokenError::Expired`]).
    /// Without it a token lives as long as its key.
    pub fn max_age(self, age: Duration) -> Self {
        let mut keys = self.into_keys();
        keys.max_age = Some(age);
        PageTokens {
            inner: Arc::new(keys),
        }
    }

    fn into_keys(self) -> Keys {
        match Arc::try_unwrap(self.inner) {
            Ok(keys) => keys,
            Err(shared) => Keys {
                current: shared.current.clone(),
                previous: shared.previous.clone(),
                max_age: shared.max_age,
            },
        }
    }

    /// Seals `cursor` of the query `request` into a token.
    pub(crate) fn seal(&self, binding: &Binding, cursor: &Cursor) -> String {
        let issued = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let mut plain = Vec::with_capacity(128);
        plain.extend_from_slice(&issued.to_be_bytes());
        put_bytes(&mut plain, binding.pattern.as_bytes());
        plain.extend_from_slice(&binding.tenant);
        plain.extend_from_slice(&binding.parameters);
        put_positions(&mut plain, cursor.positions());
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = self
            .inner
            .current
            .encrypt(&nonce, plain.as_slice())
            .expect("XChaCha20-Poly1305 seals any message below 256 GiB");
        let mut token = Vec::with_capacity(1 + NONCE + sealed.len());
        token.push(VERSION);
        token.extend_from_slice(&nonce);
        token.extend_from_slice(&sealed);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(token)
    }

    /// Opens `token` for the query `binding` describes: its cursor, or why
    /// it is refused.
    pub(crate) fn open(&self, binding: &Binding, token: &str) -> Result<Cursor, TokenError> {
        if token.len() > MAX_TOKEN {
            return Err(TokenError::Malformed);
        }
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| TokenError::Malformed)?;
        let (&version, rest) = bytes.split_first().ok_or(TokenError::Malformed)?;
        if version != VERSION {
            return Err(TokenError::Version(version));
        }
        if rest.len() < NONCE + TAG {
            return Err(TokenError::Malformed);
        }
        let (nonce, sealed) = rest.split_at(NONCE);
        let nonce = XNonce::from_slice(nonce);
        let plain = std::iter::once(&self.inner.current)
            .chain(&self.inner.previous)
            .find_map(|key| key.decrypt(nonce, sealed).ok())
            .ok_or(TokenError::Forged)?;
        // Sealed by these keys: what follows is this crate's own writing,
        // read without trusting it all the same.
        let mut reader = Reader(&plain);
        let issued = u64::from_be_bytes(reader.array().ok_or(TokenError::Malformed)?);
        let pattern = reader.bytes().ok_or(TokenError::Malformed)?;
        let tenant: [u8; 32] = reader.array().ok_or(TokenError::Malformed)?;
        let parameters: [u8; 32] = reader.array().ok_or(TokenError::Malformed)?;
        // The tenant first: a token of another tenant tells nothing more
        // about the query it was issued for.
        if tenant != binding.tenant {
            return Err(TokenError::OtherTenant);
        }
        if pattern != binding.pattern.as_bytes() {
            return Err(TokenError::OtherPattern {
                token: String::from_utf8_lossy(pattern).into_owned(),
                query: binding.pattern,
            });
        }
        if parameters != binding.parameters {
            return Err(TokenError::OtherParameters);
        }
        if let Some(max_age) = self.inner.max_age {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs();
            let age = Duration::from_secs(now.saturating_sub(issued));
            if age > max_age {
                return Err(TokenError::Expired { age });
            }
        }
        let positions = read_positions(&mut reader).ok_or(TokenError::Malformed)?;
        if !reader.0.is_empty() {
            return Err(TokenError::Malformed);
        }
        Ok(Cursor::from_positions(positions))
    }
}

/// What a token is bound to: the pattern, the tenant and the parameters of
/// one query.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pattern: &'static str,
    /// SHA-256 of the tenant id (zeros for a query of no tenant), so the
    /// plain text never holds it.
    tenant: [u8; 32],
    /// SHA-256 of everything else that decides the results.
    parameters: [u8; 32],
}

impl Binding {
    pub(crate) fn of(request: &QueryRequest) -> Self {
        let tenant = match &request.tenant {
            Some(keys) => Sha256::digest(keys.tenant().as_bytes()).into(),
            None => [0; 32],
        };
        let mut h = Sha256::new();
        let mut buf = Vec::with_capacity(256);
        put_bytes(&mut buf, request.table.as_bytes());
        put_bytes(&mut buf, request.index.unwrap_or("").as_bytes());
        put_bytes(&mut buf, request.key_condition.as_bytes());
        put_bytes(&mut buf, request.filter.unwrap_or("").as_bytes());
        buf.push(u8::from(request.forward));
        buf.push(u8::from(request.ttl_attribute.is_some()));
        put_len(&mut buf, request.partitions.len());
        for values in &request.partitions {
            put_item(&mut buf, values);
        }
        put_item(&mut buf, &request.filter_values);
        h.update(&buf);
        Binding {
            pattern: request.pattern,
            tenant,
            parameters: h.finalize().into(),
        }
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// An item's scalar attributes in name order: `S`, `N` and `B`, what keys
/// and parameters hold. Other types are written by their type alone (they
/// do not occur in keys).
fn put_item(out: &mut Vec<u8>, item: &Item) {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort_unstable();
    put_len(out, names.len());
    for name in names {
        put_bytes(out, name.as_bytes());
        match &item[name] {
            AttributeValue::S(s) => {
                out.push(b'S');
                put_bytes(out, s.as_bytes());
            }
            AttributeValue::N(n) => {
                out.push(b'N');
                put_bytes(out, n.as_bytes());
            }
            AttributeValue::B(b) => {
                out.push(b'B');
                put_bytes(out, b.as_ref());
            }
            other => {
                out.push(b'?');
                put_bytes(out, format!("{other:?}").as_bytes());
            }
        }
    }
}

fn put_positions(out: &mut Vec<u8>, positions: &[Position]) {
    put_len(out, positions.len());
    for position in positions {
        match position {
            Position::Start => out.push(0),
            Position::Done => out.push(1),
            Position::After(key) => {
                out.push(2);
                put_item(out, key);
            }
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(u32::from_be_bytes(self.array()?)).ok()
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
}

fn read_positions(reader: &mut Reader<'_>) -> Option<Vec<Position>> {
    let count = reader.len()?;
    // Each position takes a byte at least: a count beyond the bytes left
    // is not allocated for.
    let mut positions = Vec::with_capacity(count.min(reader.0.len()));
    for _ in 0..count {
        positions.push(match reader.byte()? {
            0 => Position::Start,
            1 => Position::Done,
            2 => Position::After(read_item(reader)?),
            _ => return None,
        });
    }
    Some(positions)
}

fn read_item(reader: &mut Reader<'_>) -> Option<Item> {
    let count = reader.len()?;
    let mut item = Item::with_capacity(count.min(8));
    for _ in 0..count {
        let name = std::str::from_utf8(reader.bytes()?).ok()?.to_owned();
        let kind = reader.byte()?;
        let value = reader.bytes()?;
        let value = match kind {
            b'S' => AttributeValue::S(std::str::from_utf8(value).ok()?.to_owned()),
            b'N' => AttributeValue::N(std::str::from_utf8(value).ok()?.to_owned()),
            b'B' => AttributeValue::B(Blob::new(value)),
            _ => return None,
        };
        item.insert(name, value);
    }
    Some(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(pattern: &'static str, status: &str) -> QueryRequest {
        QueryRequest {
            pattern,
            table: "Tickets".to_owned(),
            index: Some("GSI1"),
            key_condition: "#pk = :pk",
            names: &[("#pk", "gsi1pk")],
            partitions: vec![Item::from([(
                ":pk".to_owned(),
                AttributeValue::S(format!("TENANT#acme|{status}")),
            )])],
            consistent_read: false,
            forward: true,
            ttl_attribute: None,
            sort_key: Some("gsi1sk"),
            key_attributes: &["pk", "sk", "gsi1pk", "gsi1sk"],
            tenant: None,
            projection: &[],
            filter: None,
            filter_values: Item::new(),
            filter_ranges: &[],
            point: false,
        }
    }

    fn cursor() -> Cursor {
        Cursor::from_positions(vec![
            Position::After(Item::from([
                (
                    "pk".to_owned(),
                    AttributeValue::S("TENANT#acme|T#1".to_owned()),
                ),
                ("n".to_owned(), AttributeValue::N("-12.5".to_owned())),
                ("b".to_owned(), AttributeValue::B(Blob::new([0, 255, 7]))),
            ])),
            Position::Done,
            Position::Start,
        ])
    }

    #[test]
    fn a_token_round_trips_and_hides_the_keys() {
        let tokens = PageTokens::new(&[1; 32]);
        let binding = Binding::of(&request("open_tickets", "OPEN"));
        let token = tokens.seal(&binding, &cursor());
        assert!(
            !token.contains("acme") && !token.contains("TENANT"),
            "{token}"
        );
        assert!(token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(tokens.open(&binding, &token), Ok(cursor()));
        // Two seals of one cursor differ (random nonces): tokens do not
        // tell a client that two pages end at the same place.
        assert_ne!(token, tokens.seal(&binding, &cursor()));
    }

    #[test]
    fn foreign_forged_and_stale_tokens_are_refused() {
        let tokens = PageTokens::new(&[1; 32]);
        let open = Binding::of(&request("open_tickets", "OPEN"));
        let token = tokens.seal(&open, &cursor());

        let other_pattern = Binding::of(&request("closed_tickets", "OPEN"));
        assert_eq!(
            tokens.open(&other_pattern, &token),
            Err(TokenError::OtherPattern {
                token: "open_tickets".to_owned(),
                query: "closed_tickets"
            })
        );
        let other_parameters = Binding::of(&request("open_tickets", "CLOSED"));
        assert_eq!(
            tokens.open(&other_parameters, &token),
            Err(TokenError::OtherParameters)
        );
        let mut other_tenant = open.clone();
        other_tenant.tenant = Sha256::digest(b"globex").into();
        assert_eq!(
            tokens.open(&other_tenant, &token),
            Err(TokenError::OtherTenant)
        );

        let stranger = PageTokens::new(&[2; 32]);
        assert_eq!(stranger.open(&open, &token), Err(TokenError::Forged));
        // Rotation: the old key still opens what it sealed.
        let rotated = PageTokens::new(&[2; 32]).with_previous_key(&[1; 32]);
        assert_eq!(rotated.open(&open, &token), Ok(cursor()));

        // Every single-bit change of the token is refused.
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(&token)
            .unwrap();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut altered = bytes.clone();
                altered[i] ^= 1 << bit;
                let altered = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(altered);
                let refused = tokens.open(&open, &altered);
                assert!(
                    matches!(refused, Err(TokenError::Forged | TokenError::Version(_))),
                    "byte {i} bit {bit}: {refused:?}"
                );
            }
        }
        for junk in ["", "a", "!!!!", "AQ", &"A".repeat(MAX_TOKEN + 1)] {
            assert!(
                matches!(
                    tokens.open(&open, junk),
                    Err(TokenError::Malformed | TokenError::Version(_))
                ),
                "{junk:.8}"
            );
        }

        let short = PageTokens::new(&[1; 32]).max_age(Duration::from_secs(60));
        // A token issued two minutes ago: sealed by hand with that time.
        let mut plain = Vec::new();
        let issued = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
            - 120;
        plain.extend_from_slice(&issued.to_be_bytes());
        put_bytes(&mut plain, open.pattern.as_bytes());
        plain.extend_from_slice(&open.tenant);
        plain.extend_from_slice(&open.parameters);
        put_positions(&mut plain, cursor().positions());
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = short
            .inner
            .current
            .encrypt(&nonce, plain.as_slice())
            .unwrap();
        let mut raw = vec![VERSION];
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&sealed);
        let old = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw);
        assert!(matches!(
            short.open(&open, &old),
            Err(TokenError::Expired { age }) if age >= Duration::from_secs(120)
        ));
        assert_eq!(tokens.open(&open, &old), Ok(cursor()));
    }
}

//! Paginated queries as streams.

use std::sync::Arc;

use futures_core::Stream;
use futures_util::stream::{self, StreamExt, TryStreamExt};

use crate::error::{DecodeError, Error};
use crate::sdk::primitives::DateTime;
use crate::sdk::Client;
use crate::Item;

/// Everything a Query request needs; generated code fills it in.
#[derive(Debug, Clone)]
pub struct QueryRequest {
    /// The table.
    pub table: String,
    /// The index, if not the base table.
    pub index: Option<&'static str>,
    /// `#pk = :pk AND begins_with(#sk, :sk)`.
    pub key_condition: &'static str,
    /// Expression attribute names.
    pub names: &'static [(&'static str, &'static str)],
    /// Expression attribute values, one map per partition queried (one per
    /// shard for sharded entities; the results are gathered).
    pub partitions: Vec<Item>,
    /// Strongly consistent reads (base table and local indexes only).
    pub consistent_read: bool,
    /// Ascending sort-key order.
    pub forward: bool,
    /// The table's TTL attribute: items whose TTL has passed are skipped.
    pub ttl_attribute: Option<&'static str>,
}

/// Decodes one item; `Ok(None)` skips it (an entity the pattern does not return).
pub type Decoder<T> = fn(&Item) -> Result<Option<T>, DecodeError>;

/// A query, run lazily as a stream of pages or items.
pub struct Query<T> {
    client: Client,
    request: Result<QueryRequest, Error>,
    decode: Decoder<T>,
    limit: Option<usize>,
    page_size: Option<i32>,
    start: Option<Item>,
}

/// One page of results.
#[derive(Debug)]
pub struct Page<T> {
    /// Items decoded from this page.
    pub items: Vec<T>,
    /// Items of this page that could not be decoded.
    pub errors: Vec<DecodeError>,
    /// Where the next page starts (single-partition queries); pass it to
    /// [`Query::starting_after`] to resume.
    pub last_evaluated_key: Option<Item>,
}

impl<T: Send + 'static> Query<T> {
    /// A query of `request`, decoding items with `decode`. When `request`
    /// is an error (a parameter that cannot be encoded), the stream yields
    /// that error and ends; no request is sent.
    pub fn new(client: Client, request: Result<QueryRequest, Error>, decode: Decoder<T>) -> Self {
        Query {
            client,
            request,
            decode,
            limit: None,
            page_size: None,
            start: None,
        }
    }

    /// Return at most `n` items in all.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Read at most `n` items per request.
    pub fn page_size(mut self, n: u32) -> Self {
        self.page_size = Some(i32::try_from(n.max(1)).unwrap_or(i32::MAX));
        self
    }

    /// Reverse the sort-key order.
    pub fn reverse(mut self) -> Self {
        if let Ok(request) = &mut self.request {
            request.forward = !request.forward;
        }
        self
    }

    /// Resume after a page's `last_evaluated_key`.
    pub fn starting_after(mut self, key: Item) -> Self {
        self.start = Some(key);
        self
    }

    /// The results page by page.
    pub fn pages(self) -> impl Stream<Item = Result<Page<T>, Error>> + Send + 'static {
        let Query {
            client,
            request,
            decode,
            limit,
            page_size,
            start,
        } = self;
        let request = match request {
            Ok(request) => request,
            Err(e) => return stream::once(futures_util::future::ready(Err(e))).boxed(),
        };
        let shared = Arc::new(Shared {
            client,
            names: crate::ops::names(request.names),
            request,
            decode,
            page_size,
        });
        let partitions: Vec<_> = (0..shared.request.partitions.len())
            .map(|partition| {
                partition_pages(shared.clone(), partition, start.clone(), limit).boxed()
            })
            .collect();
        let merged = stream::select_all(partitions);
        truncate(merged, limit).boxed()
    }

    /// The results item by item; undecodable items are `Err` and the stream goes on.
    pub fn items(self) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        self.pages().flat_map(|page| {
            let results: Vec<Result<T, Error>> = match page {
                Ok(Page { items, errors, .. }) => items
                    .into_iter()
                    .map(Ok)
                    .chain(errors.into_iter().map(|e| Err(Error::Decode(e))))
                    .collect(),
                Err(e) => vec![Err(e)],
            };
            stream::iter(results)
        })
    }

    /// Every result; fails on the first error.
    pub async fn all(self) -> Result<Vec<T>, Error> {
        self.items().try_collect().await
    }

    /// The first result, if any.
    pub async fn first(self) -> Result<Option<T>, Error> {
        let items = self.limit(1).all().await?;
        Ok(items.into_iter().next())
    }
}

struct Shared<T> {
    client: Client,
    request: QueryRequest,
    /// `request.names` as the SDK takes them, built once for every page.
    names: std::collections::HashMap<String, String>,
    decode: Decoder<T>,
    page_size: Option<i32>,
}

struct Cursor {
    next: Option<Item>,
    remaining: Option<usize>,
    done: bool,
}

fn partition_pages<T: Send + 'static>(
    shared: Arc<Shared<T>>,
    partition: usize,
    start: Option<Item>,
    limit: Option<usize>,
) -> impl Stream<Item = Result<Page<T>, Error>> + Send + 'static {
    let cursor = Cursor {
        next: start,
        remaining: limit,
        done: limit == Some(0),
    };
    stream::unfold(cursor, move |cursor| {
        let shared = shared.clone();
        async move {
            if cursor.done {
                return None;
            }
            match fetch(&shared, partition, &cursor).await {
                Ok((page, next)) => {
                    let remaining = cursor.remaining.map(|r| r.saturating_sub(page.items.len()));
                    let done = next.is_none() || remaining == Some(0);
                    Some((
                        Ok(page),
                        Cursor {
                            next,
                            remaining,
                            done,
                        },
                    ))
                }
                Err(e) => Some((
                    Err(e),
                    Cursor {
                        done: true,
                        ..cursor
                    },
                )),
            }
        }
    })
}

async fn fetch<T>(
    shared: &Shared<T>,
    partition: usize,
    cursor: &Cursor,
) -> Result<(Page<T>, Option<Item>), Error> {
    let request = &shared.request;
    let page_limit = match (cursor.remaining, shared.page_size) {
        (Some(r), Some(p)) => Some(p.min(i32::try_from(r).unwrap_or(i32::MAX))),
        (None, p) => p,
        (Some(_), None) => None,
    };
    let output = shared
        .client
        .query()
        .table_name(&request.table)
        .set_index_name(request.index.map(str::to_owned))
        .key_condition_expression(request.key_condition)
        .set_expression_attribute_names(Some(shared.names.clone()))
        .set_expression_attribute_values(Some(request.partitions[partition].clone()))
        .consistent_read(request.consistent_read)
        .scan_index_forward(request.forward)
        .set_limit(page_limit)
        .set_exclusive_start_key(cursor.next.clone())
        .send()
        .await?;
    let now = DateTime::from(std::time::SystemTime::now());
    let mut page = Page {
        items: Vec::new(),
        errors: Vec::new(),
        last_evaluated_key: output.last_evaluated_key.clone(),
    };
    for item in output.items.unwrap_or_default() {
        if let Some(ttl) = request.ttl_attribute {
            if crate::codec::is_expired(&item, ttl, now) {
                continue;
            }
        }
        match (shared.decode)(&item) {
            Ok(Some(value)) => page.items.push(value),
            Ok(None) => {}
            Err(e) => page.errors.push(e),
        }
    }
    if let Some(r) = cursor.remaining {
        page.items.truncate(r);
    }
    Ok((page, output.last_evaluated_key))
}

fn truncate<T: Send + 'static>(
    pages: impl Stream<Item = Result<Page<T>, Error>> + Send + 'static,
    limit: Option<usize>,
) -> impl Stream<Item = Result<Page<T>, Error>> + Send + 'static {
    pages.scan(limit, |remaining, page| {
        let out = match (remaining.as_mut(), page) {
            (Some(0), _) => None,
            (Some(r), Ok(mut page)) => {
                page.items.truncate(*r);
                *r -= page.items.len();
                Some(Ok(page))
            }
            (_, page) => Some(page),
        };
        futures_util::future::ready(out)
    })
}

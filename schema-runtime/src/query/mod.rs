//! Paginated queries as streams.

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use futures_core::Stream;
use futures_util::stream::{self, StreamExt, TryStreamExt};

use crate::cursor::{Cursor, Position};
use crate::error::{DecodeError, Error, ForeignItem, ForeignReason};
use crate::isolation::TenantKeys;
use crate::sdk::primitives::DateTime;
use crate::sdk::types::AttributeValue;
use crate::sdk::types::ReturnConsumedCapacity;
use crate::sdk::Client;
use crate::token::{Binding, PageTokens};
use crate::trace::Call;
use crate::Item;

mod merge;

use merge::*;

/// Everything a Query request needs; generated code fills it in, and
/// leaves the fields it does not use at their default.
#[derive(Debug, Clone, Default)]
pub struct QueryRequest {
    /// The access pattern, as the spec names it (page tokens are bound to it).
    pub pattern: &'static str,
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
    /// The sort-key attribute of the table or index queried: results from
    /// several partitions are merged in its order.
    pub sort_key: Option<&'static str>,
    /// The attributes of an item's position in the table or index (table
    /// keys, and the index's keys when querying an index): what
    /// [`Cursor`]s record.
    pub key_attributes: &'static [&'static str],
    /// For a query of a tenant's handle, the tenant's table partition keys:
    /// every item returned and every cursor position must have one. An
    /// index key names a tenant only because the writer said so; the table
    /// partition key is the one IAM confines writes to.
    pub tenant: Option<TenantKeys>,
    /// The attributes to read (a ProjectionExpression); empty: every
    /// attribute the table or index holds.
    pub projection: &'static [&'static str],
    /// The filter (a FilterExpression over `names`), applied by DynamoDB
    /// after the key condition read the items.
    pub filter: Option<&'static str>,
    /// The filter's operands (`:f0_0`, …), sent with every partition's.
    pub filter_values: Item,
    /// The operands of each `BETWEEN` of the filter, `(lower, upper)`.
    pub filter_ranges: &'static [(&'static str, &'static str)],
    /// Every partition's key condition names one whole primary key of the
    /// table (`#pk = :pk AND #sk = :sk`, or `#pk = :pk` without a sort key),
    /// with no filter and no projection: each partition holds at most that
    /// one item, and the partitions of a sharded query are read together
    /// with BatchGetItem (100 keys a request) instead of one Query each.
    /// Generated code sets it exactly where the generated IAM policies grant
    /// BatchGetItem; elsewhere it must stay `false`, or the read is denied.
    pub point: bool,
}

/// Decodes one item; `Ok(None)` skips it (an entity the pattern does not return).
pub type Decoder<T> = fn(&Item) -> Result<Option<T>, DecodeError>;

/// How many partitions a query reads at once unless told otherwise: every
/// shard of a sharded entity up to this many. The ordered merge holds a page
/// of every partition anyway, so reading fewer at once saves no memory and
/// only adds round trips; the bound keeps the connections a query opens in
/// check.
pub const DEFAULT_CONCURRENCY: usize = 32;

/// A query, run lazily as a stream of pages or items.
///
/// A query of a sharded entity reads every shard's partition, at most
/// [`concurrency`](Query::concurrency) at a time, and merges the results in
/// sort-key order (reversed by [`reverse`](Query::reverse)), so a sharded
/// query returns what one unsharded partition would. Every page carries a
/// [`Cursor`] that resumes after the page's last item in every shard.
pub struct Query<T> {
    client: Client,
    request: Result<QueryRequest, Error>,
    decode: Decoder<T>,
    limit: Option<usize>,
    page_size: Option<i32>,
    concurrency: usize,
    start: Option<Cursor>,
    tokens: Option<PageTokens>,
    start_token: Option<String>,
    item_cursors: bool,
}

/// One page of results.
#[derive(Debug)]
#[non_exhaustive]
pub struct Page<T> {
    /// Items decoded from this page.
    pub items: Vec<T>,
    /// Items of this page that were not returned: undecodable ones
    /// ([`Error::Decode`]) and ones refused as another tenant's or outside
    /// the partition queried ([`Error::ForeignItem`]).
    pub errors: Vec<Error>,
    /// Where the rest begins; `None` after the last page. Pass it to
    /// [`Query::starting_after`] to resume.
    pub next: Option<Cursor>,
    /// `next` sealed as a page token, when the query was given keys
    /// ([`Query::with_tokens`]): what an HTTP API hands its client.
    pub next_token: Option<String>,
    /// With [`Query::item_cursors`], the cursor after each item of `items`
    /// (GraphQL connections' edge cursors): resuming from `item_cursors[i]`
    /// returns what follows `items[i]`.
    pub item_cursors: Vec<Cursor>,
    /// `item_cursors` sealed as page tokens, when the query was given keys.
    pub item_tokens: Vec<String>,
    /// The read capacity units the requests of this page consumed (every
    /// partition read for it), as DynamoDB reported them. A last request
    /// that finds nothing more, and the requests of a round that failed,
    /// are on no page: the call's span (feature `tracing`) counts them.
    pub consumed_capacity: f64,
}

impl<T> Page<T> {
    /// A page with nothing on it yet, `consumed_capacity` already spent.
    fn empty(consumed_capacity: f64) -> Self {
        Page {
            items: Vec::new(),
            errors: Vec::new(),
            next: None,
            next_token: None,
            item_cursors: Vec::new(),
            item_tokens: Vec::new(),
            consumed_capacity,
        }
    }
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
            concurrency: DEFAULT_CONCURRENCY,
            start: None,
            tokens: None,
            start_token: None,
            item_cursors: false,
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

    /// Read at most `n` partitions (shards) at once; at least 1. The default
    /// is [`DEFAULT_CONCURRENCY`].
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Reverse the sort-key order.
    pub fn reverse(mut self) -> Self {
        if let Ok(request) = &mut self.request {
            request.forward = !request.forward;
        }
        self
    }

    /// Also return items whose time to live has passed. DynamoDB deletes
    /// expired items lazily, up to days later, and queries skip them by
    /// default; a job that must see every stored item (deleting all of a
    /// user's sessions, a migration) asks for them too.
    pub fn include_expired(mut self) -> Self {
        if let Ok(request) = &mut self.request {
            request.ttl_attribute = None;
        }
        self
    }

    /// Resume where a page's [`next`](Page::next) cursor points. The cursor
    /// is checked before any request: one of another query, index,
    /// partition or tenant, or a forged one, is an [`Error::Cursor`].
    pub fn starting_after(mut self, cursor: Cursor) -> Self {
        self.start = Some(cursor);
        self
    }

    /// Seal each page's cursor as an opaque token ([`Page::next_token`],
    /// and [`Page::item_tokens`] with [`item_cursors`](Query::item_cursors))
    /// bound to this access pattern, its tenant and its parameters.
    pub fn with_tokens(mut self, tokens: &PageTokens) -> Self {
        self.tokens = Some(tokens.clone());
        self
    }

    /// Resume where a page token of this query points, and seal the pages'
    /// cursors as tokens too. The token is opened before any request: an
    /// altered one, one of another pattern, tenant or parameter set, or an
    /// expired one is an [`Error::Token`]; its cursor is then checked as
    /// [`starting_after`](Query::starting_after) checks one.
    pub fn after_token(mut self, tokens: &PageTokens, token: &str) -> Self {
        self.tokens = Some(tokens.clone());
        self.start_token = Some(token.to_owned());
        self
    }

    /// Give each page the cursor after every item ([`Page::item_cursors`]),
    /// for connections whose edges each carry a cursor.
    pub fn item_cursors(mut self) -> Self {
        self.item_cursors = true;
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
            concurrency,
            start,
            tokens,
            start_token,
            item_cursors,
        } = self;
        let request = match request {
            Ok(request) => request,
            Err(e) => return stream::once(futures_util::future::ready(Err(e))).boxed(),
        };
        let tokens = tokens.map(|keys| (keys, Binding::of(&request)));
        let start = match (start_token, &tokens) {
            (Some(token), Some((keys, binding))) => match keys.open(binding, &token) {
                Ok(cursor) => Some(cursor),
                Err(e) => {
                    return stream::once(futures_util::future::ready(Err(Error::Token(e)))).boxed()
                }
            },
            _ => start,
        };
        let pk_attribute = request
            .names
            .iter()
            .find(|(placeholder, _)| *placeholder == "#pk")
            .map(|(_, attribute)| *attribute);
        let positions = match start {
            None => vec![Position::Start; request.partitions.len()],
            Some(cursor) => match cursor.into_positions(&request, pk_attribute) {
                Ok(positions) => positions,
                Err(e) => {
                    return stream::once(futures_util::future::ready(Err(Error::Cursor(e)))).boxed()
                }
            },
        };
        let call = Call::query(
            request.pattern,
            &request.table,
            request.index,
            request.partitions.len(),
        );
        let shared = Arc::new(Shared {
            call,
            client,
            pk_attribute,
            names: {
                let mut names = crate::ops::names(request.names);
                names.extend(crate::ops::projection_names(request.projection));
                names
            },
            projection: crate::ops::projection_expression(request.projection),
            request,
            decode,
            page_size,
            concurrency,
            tokens,
            item_cursors,
        });
        let partitions = positions
            .into_iter()
            .enumerate()
            .map(|(index, position)| Partition {
                buffer: VecDeque::new(),
                next: match &position {
                    Position::After(key) => Some(key.clone()),
                    _ => None,
                },
                fetched: matches!(position, Position::Done) || shared.request.empty_range(index),
                position,
            })
            .collect();
        let state = State {
            shared,
            partitions,
            remaining: limit,
            failed: false,
            capacity: 0.0,
        };
        stream::unfold(state, |mut state| async move {
            let call = state.shared.call.clone();
            let page = crate::trace::within(&call, state.next_page()).await?;
            if let Ok(page) = &page {
                call.page(page.items.len());
            }
            Some((page, state))
        })
        .boxed()
    }

    /// The results item by item; undecodable and refused items are `Err` and the stream goes on.
    pub fn items(self) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        self.pages()
            .flat_map(|page| results(page.map(|p| (p.items, p.errors))))
    }

    /// Every result; fails on the first error.
    pub async fn all(self) -> Result<Vec<T>, Error> {
        self.items().try_collect().await
    }

    /// One page of at most `limit` items (at least 1), as an HTTP list
    /// hands it out: from the start, or after `token` (a
    /// [`Page::next_token`] this query handed out before). The page's
    /// `next_token` resumes after its last item; it is `None` once the
    /// query has nothing more. Items that did not decode or were refused
    /// are in [`Page::errors`], not in `items`, and do not count toward
    /// `limit`. Tokens are sealed with the repository's keys
    /// (`Repository::with_page_tokens`) or those of
    /// [`with_tokens`](Query::with_tokens); without keys the call fails
    /// with [`Error::NoPageKeys`] before any request. An altered, foreign
    /// or expired token is an [`Error::Token`], also before any request.
    pub async fn page(self, limit: usize, token: Option<&str>) -> Result<Page<T>, Error> {
        let Some(keys) = self.tokens.clone() else {
            let pattern = self.request.as_ref().map_or("query", |r| r.pattern);
            return Err(Error::NoPageKeys { pattern });
        };
        let query = match token {
            Some(token) => self.after_token(&keys, token),
            None => self,
        };
        let mut pages = std::pin::pin!(query.limit(limit.max(1)).pages());
        let mut whole = Page::empty(0.0);
        while let Some(page) = pages.next().await {
            let page = page?;
            whole.items.extend(page.items);
            whole.errors.extend(page.errors);
            whole.item_cursors.extend(page.item_cursors);
            whole.item_tokens.extend(page.item_tokens);
            whole.consumed_capacity += page.consumed_capacity;
            whole.next = page.next;
            whole.next_token = page.next_token;
        }
        Ok(whole)
    }

    /// The first result, if any.
    pub async fn first(self) -> Result<Option<T>, Error> {
        let items = self.limit(1).all().await?;
        Ok(items.into_iter().next())
    }
}

impl QueryRequest {
    /// Whether partition `index` holds nothing the query returns, by its
    /// bounds alone: a sort-key `BETWEEN` (`:sk0`, `:sk1`), or a filter's
    /// `BETWEEN`, whose lower bound sorts after its upper bound. DynamoDB
    /// refuses such a request with a ValidationException where the range is
    /// simply empty, so it is not sent and the partition reads as empty.
    fn empty_range(&self, index: usize) -> bool {
        let Some(values) = self.partitions.get(index) else {
            return false;
        };
        let key_range = match (values.get(":sk0"), values.get(":sk1")) {
            (Some(low), Some(high)) => descending(low, high),
            _ => false,
        };
        key_range || reversed_range(&self.filter_values, self.filter_ranges)
    }
}

/// A page's items and errors (or the error of the whole page), one
/// result each, items first.
pub(crate) fn results<T>(
    page: Result<(Vec<T>, Vec<Error>), Error>,
) -> stream::Iter<std::vec::IntoIter<Result<T, Error>>> {
    let results: Vec<Result<T, Error>> = match page {
        Ok((items, errors)) => items
            .into_iter()
            .map(Ok)
            .chain(errors.into_iter().map(Err))
            .collect(),
        Err(e) => vec![Err(e)],
    };
    stream::iter(results)
}

/// Whether a `BETWEEN` of a filter, `(lower, upper)` operands of
/// `values`, has its bounds reversed: it holds for no item.
pub(crate) fn reversed_range(values: &Item, ranges: &[(&str, &str)]) -> bool {
    ranges
        .iter()
        .any(|(low, high)| match (values.get(*low), values.get(*high)) {
            (Some(low), Some(high)) => descending(low, high),
            _ => false,
        })
}

/// Whether `low` sorts after `high` in DynamoDB's order: strings and
/// binaries by their bytes (as Rust's `str` and slices compare), numbers
/// by value.
pub(crate) fn descending(low: &AttributeValue, high: &AttributeValue) -> bool {
    match (low, high) {
        (AttributeValue::S(low), AttributeValue::S(high)) => low > high,
        (AttributeValue::B(low), AttributeValue::B(high)) => low.as_ref() > high.as_ref(),
        (AttributeValue::N(low), AttributeValue::N(high)) => {
            singletable_codec::compare_decimal(low, high) == Some(std::cmp::Ordering::Greater)
        }
        _ => false,
    }
}

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
            match (
                low.parse::<crate::Decimal>(),
                high.parse::<crate::Decimal>(),
            ) {
                (Ok(low), Ok(high)) => low > high,
                _ => false,
            }
        }
        _ => false,
    }
}

struct Shared<T> {
    /// The call's span.
    call: Call,
    client: Client,
    /// The partition-key attribute queried (`#pk`): every item returned must
    /// hold the partition's value in it.
    pk_attribute: Option<&'static str>,
    request: QueryRequest,
    /// `request.names` as the SDK takes them, built once for every page.
    names: HashMap<String, String>,
    /// `request.projection` as an expression.
    projection: Option<String>,
    decode: Decoder<T>,
    page_size: Option<i32>,
    concurrency: usize,
    /// The keys and binding page tokens are sealed with.
    tokens: Option<(PageTokens, Binding)>,
    item_cursors: bool,
}

impl<T> Shared<T> {
    /// `Ok` when `item`, read from partition `index`, may be returned: it is
    /// the querying tenant's, and in the partition queried.
    fn admit(&self, item: &Item, index: usize) -> Result<(), ForeignItem> {
        if let Some(tenant) = &self.request.tenant {
            tenant.check(item, "query")?;
        }
        if let Some(pk) = self.pk_attribute {
            let expected = self.request.partitions[index].get(":pk");
            if expected.is_some() && item.get(pk) != expected {
                return Err(ForeignItem {
                    operation: "query",
                    attribute: pk.to_owned(),
                    reason: ForeignReason::OtherPartition,
                });
            }
        }
        Ok(())
    }
}

/// One partition's read state.
struct Partition {
    /// Items read and not yet returned, in the order read.
    buffer: VecDeque<Item>,
    /// Where the next request starts.
    next: Option<Item>,
    /// The last request returned no `LastEvaluatedKey`: nothing more to read.
    fetched: bool,
    /// What a cursor records: after the last item returned.
    position: Position,
}

impl Partition {
    /// Needs a request before its next item can be known.
    fn starved(&self) -> bool {
        self.buffer.is_empty() && !self.fetched
    }
}

struct State<T> {
    shared: Arc<Shared<T>>,
    partitions: Vec<Partition>,
    remaining: Option<usize>,
    failed: bool,
    /// Capacity consumed by requests not yet reported on a page.
    capacity: f64,
}

impl<T: Send + 'static> State<T> {
    /// The next page: reads every starved partition (a bounded number at a
    /// time), then returns items while every partition that may hold more
    /// has one buffered, smallest sort key first.
    async fn next_page(&mut self) -> Option<Result<Page<T>, Error>> {
        if self.failed || self.remaining == Some(0) {
            return None;
        }
        if let Err(e) = self.fill().await {
            self.failed = true;
            return Some(Err(e));
        }
        // Done when nothing is buffered and nothing is left to read; a page
        // that came back empty but with more to read is not the end.
        if self
            .partitions
            .iter()
            .all(|p| p.buffer.is_empty() && p.fetched)
        {
            return None;
        }
        let shared = self.shared.clone();
        let now = DateTime::from(std::time::SystemTime::now());
        let mut page = Page {
            items: Vec::new(),
            errors: Vec::new(),
            next: None,
            next_token: None,
            item_cursors: Vec::new(),
            item_tokens: Vec::new(),
            consumed_capacity: std::mem::take(&mut self.capacity),
        };
        while self.remaining != Some(0) {
            // Stop when a partition that may hold smaller keys has run dry.
            if self.partitions.iter().any(Partition::starved) {
                break;
            }
            let Some(index) = self.smallest() else {
                break;
            };
            let partition = &mut self.partitions[index];
            let Some(item) = partition.buffer.pop_front() else {
                break;
            };
            // Defence in depth: an item of another tenant, or outside the
            // partition asked for, is refused whatever returned it. A cursor
            // never points at it (it would be refused in turn): resuming
            // reads past it again.
            if let Err(e) = shared.admit(&item, index) {
                page.errors.push(Error::ForeignItem(e));
                if partition.buffer.is_empty() && partition.fetched {
                    partition.position = Position::Done;
                }
                continue;
            }
            partition.position = Position::After(key_of(&item, shared.request.key_attributes));
            if partition.buffer.is_empty() && partition.fetched {
                partition.position = Position::Done;
            }
            if let Some(ttl) = shared.request.ttl_attribute {
                if crate::codec::is_expired(&item, ttl, now) {
                    continue;
                }
            }
            match (shared.decode)(&item) {
                Ok(Some(value)) => {
                    page.items.push(value);
                    if shared.item_cursors {
                        page.item_cursors.push(self.cursor());
                    }
                    if let Some(r) = &mut self.remaining {
                        *r -= 1;
                    }
                }
                Ok(None) => {}
                Err(e) => page.errors.push(Error::Decode(e)),
            }
        }
        // After the limit too, so the caller can resume where it stopped.
        let cursor = self.cursor();
        page.next = (!cursor.is_done()).then_some(cursor);
        if let Some((keys, binding)) = &shared.tokens {
            page.next_token = page.next.as_ref().map(|c| keys.seal(binding, c));
            page.item_tokens = page
                .item_cursors
                .iter()
                .map(|c| keys.seal(binding, c))
                .collect();
        }
        Some(Ok(page))
    }

    /// Where every partition stands: after the last item returned.
    fn cursor(&self) -> Cursor {
        Cursor::from_positions(self.partitions.iter().map(|p| p.position.clone()).collect())
    }

    /// The partition whose next item comes first in the requested order.
    fn smallest(&self) -> Option<usize> {
        let sort_key = self.shared.request.sort_key;
        let forward = self.shared.request.forward;
        let mut best: Option<(usize, &Item)> = None;
        for (index, partition) in self.partitions.iter().enumerate() {
            let Some(item) = partition.buffer.front() else {
                continue;
            };
            best = match best {
                None => Some((index, item)),
                Some((b, current)) => {
                    let order = match sort_key {
                        Some(attribute) => compare(item.get(attribute), current.get(attribute)),
                        None => Ordering::Equal,
                    };
                    let order = if forward { order } else { order.reverse() };
                    if order == Ordering::Less {
                        Some((index, item))
                    } else {
                        Some((b, current))
                    }
                }
            };
        }
        best.map(|(index, _)| index)
    }

    /// Reads the next page of every starved partition, `concurrency` at a time.
    async fn fill(&mut self) -> Result<(), Error> {
        self.fill_points().await?;
        let starved: Vec<(usize, Option<Item>)> = self
            .partitions
            .iter()
            .enumerate()
            .filter(|(_, p)| p.starved())
            .map(|(i, p)| (i, p.next.clone()))
            .collect();
        if starved.is_empty() {
            return Ok(());
        }
        let shared = self.shared.clone();
        let remaining = self.remaining;
        let mut results = stream::iter(starved)
            .map(|(index, start)| {
                let shared = shared.clone();
                async move { (index, fetch(&shared, index, start, remaining).await) }
            })
            .buffer_unordered(shared.concurrency);
        let mut first_error = None;
        while let Some((index, result)) = results.next().await {
            match result {
                Ok((items, next, units)) => {
                    self.capacity += units;
                    shared.call.capacity(units);
                    let partition = &mut self.partitions[index];
                    partition.fetched = next.is_none();
                    partition.next = next;
                    partition.buffer.extend(items);
                    if partition.buffer.is_empty() && partition.fetched {
                        partition.position = Position::Done;
                    }
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl<T: Send + 'static> State<T> {
    /// For a [`point`](QueryRequest::point) query of several partitions,
    /// reads every partition not read yet with BatchGetItem: one request of
    /// up to 100 keys rather than a Query per partition, each of which
    /// could return that one item only. A key DynamoDB leaves unprocessed
    /// keeps its partition starved, and the partition is queried as any
    /// other.
    async fn fill_points(&mut self) -> Result<(), Error> {
        let shared = self.shared.clone();
        let request = &shared.request;
        if !request.point || request.filter.is_some() || !request.projection.is_empty() {
            return Ok(());
        }
        let fresh: Vec<usize> = (0..self.partitions.len())
            .filter(|&i| self.partitions[i].starved() && self.partitions[i].next.is_none())
            .filter(|&i| !request.empty_range(i))
            .collect();
        if fresh.len() < 2 {
            return Ok(());
        }
        let attribute = |name: &str| shared.names.get(name).cloned();
        let (Some(pk), sk) = (attribute("#pk"), attribute("#sk")) else {
            return Ok(());
        };
        let mut keys: Vec<(usize, Item)> = Vec::with_capacity(fresh.len());
        for &i in &fresh {
            let values = &request.partitions[i];
            let mut key = Item::with_capacity(2);
            let Some(pk_value) = values.get(":pk") else {
                return Ok(());
            };
            key.insert(pk.clone(), pk_value.clone());
            if let Some(sk) = &sk {
                let Some(sk_value) = values.get(":sk") else {
                    return Ok(());
                };
                key.insert(sk.clone(), sk_value.clone());
            }
            keys.push((i, key));
        }
        for chunk in keys.chunks(crate::batch::MAX_BATCH_GET) {
            let requested: Vec<Item> = chunk.iter().map(|(_, k)| k.clone()).collect();
            let ask = crate::sdk::types::KeysAndAttributes::builder()
                .set_keys(Some(requested.clone()))
                .consistent_read(request.consistent_read)
                .build()?;
            shared.call.request();
            let output = shared
                .client
                .batch_get_item()
                .request_items(&request.table, ask)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await?;
            let units = crate::trace::total_units(output.consumed_capacity());
            self.capacity += units;
            shared.call.capacity(units);
            let unprocessed: Vec<Item> = output
                .unprocessed_keys
                .and_then(|mut m| m.remove(&request.table))
                .map(|k| k.keys)
                .unwrap_or_default();
            for item in output
                .responses
                .and_then(|mut m| m.remove(&request.table))
                .unwrap_or_default()
            {
                crate::isolation::check_requested(&item, &requested, "query")?;
                if let Some((i, _)) = chunk.iter().find(|(_, k)| same_key(&item, k)) {
                    self.partitions[*i].buffer.push_back(item);
                }
            }
            for (i, key) in chunk {
                if unprocessed.iter().any(|u| same_key(u, key)) {
                    continue;
                }
                let partition = &mut self.partitions[*i];
                partition.fetched = true;
                if partition.buffer.is_empty() {
                    partition.position = Position::Done;
                }
            }
        }
        Ok(())
    }
}

/// Whether `item` has every attribute of `key` with the same value.
fn same_key(item: &Item, key: &Item) -> bool {
    key.iter()
        .all(|(name, value)| item.get(name) == Some(value))
}

/// One Query request of partition `index`, starting after `start`: the
/// items, where the next request starts, and the capacity units consumed.
async fn fetch<T>(
    shared: &Shared<T>,
    index: usize,
    start: Option<Item>,
    remaining: Option<usize>,
) -> Result<(Vec<Item>, Option<Item>, f64), Error> {
    let request = &shared.request;
    let page_limit = match (remaining, shared.page_size) {
        (Some(r), Some(p)) => Some(p.min(i32::try_from(r).unwrap_or(i32::MAX))),
        (Some(r), None) => Some(i32::try_from(r).unwrap_or(i32::MAX)),
        (None, p) => p,
    };
    shared.call.request();
    let mut values = request.partitions[index].clone();
    values.extend(
        request
            .filter_values
            .iter()
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let output = shared
        .client
        .query()
        .table_name(&request.table)
        .set_index_name(request.index.map(str::to_owned))
        .key_condition_expression(request.key_condition)
        .set_expression_attribute_names(Some(shared.names.clone()))
        .set_expression_attribute_values(Some(values))
        .set_projection_expression(shared.projection.clone())
        .set_filter_expression(request.filter.map(str::to_owned))
        .consistent_read(request.consistent_read)
        .scan_index_forward(request.forward)
        .set_limit(page_limit)
        .set_exclusive_start_key(start)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await?;
    let units = crate::trace::units(output.consumed_capacity());
    Ok((
        output.items.unwrap_or_default(),
        output.last_evaluated_key,
        units,
    ))
}

/// The key attributes of `item`: where a query resumes after it.
fn key_of(item: &Item, attributes: &[&str]) -> Item {
    attributes
        .iter()
        .filter_map(|a| item.get(*a).map(|v| ((*a).to_owned(), v.clone())))
        .collect()
}

/// DynamoDB's order of sort-key values: strings and binaries by their
/// bytes, numbers by value. Missing values sort first.
fn compare(a: Option<&AttributeValue>, b: Option<&AttributeValue>) -> Ordering {
    match (a, b) {
        (Some(AttributeValue::S(a)), Some(AttributeValue::S(b))) => a.as_bytes().cmp(b.as_bytes()),
        (Some(AttributeValue::B(a)), Some(AttributeValue::B(b))) => a.as_ref().cmp(b.as_ref()),
        (Some(AttributeValue::N(a)), Some(AttributeValue::N(b))) => compare_numbers(a, b),
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// Compares two DynamoDB numbers exactly (as canonical decimals).
fn compare_numbers(a: &str, b: &str) -> Ordering {
    let (Ok(a), Ok(b)) = (a.parse::<crate::Decimal>(), b.parse::<crate::Decimal>()) else {
        return a.cmp(b);
    };
    let split = |d: &str| -> (bool, String, String) {
        let (negative, digits) = match d.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, d),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        (
            negative,
            int.trim_start_matches('0').to_owned(),
            frac.to_owned(),
        )
    };
    let (an, ai, af) = split(a.as_str());
    let (bn, bi, bf) = split(b.as_str());
    let magnitude = ai
        .len()
        .cmp(&bi.len())
        .then_with(|| ai.cmp(&bi))
        .then_with(|| af.cmp(&bf));
    match (an, bn) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_by_value() {
        let cases = [
            ("2", "10", Ordering::Less),
            ("-2", "-10", Ordering::Greater),
            ("-1", "0.5", Ordering::Less),
            ("0.5", "0.25", Ordering::Greater),
            ("1.50", "1.5", Ordering::Equal),
            ("100", "99.999", Ordering::Greater),
            ("0", "-0", Ordering::Equal),
        ];
        for (a, b, expected) in cases {
            assert_eq!(compare_numbers(a, b), expected, "{a} vs {b}");
        }
    }

    #[test]
    fn strings_compare_by_bytes_and_missing_values_first() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        assert_eq!(compare(Some(&s("B")), Some(&s("a"))), Ordering::Less);
        assert_eq!(compare(Some(&s("a")), Some(&s("ab"))), Ordering::Less);
        assert_eq!(compare(None, Some(&s(""))), Ordering::Less);
    }
}

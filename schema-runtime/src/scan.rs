//! Scans: every item of a table or index, in parallel segments, as a
//! stream of pages. A scan belongs to admin and batch jobs on global data
//! (the checker refuses scans of tenant-scoped entities and warns on every
//! scan); it reads and bills every item, and returns those of its entity.

use futures_core::Stream;
use futures_util::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;

use crate::cursor::check_key_attributes;
use crate::error::{CursorError, Error};
use crate::query::{results, reversed_range, Decoder, DEFAULT_CONCURRENCY};
use crate::sdk::Client;
use crate::trace::Call;
use crate::Item;

/// Everything a Scan request needs; generated code fills it in, and
/// leaves the fields it does not use at their default.
#[derive(Debug, Clone, Default)]
pub struct ScanRequest {
    /// The access pattern (named in the call's span).
    pub pattern: &'static str,
    /// The table.
    pub table: String,
    /// The index, if not the base table.
    pub index: Option<&'static str>,
    /// Expression attribute names (the filter's).
    pub names: &'static [(&'static str, &'static str)],
    /// Strongly consistent reads (base table and local indexes only).
    pub consistent_read: bool,
    /// The table's TTL attribute: items whose TTL has passed are skipped.
    pub ttl_attribute: Option<&'static str>,
    /// The attributes of an item's position in the table or index: what a
    /// [`ScanCursor`] records.
    pub key_attributes: &'static [&'static str],
    /// The filter (a FilterExpression over `names`).
    pub filter: Option<&'static str>,
    /// The filter's operands (`:f0_0`, …).
    pub filter_values: Item,
    /// The operands of each `BETWEEN` of the filter, `(lower, upper)`: a
    /// reversed one holds for no item, so nothing is read.
    pub filter_ranges: &'static [(&'static str, &'static str)],
}

/// Where a segment of a scan goes on: pass it to [`Scan::starting_after`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScanCursor {
    /// The segment.
    pub segment: u32,
    /// The number of segments the scan was split into.
    pub total: u32,
    /// The key of the last item read (`LastEvaluatedKey`).
    pub key: Item,
}

/// One page of one segment.
#[derive(Debug)]
pub struct ScanPage<T> {
    /// The segment the page is of.
    pub segment: u32,
    /// Items decoded from this page (items of other entities are skipped).
    pub items: Vec<T>,
    /// Items of this page that did not decode ([`Error::Decode`]).
    pub errors: Vec<Error>,
    /// Where the rest of the segment begins; `None` after its last page.
    pub next: Option<ScanCursor>,
    /// The position of each of `items`, so that a page cut short by a
    /// limit resumes after its last item kept.
    positions: Vec<Item>,
    /// The number of segments of the scan.
    total: u32,
    /// The read capacity units the page's request consumed.
    consumed_capacity: f64,
}

impl<T> ScanPage<T> {
    /// The read capacity units the page's request consumed, as DynamoDB
    /// reported them (the items the filter dropped count too).
    pub fn consumed_capacity(&self) -> f64 {
        self.consumed_capacity
    }
}

/// DynamoDB's bound on `TotalSegments`.
pub const MAX_SEGMENTS: u32 = 1_000_000;

/// A scan, run lazily: [`all`](Scan::all), [`items`](Scan::items) or
/// [`pages`](Scan::pages). By default one segment; [`segments`](Scan::segments)
/// reads `n` at once, [`segment`](Scan::segment) one of `n` (one worker's
/// share of a job spread over several).
pub struct Scan<T> {
    client: Client,
    request: Result<ScanRequest, Error>,
    decode: Decoder<T>,
    /// `(first, end, total)`: segments `first..end` of `total`.
    segments: (u32, u32, u32),
    start: Option<ScanCursor>,
    page_size: Option<i32>,
    limit: Option<usize>,
    concurrency: usize,
    include_expired: bool,
}

impl<T: Send + 'static> Scan<T> {
    /// A scan; generated code calls this.
    pub fn new(client: Client, request: Result<ScanRequest, Error>, decode: Decoder<T>) -> Self {
        Scan {
            client,
            request,
            decode,
            segments: (0, 1, 1),
            start: None,
            page_size: None,
            limit: None,
            concurrency: DEFAULT_CONCURRENCY,
            include_expired: false,
        }
    }

    /// Reads `total` segments (a parallel scan), at most
    /// [`concurrency`](Scan::concurrency) at a time, merging their pages as
    /// they come.
    pub fn segments(mut self, total: u32) -> Self {
        self.segments = (0, total, total);
        self.check_segments();
        self
    }

    /// Reads segment `segment` of `total` only: one worker's share.
    pub fn segment(mut self, segment: u32, total: u32) -> Self {
        self.segments = (segment, segment.saturating_add(1), total);
        self.check_segments();
        self
    }

    fn check_segments(&mut self) {
        let (first, _, total) = self.segments;
        if total == 0 || total > MAX_SEGMENTS || first >= total {
            let problem = format!(
                "segment {first} of {total}: a scan has 1 to {MAX_SEGMENTS} segments, numbered from 0"
            );
            self.request = Err(Error::Value(crate::ValueError {
                context: "scan",
                name: "segment",
                problem,
            }));
        }
    }

    /// Resumes the segment `cursor` is of, after its position; the scan
    /// reads that segment only (a later `segments` or `segment` of other
    /// numbers refuses the cursor, `Error::Cursor`).
    pub fn starting_after(mut self, cursor: ScanCursor) -> Self {
        self.segments = (
            cursor.segment,
            cursor.segment.saturating_add(1),
            cursor.total,
        );
        self.check_segments();
        self.start = Some(cursor);
        self
    }

    /// At most `n` segments read at once (default
    /// [`DEFAULT_CONCURRENCY`]).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// At most `n` items a request reads (DynamoDB's `Limit`, before the
    /// filter and the entity are applied).
    pub fn page_size(mut self, n: u32) -> Self {
        self.page_size = Some(i32::try_from(n.max(1)).unwrap_or(i32::MAX));
        self
    }

    /// At most `n` items returned in all.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Also returns items whose TTL has passed but that DynamoDB has not
    /// deleted yet.
    pub fn include_expired(mut self) -> Self {
        self.include_expired = true;
        self
    }

    /// The pages of every segment read, in the order they arrive.
    pub fn pages(self) -> impl Stream<Item = Result<ScanPage<T>, Error>> + Send + 'static {
        let Scan {
            client,
            request,
            decode,
            segments: (first, end, total),
            start,
            page_size,
            limit,
            concurrency,
            include_expired,
        } = self;
        let request = request.and_then(|r| checked_start(r, start.as_ref(), (first, end, total)));
        let request = match request {
            Ok(request) => Arc::new(request),
            Err(e) => return stream::once(async { Err(e) }).boxed(),
        };
        if request.reads_nothing() {
            return stream::empty().boxed();
        }
        let read = Arc::new(Reader {
            call: Call::scan(
                request.pattern,
                &request.table,
                request.index,
                (end - first) as usize,
            ),
            client,
            decode,
            page_size,
            include_expired,
        });
        let segments = (first..end).map(move |segment| {
            let position = start.as_ref().map(|c| c.key.clone());
            let (read, request) = (read.clone(), request.clone());
            stream::unfold(Some(position), move |state| {
                let (read, request) = (read.clone(), request.clone());
                async move {
                    let position = state?;
                    let page = crate::trace::within(
                        &read.call,
                        read.page(&request, (segment, total), position),
                    )
                    .await;
                    if let Ok(page) = &page {
                        read.call.page(page.items.len());
                        read.call.capacity(page.consumed_capacity);
                    }
                    let after = match &page {
                        Ok(page) => page.next.as_ref().map(|c| Some(c.key.clone())),
                        Err(_) => None,
                    };
                    Some((page, after))
                }
            })
            .boxed()
        });
        let pages = stream::iter(segments).flatten_unordered(concurrency);
        match limit {
            None => pages.boxed(),
            Some(limit) => limited(pages, limit).boxed(),
        }
    }

    /// The results item by item; undecodable items are `Err` and the
    /// stream goes on.
    pub fn items(self) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        self.pages()
            .flat_map(|page| results(page.map(|p| (p.items, p.errors))))
    }

    /// Every result; fails on the first error.
    pub async fn all(self) -> Result<Vec<T>, Error> {
        self.items().try_collect().await
    }

    /// One page of at most `limit` items (at least 1) of one segment: from
    /// the segment's start, or after `cursor` (a page's
    /// [`next`](ScanPage::next), whose segment it reads). Without a cursor
    /// the segment is the scan's own: the whole table, or the one
    /// [`segment`](Scan::segment) names; a scan of several
    /// [`segments`](Scan::segments) has no one page and fails with
    /// [`Error::Value`] before any request. `next` is `None` once the
    /// segment has nothing more. Items that did not decode are in
    /// [`ScanPage::errors`] and do not count toward `limit`.
    pub async fn page(
        self,
        limit: usize,
        cursor: Option<ScanCursor>,
    ) -> Result<ScanPage<T>, Error> {
        let mut scan = match cursor {
            Some(cursor) => self.starting_after(cursor),
            None => self,
        };
        let (first, end, total) = scan.segments;
        if end - first > 1 && scan.request.is_ok() {
            scan.request = Err(Error::Value(crate::ValueError {
                context: "scan",
                name: "segment",
                problem: format!(
                    "a page is of one segment, and this scan reads {} of {total}: \
                     page through each with `segment(i, {total})`",
                    end - first
                ),
            }));
        }
        let mut pages = std::pin::pin!(scan.limit(limit.max(1)).pages());
        let mut whole = ScanPage {
            segment: first,
            items: Vec::new(),
            errors: Vec::new(),
            next: None,
            positions: Vec::new(),
            total,
            consumed_capacity: 0.0,
        };
        while let Some(page) = pages.next().await {
            let page = page?;
            whole.items.extend(page.items);
            whole.errors.extend(page.errors);
            whole.positions.extend(page.positions);
            whole.consumed_capacity += page.consumed_capacity;
            whole.next = page.next;
        }
        Ok(whole)
    }
}

/// Cuts a page stream after `limit` items: the page that reaches it is
/// shortened, and the stream ends.
fn limited<T: Send + 'static>(
    pages: impl Stream<Item = Result<ScanPage<T>, Error>> + Send + 'static,
    limit: usize,
) -> impl Stream<Item = Result<ScanPage<T>, Error>> + Send + 'static {
    pages
        .scan(limit, |left, page| {
            if *left == 0 {
                return std::future::ready(None);
            }
            let page = page.map(|mut page| {
                if page.items.len() > *left {
                    // Cut short: the rest of the segment begins after the
                    // last item kept.
                    page.items.truncate(*left);
                    page.next = page.positions.get(*left - 1).map(|key| ScanCursor {
                        segment: page.segment,
                        total: page.total,
                        key: key.clone(),
                    });
                }
                *left -= page.items.len();
                page
            });
            std::future::ready(Some(page))
        })
        .boxed()
}

/// `request`, when `start` is a position of it: of the one segment read
/// (`segments`: first, end, total), with exactly its key attributes (a
/// cursor of another scan or index is refused before any request).
fn checked_start(
    request: ScanRequest,
    start: Option<&ScanCursor>,
    (first, end, total): (u32, u32, u32),
) -> Result<ScanRequest, Error> {
    let Some(cursor) = start else {
        return Ok(request);
    };
    if (cursor.segment, cursor.total) != (first, total) || end != first.saturating_add(1) {
        return Err(Error::Cursor(CursorError::Partitions {
            cursor: cursor.total as usize,
            query: total as usize,
        }));
    }
    check_key_attributes(&cursor.key, cursor.segment as usize, request.key_attributes)?;
    Ok(request)
}

impl ScanRequest {
    /// Whether a reversed `BETWEEN` of the filter holds for no item.
    fn reads_nothing(&self) -> bool {
        reversed_range(&self.filter_values, self.filter_ranges)
    }
}

struct Reader<T> {
    call: Call,
    client: Client,
    decode: Decoder<T>,
    page_size: Option<i32>,
    include_expired: bool,
}

impl<T> Reader<T> {
    /// One page of `segment` (of `total`) from `position` on.
    async fn page(
        &self,
        request: &ScanRequest,
        (segment, total): (u32, u32),
        position: Option<Item>,
    ) -> Result<ScanPage<T>, Error> {
        let names: std::collections::HashMap<String, String> = request
            .names
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let mut scan = self
            .client
            .scan()
            .table_name(&request.table)
            .set_index_name(request.index.map(str::to_owned))
            .set_filter_expression(request.filter.map(str::to_owned))
            .set_expression_attribute_names((!names.is_empty()).then_some(names))
            .set_expression_attribute_values(
                (!request.filter_values.is_empty()).then(|| request.filter_values.clone()),
            )
            .set_exclusive_start_key(position)
            .set_limit(self.page_size);
        if request.consistent_read {
            scan = scan.consistent_read(true);
        }
        if total > 1 {
            // Both fit an i32: `check_segments` bounds them by MAX_SEGMENTS.
            scan = scan.segment(segment as i32).total_segments(total as i32);
        }
        let output = scan
            .return_consumed_capacity(crate::sdk::types::ReturnConsumedCapacity::Total)
            .send()
            .await?;
        let consumed_capacity = crate::trace::units(output.consumed_capacity());
        let now = crate::DateTime::from(std::time::SystemTime::now());
        let (mut items, mut errors, mut positions) = (Vec::new(), Vec::new(), Vec::new());
        for item in output.items.unwrap_or_default() {
            let expired = request
                .ttl_attribute
                .is_some_and(|ttl| crate::codec::is_expired(&item, ttl, now));
            if expired && !self.include_expired {
                continue;
            }
            match (self.decode)(&item) {
                Ok(Some(value)) => {
                    items.push(value);
                    let position = request
                        .key_attributes
                        .iter()
                        .filter_map(|k| Some(((*k).to_owned(), item.get(*k)?.clone())))
                        .collect();
                    positions.push(position);
                }
                Ok(None) => {}
                Err(e) => errors.push(Error::Decode(e)),
            }
        }
        let next = output
            .last_evaluated_key
            .filter(|k| !k.is_empty())
            .map(|key| ScanCursor {
                segment,
                total,
                key,
            });
        Ok(ScanPage {
            segment,
            items,
            errors,
            next,
            positions,
            total,
            consumed_capacity,
        })
    }
}

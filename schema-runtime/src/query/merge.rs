//! Reading the partitions of a query: one page at a time, or every shard's partition at once, merged in sort-key order.

use super::*;

pub(super) struct Shared<T> {
    /// The call's span.
    pub(super) call: Call,
    pub(super) client: Client,
    /// The partition-key attribute queried (`#pk`): every item returned must
    /// hold the partition's value in it.
    pub(super) pk_attribute: Option<&'static str>,
    pub(super) request: QueryRequest,
    /// `request.names` as the SDK takes them, built once for every page.
    pub(super) names: HashMap<String, String>,
    /// `request.projection` as an expression.
    pub(super) projection: Option<String>,
    pub(super) decode: Decoder<T>,
    pub(super) page_size: Option<i32>,
    pub(super) concurrency: usize,
    /// The keys and binding page tokens are sealed with.
    pub(super) tokens: Option<(PageTokens, Binding)>,
    pub(super) item_cursors: bool,
}

impl<T> Shared<T> {
    /// `Ok` when `item`, read from partition `index`, may be returned: it is
    /// the querying tenant's, and in the partition queried.
    pub(super) fn admit(&self, item: &Item, index: usize) -> Result<(), ForeignItem> {
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
pub(super) struct Partition {
    /// Items read and not yet returned, in the order read.
    pub(super) buffer: VecDeque<Item>,
    /// Where the next request starts.
    pub(super) next: Option<Item>,
    /// The last request returned no `LastEvaluatedKey`: nothing more to read.
    pub(super) fetched: bool,
    /// What a cursor records: after the last item returned.
    pub(super) position: Position,
}

impl Partition {
    /// Needs a request before its next item can be known.
    pub(super) fn starved(&self) -> bool {
        self.buffer.is_empty() && !self.fetched
    }
}

pub(super) struct State<T> {
    pub(super) shared: Arc<Shared<T>>,
    pub(super) partitions: Vec<Partition>,
    pub(super) remaining: Option<usize>,
    pub(super) failed: bool,
    /// Capacity consumed by requests not yet reported on a page.
    pub(super) capacity: f64,
}

impl<T: Send + 'static> State<T> {
    /// The next page: reads every starved partition (a bounded number at a
    /// time), then returns items while every partition that may hold more
    /// has one buffered, smallest sort key first.
    pub(super) async fn next_page(&mut self) -> Option<Result<Page<T>, Error>> {
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
        let mut page = Page::empty(std::mem::take(&mut self.capacity));
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
    pub(super) fn cursor(&self) -> Cursor {
        Cursor::from_positions(self.partitions.iter().map(|p| p.position.clone()).collect())
    }

    /// The partition whose next item comes first in the requested order.
    pub(super) fn smallest(&self) -> Option<usize> {
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
    pub(super) async fn fill(&mut self) -> Result<(), Error> {
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
    pub(super) async fn fill_points(&mut self) -> Result<(), Error> {
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
    pub(super) fn numbers_compare_by_value() {
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
    pub(super) fn strings_compare_by_bytes_and_missing_values_first() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        assert_eq!(compare(Some(&s("B")), Some(&s("a"))), Ordering::Less);
        assert_eq!(compare(Some(&s("a")), Some(&s("ab"))), Ordering::Less);
        assert_eq!(compare(None, Some(&s(""))), Ordering::Less);
    }
}

//! The soundness harness's oracle: what DynamoDB's semantics say a query
//! returns, evaluated on the raw stored items, independently of the
//! compiler. An item is in an index when it has every key attribute of
//! the index; a query returns the items of its partition (every partition
//! attribute equal, and on a multi-attribute key each sort attribute before
//! the condition's) whose sort key satisfies the operator, strings compared
//! as UTF-8 bytes (Rust's `str` order) and numbers by value, in the order
//! of the sort attributes, reversed for descending queries, cut at the
//! limit. The expected keys come from the generator's own encoder
//! (`tests/soundness/gen.rs`), written from docs/spec.md.

use std::fmt::{Debug, Display};

/// A stored item.
pub use singletable_runtime::Item;

#[path = "../soundness/semantics.rs"]
mod semantics;
pub use semantics::{Filter, FilterOp, Op};

/// `text` parsed as the type of the field `_field` (a generated enum):
/// what an update's `impl Into<T>` setter is given.
pub fn parsed<T: std::str::FromStr>(_field: &singletable_runtime::Field<T>, text: &str) -> T
where
    T::Err: Debug,
{
    text.parse().expect("a word of the enum")
}

/// One call of an access pattern and what it should read.
#[derive(Debug, Clone)]
pub struct Case {
    /// The access pattern.
    pub pattern: &'static str,
    /// The partition key attribute of the table or index queried.
    pub pk_attr: &'static str,
    /// Its sort key attribute.
    pub sk_attr: &'static str,
    /// The partition key values the call should read (one per write shard).
    pub pks: Vec<String>,
    /// On a multi-attribute index: the other equalities, attribute and
    /// value as stored (the partition key's later attributes, then the sort
    /// attributes before `sk_attr`).
    pub more: Vec<(&'static str, &'static str)>,
    /// On a multi-attribute index: every sort attribute in order, with
    /// whether it is a number (compared by value). Empty: `sk_attr` alone,
    /// a string.
    pub sort: Vec<(&'static str, bool)>,
    /// The sort-key operator, if any.
    pub op: Option<Op>,
    /// Its operands, encoded; one list per write shard when a bound holds
    /// `<shard>` (an item satisfies the condition under any of them).
    pub operands: Vec<Vec<String>>,
    /// Descending order.
    pub descending: bool,
    /// Items per request (`Limit`): small, so that results span pages.
    pub page_size: usize,
    /// At most this many items.
    pub limit: Option<usize>,
    /// The table's TTL attribute when the call hides expired items: those
    /// whose epoch seconds are in the past.
    pub ttl: Option<&'static str>,
    /// The non-key attributes the queried index projects; `None`: all.
    pub projected: Option<&'static [&'static str]>,
    /// The filter, on the string attribute `note`.
    pub filter: Option<Filter>,
}

/// One call of a scan access pattern and what it should read.
#[derive(Debug, Clone)]
pub struct ScanCase {
    /// The access pattern.
    pub pattern: &'static str,
    /// The entity it returns: the items whose entity-type attribute names it.
    pub entity: &'static str,
    /// The index scanned, by its key attributes (an item is in it when it
    /// has both); `None`: the table.
    pub keys: Option<(&'static str, &'static str)>,
    /// Segments the scan was split into.
    pub segments: u32,
    /// The TTL attribute when the call hides expired items.
    pub ttl: Option<&'static str>,
    /// The filter, on the string attribute `note`.
    pub filter: Option<Filter>,
}

impl Case {
    /// Whether the item the repository returned, encoded back (`got`),
    /// agrees with the stored item: equal, or on an index that projects
    /// less, equal in every attribute it has (what it read back out of the
    /// keys included) and holding every attribute the index carries.
    fn agrees(&self, stored: &Item, got: &Item) -> bool {
        let Some(projected) = self.projected else {
            return stored == got;
        };
        let carried = |a: &str| {
            projected.contains(&a)
                || ["pk", "sk", "entity_type", self.pk_attr, self.sk_attr].contains(&a)
        };
        got.iter().all(|(a, v)| stored.get(a) == Some(v))
            && stored
                .iter()
                .filter(|(a, _)| carried(a))
                .all(|(a, v)| got.get(a) == Some(v))
    }
}

/// One spec's run: what was written, what was read, where they disagree.
#[derive(Debug)]
pub struct Run {
    /// The generator's seed.
    pub seed: u64,
    /// The spec.
    pub spec: &'static str,
    /// The items the table holds after the writes.
    pub items: Vec<Item>,
    /// Writes made.
    pub writes: usize,
    /// Calls checked.
    pub queries: usize,
    /// Every disagreement, described.
    pub disagreements: Vec<String>,
    /// Disagreements where an index query lost items whose index key (its
    /// partition and sort key values) ties with an item it returned, and
    /// nothing else: the pagination loss of DynamoDB Local 3.3.1 (a query
    /// of a GSI with `Limit` resumes past every item of the tied key). The
    /// test counts them as disagreements on any other server.
    pub tie_losses: Vec<String>,
}

fn string<'i>(item: &'i Item, attr: &str) -> Option<&'i str> {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// A key attribute's value as stored: a string's text, a number's digits.
fn key_text<'i>(item: &'i Item, attr: &str) -> Option<&'i str> {
    item.get(attr)
        .and_then(|v| v.as_s().or_else(|_| v.as_n()).ok())
        .map(String::as_str)
}

/// How DynamoDB orders two values of a key attribute: a number by value
/// (the generator's are integers), a string by its UTF-8 bytes.
fn key_order(a: &str, b: &str, number: bool) -> std::cmp::Ordering {
    match (number, a.parse::<i128>(), b.parse::<i128>()) {
        (true, Ok(a), Ok(b)) => a.cmp(&b),
        _ => a.cmp(b),
    }
}

impl Case {
    /// Whether the sort condition's attribute is a number.
    fn sk_number(&self) -> bool {
        self.sort
            .iter()
            .any(|(name, number)| *name == self.sk_attr && *number)
    }

    /// The values an item's position in the index is ordered by: the sort
    /// key, or every attribute of a multi-attribute one.
    fn sort_values<'i>(&self, item: &'i Item) -> Vec<Option<&'i str>> {
        if self.sort.is_empty() {
            return vec![string(item, self.sk_attr)];
        }
        self.sort
            .iter()
            .map(|(name, _)| key_text(item, name))
            .collect()
    }

    /// DynamoDB's order of two items of the queried partition.
    fn position_order(&self, a: &Item, b: &Item) -> std::cmp::Ordering {
        if self.sort.is_empty() {
            return string(a, self.sk_attr).cmp(&string(b, self.sk_attr));
        }
        for (name, number) in &self.sort {
            let order = match (key_text(a, name), key_text(b, name)) {
                (Some(x), Some(y)) => key_order(x, y, *number),
                (x, y) => x.cmp(&y),
            };
            if order.is_ne() {
                return order;
            }
        }
        std::cmp::Ordering::Equal
    }

    /// Whether `item` is in the queried index with the key the condition
    /// reads: the partition (every attribute of a multi-attribute one, each
    /// sort attribute present) and the sort condition.
    fn reads(&self, item: &Item) -> bool {
        let number = self.sk_number();
        let holds = |sk: &str| {
            self.op.is_none_or(|op| {
                self.operands
                    .iter()
                    .any(|o| op.holds_by(sk, o, |a, b| key_order(a, b, number)))
            })
        };
        string(item, self.pk_attr).is_some_and(|pk| self.pks.iter().any(|p| p == pk))
            && self.more.iter().all(|(name, value)| {
                let number = item.get(*name).is_some_and(|a| a.is_n());
                key_text(item, name).is_some_and(|v| key_order(v, value, number).is_eq())
            })
            && self
                .sort
                .iter()
                .all(|(name, _)| key_text(item, name).is_some())
            && key_text(item, self.sk_attr).is_some_and(holds)
    }
}

/// DynamoDB's TTL: a Number of epoch seconds in the past.
fn expired(item: &Item, ttl: &str, now: u64) -> bool {
    item.get(ttl)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse::<u64>().ok())
        .is_some_and(|secs| secs < now)
}

/// Whether a read returns `item`: not expired (when it hides expired
/// items, by `ttl`), and kept by the filter.
fn kept(item: &Item, ttl: Option<&str>, filter: Option<&Filter>, now: u64) -> bool {
    !ttl.is_some_and(|ttl| expired(item, ttl, now))
        && filter.is_none_or(|f| f.holds(string(item, "note")))
}

impl Run {
    /// A run of the spec of `seed`.
    pub fn new(seed: u64, spec: &'static str) -> Run {
        Run {
            seed,
            spec,
            items: Vec::new(),
            writes: 0,
            queries: 0,
            disagreements: Vec::new(),
            tie_losses: Vec::new(),
        }
    }

    /// A step that must not fail failed.
    pub fn failed(&mut self, what: &str, error: &dyn Display) {
        self.disagreements.push(format!("{what} failed: {error}"));
    }

    /// A write of a valid item: it must succeed.
    pub fn wrote<T, E: Display>(&mut self, what: &str, result: Result<T, E>) {
        self.writes += 1;
        if let Err(e) = result {
            self.failed(what, &e);
        }
    }

    /// A conditional write whose condition the semantics say holds (it
    /// must apply) or not (it must fail with `ConditionNotMet`, carrying
    /// the stored item, and write nothing).
    pub fn conditioned<T>(
        &mut self,
        what: &str,
        holds: bool,
        result: Result<T, singletable_runtime::Error>,
    ) {
        self.writes += 1;
        self.queries += 1;
        match (holds, result) {
            (true, Ok(_))
            | (
                false,
                Err(singletable_runtime::Error::ConditionNotMet {
                    stored: Some(_), ..
                }),
            ) => {}
            (true, Err(e)) => self
                .disagreements
                .push(format!("{what}: the condition holds, the write failed: {e}")),
            (false, Ok(_)) => self
                .disagreements
                .push(format!("{what}: the condition does not hold, the write applied")),
            (false, Err(e)) => self.disagreements.push(format!(
                "{what}: the condition does not hold, and the error is not ConditionNotMet with the item: {e:?}"
            )),
        }
    }

    /// Reads every stored item back, raw.
    pub async fn scan(&mut self, client: &singletable_runtime::sdk::Client, table: &str) {
        match crate::server::scan_all(client, table).await {
            Ok(items) => self.items.extend(items),
            Err(e) => self.failed("scan", &e),
        }
    }

    /// A scan's result, as the items the repository decoded, encoded
    /// back: every stored item of the entity in the table or index (not
    /// expired, kept by the filter), each once, in any order.
    pub fn scanned<E1: Debug, E2: Debug>(
        &mut self,
        case: ScanCase,
        got: Result<Result<Vec<Item>, E1>, E2>,
    ) {
        self.queries += 1;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut unmatched: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| string(i, "entity_type") == Some(case.entity))
            .filter(|i| {
                case.keys
                    .is_none_or(|(pk, sk)| string(i, pk).is_some() && string(i, sk).is_some())
            })
            .filter(|i| kept(i, case.ttl, case.filter.as_ref(), now))
            .collect();
        let expected = unmatched.len();
        let got = match got {
            Ok(Ok(items)) => items,
            other => {
                self.disagreements.push(format!(
                    "{case:?}: the call failed or an item does not encode ({other:?}); DynamoDB's semantics return {expected} item(s)"
                ));
                return;
            }
        };
        let mut extra = Vec::new();
        for item in &got {
            match unmatched.iter().position(|e| *e == item) {
                Some(i) => {
                    unmatched.remove(i);
                }
                None => extra.push(item),
            }
        }
        if !unmatched.is_empty() || !extra.is_empty() {
            self.disagreements.push(format!(
                "{case:?}: expected {expected} item(s), got {}; missing {unmatched:?}; unexpected or repeated {extra:?}",
                got.len()
            ));
        }
    }

    /// What DynamoDB's semantics return for `case` from the stored items.
    pub fn expected(&self, case: &Case) -> Vec<&Item> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut hits: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| case.reads(i))
            .filter(|i| kept(i, case.ttl, case.filter.as_ref(), now))
            .collect();
        hits.sort_by(|a, b| case.position_order(a, b));
        if case.descending {
            hits.reverse();
        }
        if let Some(limit) = case.limit {
            hits.truncate(limit);
        }
        hits
    }

    /// A call's result, as the items the repository decoded, encoded back.
    pub fn queried<E1: Debug, E2: Debug>(
        &mut self,
        case: Case,
        got: Result<Result<Vec<Item>, E1>, E2>,
    ) {
        self.queries += 1;
        let expected = self.expected(&case);
        let got = match got {
            Ok(Ok(items)) => items,
            Ok(Err(e)) => {
                let problem = format!("{case:?}: an item read back does not encode: {e:?}");
                self.disagreements.push(problem);
                return;
            }
            Err(e) => {
                let problem = format!(
                    "{case:?}: the call failed ({e:?}), DynamoDB's semantics return {} item(s)",
                    expected.len()
                );
                self.disagreements.push(problem);
                return;
            }
        };
        let sks = |items: &mut dyn Iterator<Item = &Item>| -> Vec<Vec<Option<String>>> {
            items
                .map(|i| {
                    case.sort_values(i)
                        .into_iter()
                        .map(|v| v.map(str::to_owned))
                        .collect()
                })
                .collect()
        };
        let same_order = sks(&mut expected.iter().copied()) == sks(&mut got.iter());
        let mut unmatched: Vec<&Item> = expected.clone();
        let mut extra = Vec::new();
        for item in &got {
            match unmatched.iter().position(|e| case.agrees(e, item)) {
                Some(i) => {
                    unmatched.remove(i);
                }
                None => extra.push(item),
            }
        }
        let tied = |item: &Item| {
            got.iter().any(|g| {
                string(g, case.pk_attr) == string(item, case.pk_attr)
                    && case.sort_values(g) == case.sort_values(item)
            })
        };
        let only_tie_losses = case.pk_attr != "pk"
            && extra.is_empty()
            && !unmatched.is_empty()
            && unmatched.iter().all(|i| tied(i));
        if only_tie_losses {
            self.tie_losses
                .push(format!("{case:?}: lost {unmatched:?}"));
        } else if !same_order || !unmatched.is_empty() || !extra.is_empty() {
            self.disagreements.push(format!(
                "{case:?}: expected {} item(s), got {}; missing {unmatched:?}; unexpected {extra:?}; same sort-key order: {same_order}",
                expected.len(),
                got.len()
            ));
        }
    }

    /// A call's result read as partial types (or a mix with whole
    /// entities): each must equal what `expect` makes of a stored item the
    /// semantics return (the stored item decoded as its entity, then cut
    /// down to the partial), in the same order.
    pub fn queried_as<T: PartialEq + Debug, E1: Debug, E2: Debug>(
        &mut self,
        case: Case,
        got: Result<Vec<T>, E2>,
        expect: impl Fn(&Item) -> Result<T, E1>,
    ) {
        self.queries += 1;
        let expected_items = self.expected(&case);
        let got = match got {
            Ok(values) => values,
            Err(e) => {
                let problem = format!(
                    "{case:?}: the call failed ({e:?}), DynamoDB's semantics return {} item(s)",
                    expected_items.len()
                );
                self.disagreements.push(problem);
                return;
            }
        };
        let mut expected = Vec::new();
        for item in &expected_items {
            match expect(item) {
                Ok(value) => expected.push(value),
                Err(e) => {
                    let problem = format!("{case:?}: a stored item does not decode: {e:?}");
                    self.disagreements.push(problem);
                    return;
                }
            }
        }
        // Match each returned value to an expected one (items whose sort
        // keys tie may come in any order); an expected item the call
        // skipped is a tie loss when an item it returned has the same
        // index key (see `Run`).
        let mut matched = vec![false; expected.len()];
        let mut order = Vec::new();
        let mut extra = 0;
        for value in &got {
            match (0..expected.len()).find(|&i| !matched[i] && expected[i] == *value) {
                Some(i) => {
                    matched[i] = true;
                    order.push(i);
                }
                None => extra += 1,
            }
        }
        let sk = |i: usize| case.sort_values(expected_items[i]);
        let in_sequence: Vec<Vec<Option<&str>>> = (0..expected.len())
            .filter(|&i| matched[i])
            .map(sk)
            .collect();
        let in_order =
            extra == 0 && order.iter().map(|&i| sk(i)).collect::<Vec<_>>() == in_sequence;
        fn key<'i>(item: &'i Item, case: &Case) -> (Option<&'i str>, Vec<Option<&'i str>>) {
            (string(item, case.pk_attr), case.sort_values(item))
        }
        let missing: Vec<usize> = (0..expected.len()).filter(|&i| !matched[i]).collect();
        let tied = |i: usize| {
            (0..expected.len()).any(|k| {
                matched[k] && key(expected_items[k], &case) == key(expected_items[i], &case)
            })
        };
        if in_order && missing.is_empty() {
            return;
        }
        if in_order && case.pk_attr != "pk" && missing.iter().all(|&i| tied(i)) {
            let lost: Vec<&T> = missing.iter().map(|&i| &expected[i]).collect();
            self.tie_losses.push(format!("{case:?}: lost {lost:?}"));
            return;
        }
        self.disagreements
            .push(format!("{case:?}: expected {expected:?}, got {got:?}"));
    }
}

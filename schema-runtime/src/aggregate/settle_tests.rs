use super::*;

const COUNTER: Counter = Counter {
    entity: "TicketCount",
    marker: None,
    count_attribute: "count",
    recount: None,
    rule: &crate::codec::Store::Integer {
        min: 0,
        max: i64::MAX,
    },
};

fn record(n: u32) -> ChangeRecord {
    ChangeRecord {
        id: Some(RecordId {
            event_id: format!("e{n}"),
            created: 1_700_000_000,
        }),
        sequence_number: Some(n.to_string()),
        ..ChangeRecord::default()
    }
}

fn failure(parts: &[u32], unidentified: i64, transient: bool) -> CounterFailure {
    let error = match transient {
        true => Error::Unprocessed {
            writes: Vec::new(),
            keys: Vec::new(),
            cause: None,
        },
        false => Error::ConditionFailed {
            entity: "TicketCount",
            operation: RANGE_REFUSAL,
        },
    };
    failed_with(parts, unidentified, error)
}

fn failed_with(parts: &[u32], unidentified: i64, error: Error) -> CounterFailure {
    let records: Vec<(RecordId, i64)> = parts
        .iter()
        .map(|n| (record(*n).id.expect("an id"), 1))
        .collect();
    CounterFailure {
        change: CounterChange {
            counter: COUNTER,
            group: Group {
                key: Item::new(),
                attributes: Vec::new(),
            },
            delta: records.len() as i64 + unidentified,
            records,
        },
        error,
    }
}

#[test]
fn a_batch_is_retried_from_the_earliest_record_that_may_pass() {
    let records: Vec<ChangeRecord> = [9, 10, 11, 100].map(record).to_vec();
    let outcome = Err(Error::Counters(vec![
        failure(&[100, 11], 0, true),
        failure(&[10], 0, false),
        failure(&[9, 100], 0, true),
    ]));
    let settled = settle(&records, outcome).expect("settled");
    // `9` before `100` and `11`: numbers, not text.
    assert_eq!(settled.retry_from.as_deref(), Some("9"));
    assert_eq!(settled.refused.len(), 1, "the refused change is reported");
    assert!(!settled.refused[0].error.is_transient());
}

#[test]
fn refusals_alone_let_the_batch_go_on() {
    let records: Vec<ChangeRecord> = [1, 2].map(record).to_vec();
    let outcome = Err(Error::Counters(vec![failure(&[2], 0, false)]));
    let settled = settle(&records, outcome).expect("settled");
    assert_eq!(settled.retry_from, None);
    assert_eq!(settled.refused.len(), 1);
    assert!(settle(&records, Ok(()))
        .expect("settled")
        .refused
        .is_empty());
}

#[test]
fn a_failure_no_record_pins_fails_the_whole_batch() {
    let records: Vec<ChangeRecord> = [1, 2].map(record).to_vec();
    // A part of the change with no record identity.
    let outcome = Err(Error::Counters(vec![failure(&[1], 1, true)]));
    assert!(matches!(settle(&records, outcome), Err(Error::Counters(f)) if f.len() == 1));
    // A record without a sequence number.
    let mut unnumbered = records.clone();
    unnumbered[0].sequence_number = None;
    let outcome = Err(Error::Counters(vec![failure(&[1], 0, true)]));
    assert!(settle(&unnumbered, outcome).is_err());
    // An error that is not a counter's.
    let outcome = Err(Error::ConditionFailed {
        entity: "TicketCount",
        operation: "x",
    });
    assert!(settle(&records, outcome).is_err());
    // Attempts spent against another writer: no verdict on the data,
    // so never dropped as refused.
    let spent = Error::ConditionFailed {
        entity: "TicketCount",
        operation: "apply counter changes",
    };
    let outcome = Err(Error::Counters(vec![failed_with(&[1], 0, spent)]));
    assert!(settle(&records, outcome).is_err());
}

use super::{ChangeRecord, RecordId};
use crate::sdk::types::AttributeValue;
use crate::{Blob, Item};
use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use serde_dynamo::AttributeValue as LambdaValue;

fn value(v: LambdaValue) -> AttributeValue {
    match v {
        LambdaValue::N(n) => AttributeValue::N(n),
        LambdaValue::S(s) => AttributeValue::S(s),
        LambdaValue::Bool(b) => AttributeValue::Bool(b),
        LambdaValue::B(b) => AttributeValue::B(Blob::new(b)),
        LambdaValue::Null(n) => AttributeValue::Null(n),
        LambdaValue::M(m) => AttributeValue::M(m.into_iter().map(|(k, v)| (k, value(v))).collect()),
        LambdaValue::L(l) => AttributeValue::L(l.into_iter().map(value).collect()),
        LambdaValue::Ss(v) => AttributeValue::Ss(v),
        LambdaValue::Ns(v) => AttributeValue::Ns(v),
        LambdaValue::Bs(v) => AttributeValue::Bs(v.into_iter().map(Blob::new).collect()),
    }
}

/// An image; Lambda delivers an absent image as an empty map.
fn image(item: serde_dynamo::Item) -> Option<Item> {
    let map = item.into_inner();
    (!map.is_empty()).then(|| map.into_iter().map(|(k, v)| (k, value(v))).collect())
}

/// One record of a Lambda's DynamoDB Streams event.
impl From<EventRecord> for ChangeRecord {
    fn from(record: EventRecord) -> Self {
        // Without its creation time (Lambda may leave it out) a record's
        // mark could never be forgotten: such a record is applied as
        // delivered.
        let created = record.change.approximate_creation_date_time.timestamp();
        let id = (!record.event_id.is_empty() && created != 0).then_some(RecordId {
            event_id: record.event_id,
            created,
        });
        ChangeRecord {
            old: image(record.change.old_image),
            new: image(record.change.new_image),
            id,
            sequence_number: record.change.sequence_number,
        }
    }
}

impl ChangeRecord {
    /// Every record of a Lambda's DynamoDB Streams event, in order.
    pub fn from_lambda_event(event: Event) -> Vec<ChangeRecord> {
        event.records.into_iter().map(ChangeRecord::from).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as Lambda delivers it (the shape of AWS's documented example).
    #[test]
    fn lambda_records_become_change_records() {
        let json = r#"{"Records":[{"eventID":"1","eventName":"MODIFY","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
            "dynamodb":{"ApproximateCreationDateTime":1700000000,"Keys":{"pk":{"S":"TENANT#acme|TICKET#T1"}},
              "NewImage":{"pk":{"S":"TENANT#acme|TICKET#T1"},"status":{"S":"CLOSED"},"n":{"N":"2"},"tags":{"L":[{"S":"a"}]}},
              "OldImage":{"pk":{"S":"TENANT#acme|TICKET#T1"},"status":{"S":"OPEN"}},
              "SequenceNumber":"111","SizeBytes":26,"StreamViewType":"NEW_AND_OLD_IMAGES"},
            "eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2024"},
          {"eventID":"2","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
            "dynamodb":{"Keys":{"pk":{"S":"x"}},"NewImage":{"pk":{"S":"x"}},"SequenceNumber":"112","SizeBytes":5,"StreamViewType":"NEW_AND_OLD_IMAGES"},
            "eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2024"}]}"#;
        let event: Event = serde_json::from_str(json).expect("a Lambda event");
        let records = ChangeRecord::from_lambda_event(event);
        assert_eq!(records.len(), 2);
        let new = records[0].new.as_ref().expect("a new image");
        assert_eq!(new.get("status"), Some(&AttributeValue::S("CLOSED".into())));
        assert_eq!(new.get("n"), Some(&AttributeValue::N("2".into())));
        assert_eq!(
            new.get("tags"),
            Some(&AttributeValue::L(vec![AttributeValue::S("a".into())]))
        );
        let old = records[0].old.as_ref().expect("an old image");
        assert_eq!(old.get("status"), Some(&AttributeValue::S("OPEN".into())));
        assert_eq!(records[1].old, None, "an insert has no old image");
        let id = RecordId {
            event_id: "1".into(),
            created: 1_700_000_000,
        };
        assert_eq!(records[0].id, Some(id));
        assert_eq!(records[1].id, None, "a record without its time");
        assert_eq!(records[0].sequence_number.as_deref(), Some("111"));
        assert_eq!(records[1].sequence_number.as_deref(), Some("112"));
    }
}

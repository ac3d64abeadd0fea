use super::{ChangeRecord, RecordId};
use crate::error::{DecodeError, DecodeProblem};
use crate::sdk::types::AttributeValue;
use crate::{Blob, Item};
use aws_sdk_dynamodbstreams::types::{AttributeValue as StreamValue, Record};

/// A Streams attribute value as the DynamoDB SDK's; `None` for a type
/// this crate does not know.
fn value(v: StreamValue) -> Option<AttributeValue> {
    Some(match v {
        StreamValue::S(s) => AttributeValue::S(s),
        StreamValue::N(n) => AttributeValue::N(n),
        StreamValue::B(b) => AttributeValue::B(Blob::new(b.into_inner())),
        StreamValue::Bool(b) => AttributeValue::Bool(b),
        StreamValue::Null(n) => AttributeValue::Null(n),
        StreamValue::Ss(v) => AttributeValue::Ss(v),
        StreamValue::Ns(v) => AttributeValue::Ns(v),
        StreamValue::Bs(v) => {
            AttributeValue::Bs(v.into_iter().map(|b| Blob::new(b.into_inner())).collect())
        }
        StreamValue::L(v) => AttributeValue::L(v.into_iter().map(value).collect::<Option<_>>()?),
        StreamValue::M(m) => AttributeValue::M(
            m.into_iter()
                .map(|(k, v)| Some((k, value(v)?)))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

fn image(m: std::collections::HashMap<String, StreamValue>) -> Result<Item, DecodeError> {
    m.into_iter()
        .map(|(k, v)| match value(v) {
            Some(v) => Ok((k, v)),
            None => Err(DecodeError::new(
                "stream record",
                k,
                DecodeProblem::Invalid("an attribute type this version does not know".into()),
            )),
        })
        .collect()
}

/// A record read from the DynamoDB Streams API.
impl TryFrom<Record> for ChangeRecord {
    type Error = DecodeError;
    fn try_from(record: Record) -> Result<Self, DecodeError> {
        let (old, new, created, sequence_number) = match record.dynamodb {
            Some(stream) => (
                stream.old_image,
                stream.new_image,
                stream.approximate_creation_date_time.map(|t| t.secs()),
                stream.sequence_number,
            ),
            None => (None, None, None, None),
        };
        let id = match (record.event_id, created) {
            (Some(event_id), Some(created)) => Some(RecordId { event_id, created }),
            _ => None,
        };
        Ok(ChangeRecord {
            old: old.map(image).transpose()?,
            new: new.map(image).transpose()?,
            id,
            sequence_number,
        })
    }
}

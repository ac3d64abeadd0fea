//! The `serde_dynamo` baseline: record structs that mirror the stored
//! items, filled with the same `format!`ed keys as the hand-written
//! baseline and converted by `serde_dynamo`'s serializer and deserializer.

use serde::{Deserialize, Serialize};
use singletable_runtime::sdk::primitives::{DateTime, DateTimeFormat};
use singletable_tests::generated::support_ticket::{Comment, Status, Ticket};

use crate::handwritten::Item;

/// A ticket item.
#[derive(Debug, Serialize, Deserialize)]
pub struct TicketRecord {
    pk: String,
    sk: String,
    entity_type: String,
    id: String,
    title: String,
    status: StatusRecord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resolver: Option<String>,
    created_at: String,
    tenant_status: String,
}

/// A comment item.
#[derive(Debug, Serialize, Deserialize)]
pub struct CommentRecord {
    pk: String,
    sk: String,
    entity_type: String,
    ticket_id: String,
    id: String,
    author: String,
    body: String,
    created_at: String,
}

/// A ticket's status as stored.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum StatusRecord {
    /// `OPEN`
    Open,
    /// `CLOSED`
    Closed,
}

impl TryFrom<Status> for StatusRecord {
    type Error = String;
    fn try_from(s: Status) -> Result<Self, String> {
        match s {
            Status::Open => Ok(StatusRecord::Open),
            Status::Closed => Ok(StatusRecord::Closed),
            Status::UnknownValue => Err("an unknown status cannot be written".to_owned()),
        }
    }
}

impl From<StatusRecord> for Status {
    fn from(s: StatusRecord) -> Self {
        match s {
            StatusRecord::Open => Status::Open,
            StatusRecord::Closed => Status::Closed,
        }
    }
}

fn rfc3339(value: &DateTime) -> Result<String, String> {
    value
        .fmt(DateTimeFormat::DateTime)
        .map_err(|e| e.to_string())
}

fn parse_time(text: &str) -> Result<DateTime, String> {
    DateTime::from_str(text, DateTimeFormat::DateTime).map_err(|e| e.to_string())
}

/// A ticket as an item, through `serde_dynamo`.
pub fn ticket_to_item(tenant: &str, t: &Ticket) -> Result<Item, String> {
    let status = StatusRecord::try_from(t.status)?;
    let status_text = match status {
        StatusRecord::Open => "OPEN",
        StatusRecord::Closed => "CLOSED",
    };
    let record = TicketRecord {
        pk: format!("TENANT#{tenant}|TICKET#{}", t.id),
        sk: "SUMMARY".to_owned(),
        entity_type: "Ticket".to_owned(),
        id: t.id.clone(),
        title: t.title.clone(),
        status,
        resolver: t.resolver.clone(),
        created_at: rfc3339(&t.created_at)?,
        tenant_status: format!("TENANT#{tenant}|{status_text}"),
    };
    serde_dynamo::to_item(record).map_err(|e| e.to_string())
}

/// A ticket from an item, through `serde_dynamo`.
pub fn ticket_from_item(item: Item) -> Result<Ticket, String> {
    let r: TicketRecord = serde_dynamo::from_item(item).map_err(|e| e.to_string())?;
    Ok(Ticket {
        id: r.id,
        title: r.title,
        status: r.status.into(),
        resolver: r.resolver,
        created_at: parse_time(&r.created_at)?,
    })
}

/// A comment as an item, through `serde_dynamo`.
pub fn comment_to_item(tenant: &str, c: &Comment) -> Result<Item, String> {
    let created_at = rfc3339(&c.created_at)?;
    let record = CommentRecord {
        pk: format!("TENANT#{tenant}|TICKET#{}", c.ticket_id),
        sk: format!("COMMENT#{created_at}#{}", c.id),
        entity_type: "Comment".to_owned(),
        ticket_id: c.ticket_id.clone(),
        id: c.id.clone(),
        author: c.author.clone(),
        body: c.body.clone(),
        created_at,
    };
    serde_dynamo::to_item(record).map_err(|e| e.to_string())
}

/// A comment from an item, through `serde_dynamo`.
pub fn comment_from_item(item: Item) -> Result<Comment, String> {
    let r: CommentRecord = serde_dynamo::from_item(item).map_err(|e| e.to_string())?;
    Ok(Comment {
        ticket_id: r.ticket_id,
        id: r.id,
        author: r.author,
        body: r.body,
        created_at: parse_time(&r.created_at)?,
    })
}

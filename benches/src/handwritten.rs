//! The baselines: what a careful engineer writes with `aws-sdk-dynamodb`
//! alone, item by item, for the same design. Keys are `format!`s of the
//! spec's templates; timestamps use the SDK's own RFC 3339 formatter.
//! `tests/baselines.rs` checks that every function here produces exactly
//! the items and keys the generated code produces.

#![allow(
    clippy::disallowed_types,
    reason = "the SDK's item type is a HashMap; the baseline uses it as the SDK does"
)]

use std::collections::HashMap;
use std::fmt;

use singletable_runtime::sdk::primitives::{DateTime, DateTimeFormat};
use singletable_runtime::sdk::types::AttributeValue;
use singletable_tests::generated::support_ticket::{Comment, Status, Ticket};

use crate::generated::key_shapes::Reading;

/// An item as the SDK takes it.
pub type Item = HashMap<String, AttributeValue>;

fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

fn rfc3339(value: &DateTime) -> Result<String, String> {
    value
        .fmt(DateTimeFormat::DateTime)
        .map_err(|e| e.to_string())
}

fn get_s<'a>(item: &'a Item, name: &str) -> Result<&'a str, String> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v),
        Some(_) => Err(format!("`{name}` is not a string")),
        None => Err(format!("`{name}` is missing")),
    }
}

fn get_time(item: &Item, name: &str) -> Result<DateTime, String> {
    DateTime::from_str(get_s(item, name)?, DateTimeFormat::DateTime).map_err(|e| e.to_string())
}

fn status(text: &str) -> Result<Status, String> {
    match text {
        "OPEN" => Ok(Status::Open),
        "CLOSED" => Ok(Status::Closed),
        other => Err(format!("unknown status {other:?}")),
    }
}

fn status_text(status: Status) -> Result<&'static str, String> {
    match status {
        Status::Open => Ok("OPEN"),
        Status::Closed => Ok("CLOSED"),
        Status::UnknownValue => Err("an unknown status cannot be written".to_owned()),
    }
}

/// The primary key of a ticket.
pub fn ticket_key(tenant: &str, id: &str) -> Item {
    HashMap::from([
        ("pk".to_owned(), s(format!("TENANT#{tenant}|TICKET#{id}"))),
        ("sk".to_owned(), s("SUMMARY")),
    ])
}

/// A ticket as an item.
pub fn ticket_to_item(tenant: &str, t: &Ticket) -> Result<Item, String> {
    let mut item = ticket_key(tenant, &t.id);
    item.insert("entity_type".to_owned(), s("Ticket"));
    item.insert("id".to_owned(), s(&t.id));
    item.insert("title".to_owned(), s(&t.title));
    let status = status_text(t.status)?;
    item.insert("status".to_owned(), s(status));
    if let Some(resolver) = &t.resolver {
        item.insert("resolver".to_owned(), s(resolver));
    }
    item.insert("created_at".to_owned(), s(rfc3339(&t.created_at)?));
    let index_pk = format!("TENANT#{tenant}|{status}");
    item.insert("tenant_status".to_owned(), s(index_pk));
    Ok(item)
}

/// A ticket from an item.
pub fn ticket_from_item(item: &Item) -> Result<Ticket, String> {
    Ok(Ticket {
        id: get_s(item, "id")?.to_owned(),
        title: get_s(item, "title")?.to_owned(),
        status: status(get_s(item, "status")?)?,
        resolver: match item.get("resolver") {
            None => None,
            Some(_) => Some(get_s(item, "resolver")?.to_owned()),
        },
        created_at: get_time(item, "created_at")?,
    })
}

/// The primary key of a comment.
pub fn comment_key(tenant: &str, ticket_id: &str, at: &DateTime, id: &str) -> Result<Item, String> {
    Ok(HashMap::from([
        (
            "pk".to_owned(),
            s(format!("TENANT#{tenant}|TICKET#{ticket_id}")),
        ),
        ("sk".to_owned(), s(format!("COMMENT#{}#{id}", rfc3339(at)?))),
    ]))
}

/// A comment as an item.
pub fn comment_to_item(tenant: &str, c: &Comment) -> Result<Item, String> {
    let mut item = comment_key(tenant, &c.ticket_id, &c.created_at, &c.id)?;
    item.insert("entity_type".to_owned(), s("Comment"));
    item.insert("ticket_id".to_owned(), s(&c.ticket_id));
    item.insert("id".to_owned(), s(&c.id));
    item.insert("author".to_owned(), s(&c.author));
    item.insert("body".to_owned(), s(&c.body));
    item.insert("created_at".to_owned(), s(rfc3339(&c.created_at)?));
    Ok(item)
}

/// A comment from an item.
pub fn comment_from_item(item: &Item) -> Result<Comment, String> {
    Ok(Comment {
        ticket_id: get_s(item, "ticket_id")?.to_owned(),
        id: get_s(item, "id")?.to_owned(),
        author: get_s(item, "author")?.to_owned(),
        body: get_s(item, "body")?.to_owned(),
        created_at: get_time(item, "created_at")?,
    })
}

/// Percent-encodes every byte that is not an ASCII letter, digit or `_`,
/// as the spec's `escape: true` asks, straight into the formatter.
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0.bytes() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                fmt::Write::write_char(f, char::from(b))?;
            } else {
                write!(f, "%{b:02X}")?;
            }
        }
        Ok(())
    }
}

/// The primary key of a reading: the template
/// `SENSOR#<sensor>|PATH#<path>` / `AT#<at>|LOG#<logged_at>|SEQ#<seq>|OFF#<offset>`
/// with `format!`, the widths and the offset of the spec's integer bounds.
pub fn reading_key(r: &Reading) -> Result<Item, String> {
    let logged = r.logged_at.to_millis().map_err(|e| e.to_string())?;
    let pk = format!("SENSOR#{}|PATH#{}", r.sensor, Escaped(&r.path));
    let sk = format!(
        "AT#{}|LOG#{logged:015}|SEQ#{:09}|OFF#{:05}",
        rfc3339(&r.at)?,
        r.seq,
        r.offset + 5_000
    );
    Ok(HashMap::from([
        ("pk".to_owned(), s(pk)),
        ("sk".to_owned(), s(sk)),
    ]))
}

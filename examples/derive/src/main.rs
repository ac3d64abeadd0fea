//! A crate without a build script: its own structs are bound to entities of
//! `schemas/support_ticket.yaml` by `#[derive(Entity)]` (checked against the
//! spec when the crate compiles), and one more struct declares its keys
//! inline. It writes and reads them with the runtime's operations.
//!
//! With `DYNAMODB_ENDPOINT` set it talks to that server; otherwise it starts
//! an embedded dynoxide server on 127.0.0.1, so it runs with nothing installed.

mod status;

use std::error::Error;

use singletable_runtime::schema::{IndexDef, ProjectionDef, TableDef};
use singletable_runtime::{DateTime, Entity, TenantRules};
use singletable_runtime::{Table, TableInfo};

pub use status::Status;

/// The spec's tenant rules (`^[A-Za-z0-9_]{1,64}$`); the derive checks at
/// compile time that they are the spec's.
pub enum Tenancy {}

impl TenantRules for Tenancy {
    const MIN_LENGTH: usize = 1;
    const MAX_LENGTH: usize = 64;
    const ALPHABET: &'static [(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
}

/// A tenant id of the support-ticket table.
pub type TenantId = singletable_runtime::TenantId<Tenancy>;

/// A ticket as this crate models it: its own field names, and a field the
/// spec does not know.
#[derive(Debug, Clone, PartialEq, Entity)]
#[singletable(
    spec = "../../schemas/support_ticket.yaml",
    entity = "Ticket",
    tenancy = "Tenancy"
)]
pub struct Ticket {
    /// The ticket id.
    pub id: String,
    /// One line.
    pub title: String,
    /// Open or closed.
    pub status: Status,
    #[singletable(rename = "resolver")]
    /// Who works on it (the spec's `resolver`).
    pub assignee: Option<String>,
    /// When it was opened.
    pub created_at: DateTime,
    /// Kept in memory only; read back as 0.
    #[singletable(skip)]
    pub views: u32,
}

/// A comment on a ticket, in the ticket's item collection.
#[derive(Debug, Clone, PartialEq, Entity)]
#[singletable(spec = "../../schemas/support_ticket.yaml", tenancy = "Tenancy")]
pub struct Comment {
    /// The ticket commented on.
    pub ticket_id: String,
    /// The comment id.
    pub id: String,
    /// Who wrote it.
    pub author: String,
    /// The text.
    pub body: String,
    /// When it was written.
    pub created_at: DateTime,
}

/// A note with its keys declared on the struct: no spec file.
#[derive(Debug, Clone, PartialEq, Entity)]
#[singletable(
    table = "Notes",
    pk = "NOTE#<id>",
    sk = "NOTE",
    index(name = "ByAuthor", pk = "AUTHOR#<author>", sk = "<written_at>")
)]
pub struct Note {
    /// The note id.
    #[singletable(pattern = "^[a-z0-9-]{1,32}$")]
    pub id: String,
    /// Who wrote it.
    #[singletable(pattern = "^[a-z0-9_]{1,32}$")]
    pub author: String,
    /// When.
    pub written_at: DateTime,
    /// The text.
    pub text: String,
}

/// The support-ticket table, as the spec declares it.
const TICKETS: TableDef = TableDef {
    partition_key: ("pk", "S"),
    sort_key: Some(("sk", "S")),
    indexes: &[IndexDef {
        name: "GSI1",
        global: true,
        partition_key: &[("tenant_status", "S")],
        sort_key: &[("resolver", "S")],
        projection: ProjectionDef::Include(&["title", "status", "created_at"]),
        capacity: None,
    }],
    capacity: None,
    stream: None,
    ttl_attribute: None,
};

/// The notes table: inline mode keys the table `pk`/`sk` and an index
/// `<index>_pk`/`<index>_sk`.
const NOTES: TableDef = TableDef {
    partition_key: ("pk", "S"),
    sort_key: Some(("sk", "S")),
    indexes: &[IndexDef {
        name: "ByAuthor",
        global: true,
        partition_key: &[("by_author_pk", "S")],
        sort_key: &[("by_author_sk", "S")],
        projection: ProjectionDef::All,
        capacity: None,
    }],
    capacity: None,
    stream: None,
    ttl_attribute: None,
};

fn table(name: &str) -> TableInfo<'_> {
    TableInfo {
        name,
        partition_key: "pk",
        ttl_attribute: None,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    // `DYNAMODB_ENDPOINT`, else an embedded dynoxide server on 127.0.0.1.
    let endpoint = singletable_runtime::testing::server()?.endpoint;
    println!("DynamoDB endpoint: {endpoint}");
    let client = singletable_runtime::testing::client(&endpoint);
    let suffix = std::process::id();
    let tickets = format!("SupportTicket-derive-{suffix}");
    let notes = format!("Notes-derive-{suffix}");
    TICKETS.create(&client, &tickets).await?;
    NOTES.create(&client, &notes).await?;

    let acme = TenantId::new("acme")?;
    let ticket = Ticket {
        id: "T1".into(),
        title: "Printer on fire".into(),
        status: Status::Open,
        assignee: Some("bob".into()),
        created_at: DateTime::from_secs(1_714_564_800),
        views: 3,
    };
    let item = ticket.to_item(&acme)?;
    println!("\nTicket T1 as stored:");
    print_item(&item);
    let ticket_table = Table {
        client: &client,
        info: table(&tickets),
    };
    ticket_table.create(&ticket, &acme).await?;
    let comment = Comment {
        ticket_id: "T1".into(),
        id: "C1".into(),
        author: "alice".into(),
        body: "Still burning.".into(),
        created_at: DateTime::from_secs(1_714_564_900),
    };
    ticket_table.put(&comment, &acme).await?;

    let read = ticket_table.get_item_of(&ticket, &acme).await?;
    println!("\nRead back: {read:?}");
    assert_eq!(
        read,
        Some(Ticket {
            views: 0,
            ..ticket.clone()
        })
    );
    let read = ticket_table.get_item_of(&comment, &acme).await?;
    assert_eq!(read.as_ref(), Some(&comment));

    let globex = TenantId::new("globex")?;
    let elsewhere = ticket_table.get_item_of(&ticket, &globex).await?;
    println!("Tenant globex reads T1: {elsewhere:?}");
    assert_eq!(elsewhere, None);

    let note = Note {
        id: "n-1".into(),
        author: "ada".into(),
        written_at: DateTime::from_secs(1_714_565_000),
        text: "Keys declared on the struct.".into(),
    };
    let item = note.to_item(&())?;
    println!("\nNote n-1 as stored:");
    print_item(&item);
    let note_table = Table {
        client: &client,
        info: table(&notes),
    };
    note_table.create(&note, &()).await?;
    let read = note_table.get_item_of(&note, &()).await?;
    assert_eq!(read.as_ref(), Some(&note));
    println!("\nRead back: {read:?}");
    Ok(())
}

fn print_item(item: &singletable_runtime::Item) {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    for name in names {
        println!("   {name:<14} {:?}", item[name]);
    }
}

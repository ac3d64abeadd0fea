//! The support-ticket design of the AWS multi-tenancy walkthrough, end to
//! end: creates the table, writes tickets and comments for two tenants and
//! runs the six access patterns.
//!
//! With `DYNAMODB_ENDPOINT` set it talks to that server; otherwise it starts
//! an embedded dynoxide server on 127.0.0.1, so it runs with nothing installed.
//! `SUPPORT_TICKET_TABLE` names the table (a fresh `SupportTicket-<pid>`
//! otherwise), so other tools can read the data afterwards: the test command
//! runs the AWS CLI commands of `singletable explain` against it.

singletable_runtime::include_generated!(support_ticket);

use std::error::Error;

use singletable_runtime::aggregate::ChangeRecord;
use singletable_runtime::{DateTime, Entity};
use support_ticket::{
    Comment, Repository, Status, TenantId, Ticket, TicketKey, TicketUpdate, TicketWithCommentsItem,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    // `DYNAMODB_ENDPOINT`, else an embedded dynoxide server on 127.0.0.1.
    let endpoint = singletable_runtime::testing::server()?.endpoint;
    println!("DynamoDB endpoint: {endpoint}");
    let table = match std::env::var("SUPPORT_TICKET_TABLE") {
        Ok(table) if !table.is_empty() => table,
        _ => format!("SupportTicket-{}", std::process::id()),
    };
    let repo =
        Repository::new(singletable_runtime::testing::client(&endpoint)).with_table_name(table);
    repo.create_table().await?;

    for tenant in ["acme", "globex"] {
        seed(&repo, &TenantId::new(tenant)?).await?;
    }
    let acme = TenantId::new("acme")?;
    let t = repo.for_tenant(&acme);

    println!("\n1. ticket_with_comments(T1), tenant acme:");
    for item in t.ticket_with_comments("T1").all().await? {
        match item {
            TicketWithCommentsItem::Ticket(x) => {
                println!("   ticket  {} {:?} {}", x.id, x.status, x.title)
            }
            TicketWithCommentsItem::Comment(c) => {
                println!("   comment {} by {}: {}", c.id, c.author, c.body)
            }
        }
    }

    println!("\n2. ticket_summary(T2):");
    for x in t.ticket_summary("T2").all().await? {
        println!(
            "   {} {:?} {} (resolver {:?})",
            x.id, x.status, x.title, x.resolver
        );
    }

    println!("\n3. open_tickets (tickets with a resolver; GSI1 is sparse):");
    for x in t.open_tickets().all().await? {
        println!(
            "   {} {} -> {}",
            x.id,
            x.title,
            x.resolver.as_deref().unwrap_or("-")
        );
    }

    println!("\n4. open_tickets_for_resolver(bob):");
    for x in t.open_tickets_for_resolver("bob").all().await? {
        println!("   {} {}", x.id, x.title);
    }

    println!("\n5. close_tickets([T1, T3]) in one transaction");
    let keys = ["T1", "T3"].map(|id| TicketKey { id: id.into() });
    let mut before = Vec::new();
    for key in &keys {
        before.extend(t.get_ticket(key).await?);
    }
    let mut close = t.close_tickets();
    for key in &keys {
        close.update_ticket(key, TicketUpdate::default().status(Status::Closed));
    }
    close.send().await?;
    // The counts move with the tickets: the stream handler's job. The
    // example hands it the images the table's stream would deliver.
    let mut changes = Vec::new();
    for old in before {
        let new = t.get_ticket(&TicketKey { id: old.id.clone() }).await?;
        changes.push(ChangeRecord {
            old: Some(old.to_item(&acme)?),
            new: new.map(|n| n.to_item(&acme)).transpose()?,
            ..ChangeRecord::default()
        });
    }
    count(&repo, &changes).await?;
    println!(
        "   open tickets now: {:?}",
        t.open_tickets()
            .all()
            .await?
            .iter()
            .map(|x| x.id.as_str())
            .collect::<Vec<_>>()
    );

    println!("\n6. ticket_counts_by_status:");
    for c in t.ticket_counts_by_status().all().await? {
        println!("   {:?}: {}", c.status, c.count);
    }

    let globex = TenantId::new("globex")?;
    let other = repo.for_tenant(&globex).open_tickets().all().await?;
    println!(
        "\nTenant globex still has {} open tickets with a resolver (its own).",
        other.len()
    );
    Ok(())
}

async fn seed(repo: &Repository, tenant: &TenantId) -> Result<(), Box<dyn Error>> {
    let t = repo.for_tenant(tenant);
    let at = |s: i64| DateTime::from_secs(1_714_564_800 + s);
    let tickets = [
        ("T1", "Printer on fire", Some("bob")),
        ("T2", "Password reset", None),
        ("T3", "VPN drops", Some("carol")),
        ("T4", "New laptop", Some("bob")),
    ];
    let mut created = Vec::new();
    for (i, (id, title, resolver)) in tickets.into_iter().enumerate() {
        let ticket = Ticket {
            id: id.into(),
            title: format!("{title} ({})", tenant.as_str()),
            status: Status::Open,
            resolver: resolver.map(str::to_owned),
            created_at: at(i as i64),
        };
        t.create_ticket(&ticket).await?;
        created.push(ChangeRecord {
            new: Some(ticket.to_item(tenant)?),
            ..ChangeRecord::default()
        });
    }
    count(repo, &created).await?;
    for (i, body) in ["It is smoking.", "Fire department called."]
        .into_iter()
        .enumerate()
    {
        t.create_comment(&Comment {
            ticket_id: "T1".into(),
            id: format!("C{i}"),
            author: "alice".into(),
            body: body.into(),
            created_at: at(60 + i as i64),
        })
        .await?;
    }
    Ok(())
}

/// What the stream handler does with a batch of the table's stream
/// (examples/lambda-stream runs it on Lambda): counts the tickets' changes.
async fn count(repo: &Repository, records: &[ChangeRecord]) -> Result<(), Box<dyn Error>> {
    let (changes, undecodable) = support_ticket::ticket_count_changes(records);
    if let Some(e) = undecodable.first() {
        return Err(e.to_string().into());
    }
    repo.apply_counter_changes(&changes).await?;
    Ok(())
}

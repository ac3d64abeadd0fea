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

use singletable_runtime::DateTime;
use support_ticket::{
    Comment, Repository, Status, TenantId, Ticket, TicketCount, TicketCountKey, TicketCountUpdate,
    TicketKey, TicketUpdate, TicketWithCommentsItem,
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
    let mut close = t.close_tickets();
    for id in ["T1", "T3"] {
        close.update_ticket(
            &TicketKey { id: id.into() },
            TicketUpdate::default().status(Status::Closed),
        );
    }
    close.send().await?;
    // The counts move with the tickets (a stream handler's job in production).
    for (status, delta) in [(Status::Open, -2), (Status::Closed, 2)] {
        let key = TicketCountKey { status };
        let current = t.get_ticket_count(&key).await?.map_or(0, |c| c.count);
        t.update_ticket_count(&key, TicketCountUpdate::default().count(current + delta))
            .await?;
    }
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

async fn seed(repo: &Repository, tenant: &TenantId) -> Result<(), singletable_runtime::Error> {
    let t = repo.for_tenant(tenant);
    let at = |s: i64| DateTime::from_secs(1_714_564_800 + s);
    let tickets = [
        ("T1", "Printer on fire", Some("bob")),
        ("T2", "Password reset", None),
        ("T3", "VPN drops", Some("carol")),
        ("T4", "New laptop", Some("bob")),
    ];
    for (i, (id, title, resolver)) in tickets.into_iter().enumerate() {
        t.create_ticket(&Ticket {
            id: id.into(),
            title: format!("{title} ({})", tenant.as_str()),
            status: Status::Open,
            resolver: resolver.map(str::to_owned),
            created_at: at(i as i64),
        })
        .await?;
    }
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
    t.put_ticket_count(&TicketCount {
        status: Status::Open,
        count: 4,
    })
    .await?;
    t.put_ticket_count(&TicketCount {
        status: Status::Closed,
        count: 0,
    })
    .await?;
    Ok(())
}

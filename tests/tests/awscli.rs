//! The AWS CLI commands `singletable explain` prints for the support-ticket
//! spec, run with the real AWS CLI against the server the support-ticket
//! example wrote its data to, return the items the generated repository
//! methods return.
//!
//! Needs `DYNAMODB_ENDPOINT`, `SUPPORT_TICKET_TABLE` (the example's table)
//! and `SINGLETABLE_AWS_CLI` (the `aws` executable); `scripts/test` installs
//! the pinned AWS CLI, runs the example against DynamoDB Local and then this
//! test with `--ignored`. Without them it fails rather than passing unchecked.

use std::process::Command;

use singletable::explain;
use singletable_runtime::{Entity, Item};
use singletable_tests::generated::support_ticket::{
    Comment, Repository, TenantId, Ticket, TicketCount, TicketWithCommentsItem,
};
use singletable_tests::{dynamo_json, server};

fn env(name: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| panic!("{name} is not set: run this test through scripts/test"))
}

/// Runs the AWS CLI with `args` against the test server; its standard
/// output. Fails the test when the command fails.
fn aws(args: &[String]) -> Vec<u8> {
    let output = Command::new(env("SINGLETABLE_AWS_CLI"))
        .args(args)
        .args([
            "--endpoint-url",
            &env("DYNAMODB_ENDPOINT"),
            "--region",
            "us-east-1",
            "--output",
            "json",
        ])
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .output()
        .expect("the AWS CLI runs");
    assert!(
        output.status.success(),
        "aws {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// Runs the `explain` command of `pattern` with `values` in place of its
/// placeholders; the items it returns.
fn run_cli(pattern: &str, values: &[(&str, &str)], table: &str) -> Vec<Item> {
    let path = format!(
        "{}/../schemas/support_ticket.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let compilation = singletable::Compiler::new().file(path).compile();
    let spec = &compilation.specs[0].spec;
    let request = explain::request(spec, pattern).expect("the pattern exists");
    let mut args = explain::cli_args(&request);
    for arg in &mut args {
        for (placeholder, value) in values {
            *arg = arg.replace(&format!("<{placeholder}>"), value);
        }
        if arg == "SupportTicket" {
            *arg = table.to_owned();
        }
        assert!(
            !arg.contains('<'),
            "{pattern}: unfilled placeholder in {arg}"
        );
    }
    let output = aws(&args);
    let json: serde_json::Value = serde_json::from_slice(&output).expect("the AWS CLI prints JSON");
    json["Items"]
        .as_array()
        .expect("a query's Items")
        .iter()
        .map(|i| dynamo_json::item(i).unwrap())
        .collect()
}

fn decode<E: Entity>(items: &[Item]) -> Vec<E> {
    items.iter().map(|i| E::from_item(i).unwrap()).collect()
}

#[tokio::test]
#[ignore = "needs the AWS CLI and the support-ticket example's data; scripts/test runs it"]
async fn explain_cli_commands_return_what_the_repository_returns() {
    let table = env("SUPPORT_TICKET_TABLE");
    let repo = Repository::new(server::client(&env("DYNAMODB_ENDPOINT"))).with_table_name(&table);
    let mut compared = 0;
    for tenant in ["acme", "globex"] {
        let t = repo.for_tenant(&TenantId::new(tenant).unwrap());
        let ours = t.ticket_with_comments("T1").all().await.unwrap();
        let cli: Vec<TicketWithCommentsItem> = run_cli(
            "ticket_with_comments",
            &[("tenant", tenant), ("id", "T1")],
            &table,
        )
        .iter()
        .map(
            |i| match singletable_runtime::entity_type(i, "entity_type", "test").unwrap() {
                "Ticket" => TicketWithCommentsItem::Ticket(Ticket::from_item(i).unwrap()),
                "Comment" => TicketWithCommentsItem::Comment(Comment::from_item(i).unwrap()),
                other => panic!("unexpected {other}"),
            },
        )
        .collect();
        assert_eq!(cli, ours);
        assert_eq!(
            ours.len(),
            3,
            "the example wrote a ticket with two comments"
        );
        let cli: Vec<Ticket> = decode(&run_cli(
            "ticket_summary",
            &[("tenant", tenant), ("id", "T2")],
            &table,
        ));
        assert_eq!(cli, t.ticket_summary("T2").all().await.unwrap());
        let cli: Vec<Ticket> = decode(&run_cli("open_tickets", &[("tenant", tenant)], &table));
        let open = t.open_tickets().all().await.unwrap();
        assert!(!open.is_empty());
        assert_eq!(cli, open);
        let cli: Vec<Ticket> = decode(&run_cli(
            "open_tickets_for_resolver",
            &[("tenant", tenant), ("resolver", "bob")],
            &table,
        ));
        assert_eq!(cli, t.open_tickets_for_resolver("bob").all().await.unwrap());
        let cli: Vec<TicketCount> = decode(&run_cli(
            "ticket_counts_by_status",
            &[("tenant", tenant)],
            &table,
        ));
        let counts = t.ticket_counts_by_status().all().await.unwrap();
        // The example counts through the stream handler's code: a status
        // no ticket of the tenant ever had has no counter.
        assert!(!counts.is_empty());
        assert_eq!(cli, counts);
        compared += 5;
    }
    assert_eq!(compared, 10);
}

#[tokio::test]
#[ignore = "needs the AWS CLI; scripts/test runs it"]
async fn items_put_with_the_aws_cli_are_read_as_they_are() {
    use singletable_tests::generated::existing_table_natural_keys::Repository;
    // A table keyed on its items' own attributes, with no entity-type
    // attribute: what another program, here the AWS CLI, writes is read.
    let table = server::unique_table("GameScoresCli");
    let repo = Repository::new(server::client(&env("DYNAMODB_ENDPOINT"))).with_table_name(&table);
    repo.create_table().await.unwrap();
    for item in [
        r#"{"user_id":{"S":"ann"},"game_id":{"S":"chess"},"top_score":{"N":"1200"},"rating":{"N":"4.25"},"wins":{"N":"7"},"Status#Time":{"S":"ACTIVE#2024"},"badges":{"SS":["gold","early"]}}"#,
        r#"{"user_id":{"S":"bob"},"game_id":{"S":"chess"},"top_score":{"N":"-5"},"rating":{"N":"3.5"},"wins":{"N":"0"}}"#,
    ] {
        aws(&[
            "dynamodb",
            "put-item",
            "--table-name",
            &table,
            "--item",
            item,
        ]
        .map(String::from));
    }
    let ann = repo
        .score("ann", "chess")
        .await
        .unwrap()
        .expect("the item the CLI put");
    assert_eq!(
        (
            ann.top_score,
            ann.rating.as_str(),
            ann.status_time.as_deref()
        ),
        (1200, "4.25", Some("ACTIVE#2024"))
    );
    assert_eq!(ann.badges.map(|b| b.len()), Some(2));
    let board: Vec<(String, i64)> = repo
        .leaderboard("chess", -10)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.user_id, s.top_score))
        .collect();
    assert_eq!(board, [("ann".to_owned(), 1200), ("bob".to_owned(), -5)]);
}

//! `singletable_runtime::testing`: one line gives a test a generated
//! repository on a fresh, active table of the test server.

use singletable_runtime::DateTime;
use singletable_tests::generated::support_ticket::{Repository, Status, TenantId, Ticket};

#[tokio::test]
async fn one_line_gives_a_ready_repository_on_a_table_of_its_own() {
    let repo: Repository = singletable_runtime::testing::repository().await;
    let other: Repository = singletable_runtime::testing::repository().await;
    assert_ne!(repo.table_name(), other.table_name());
    assert!(repo.table_name().starts_with("SupportTicket-"));

    let acme = TenantId::new("acme").unwrap();
    let ticket = Ticket {
        id: "T-1".into(),
        title: "Printer on fire".into(),
        status: Status::Open,
        resolver: None,
        created_at: DateTime::from_secs(1_714_564_800),
    };
    repo.for_tenant(&acme).create_ticket(&ticket).await.unwrap();
    let read = repo
        .for_tenant(&acme)
        .ticket_summary("T-1")
        .first()
        .await
        .unwrap();
    assert_eq!(read, Some(ticket));
    // The other table is another table.
    let elsewhere = other
        .for_tenant(&acme)
        .ticket_summary("T-1")
        .first()
        .await
        .unwrap();
    assert_eq!(elsewhere, None);
    // The table is the spec's: its definition is the repository's own.
    let described = repo
        .client()
        .describe_table()
        .table_name(repo.table_name())
        .send()
        .await
        .unwrap();
    let indexes = described.table().unwrap().global_secondary_indexes();
    assert_eq!(
        indexes.len(),
        <Repository as singletable_runtime::Repository>::TABLE
            .indexes
            .len()
    );
}

/// The runtime's `rustls-ring` client serves a repository like the default
/// one (over the test server's plain HTTP; the TLS stack is rustls's own).
#[cfg(feature = "ring")]
#[tokio::test]
async fn the_ring_client_serves_a_repository() {
    use singletable_runtime::sdk;
    let server = singletable_runtime::testing::server().unwrap();
    // The helper's client, on the ring client instead of the default one.
    let config = singletable_runtime::testing::client(&server.endpoint)
        .config()
        .to_builder()
        .http_client(singletable_runtime::https_client_ring())
        .build();
    let repo = Repository::new(sdk::Client::from_conf(config))
        .with_table_name(singletable_runtime::testing::unique_table_name("Ring"));
    repo.create_table().await.unwrap();
    let acme = TenantId::new("acme").unwrap();
    let ticket = Ticket {
        id: "T-1".into(),
        title: "over ring".into(),
        status: Status::Open,
        resolver: None,
        created_at: DateTime::from_secs(1_714_564_800),
    };
    repo.for_tenant(&acme).create_ticket(&ticket).await.unwrap();
    let read = repo
        .for_tenant(&acme)
        .get_ticket(&ticket.key())
        .await
        .unwrap();
    assert_eq!(read, Some(ticket));
}

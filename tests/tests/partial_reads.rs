//! Reads of part of an item, end to end: a query on an index that does not
//! project every attribute returns a partial type of exactly what the index
//! carries, and a get or query with `select` asks DynamoDB for the selected
//! attributes only (a ProjectionExpression) and returns their partial type.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use sdk::config::interceptors::AfterDeserializationInterceptorContextRef;
use sdk::config::{ConfigBag, Intercept, RuntimeComponents};
use sdk::error::BoxError;
use sdk::operation::get_item::GetItemOutput;
use sdk::operation::query::QueryOutput;
use singletable_runtime::sdk;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Error, Item};
use singletable_tests::generated::partial_reads::{
    AssignedTitlesItem, Note, Repository, Status, Ticket, TicketHeadingItem, TicketKey,
    TicketThreadItem, TicketThreadNote, TicketThreadTicket, TicketsByStatusItem,
    TicketsOfAssigneeItem, UrgentTicketsItem,
};
use singletable_tests::server;

/// The attribute names of every item the server returned to a Query or a
/// GetItem, as the SDK decoded them.
#[derive(Debug, Default, Clone)]
struct Returned(Arc<Mutex<Vec<BTreeSet<String>>>>);

impl Returned {
    fn take(&self) -> Vec<BTreeSet<String>> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Intercept for Returned {
    fn name(&self) -> &'static str {
        "partial_reads returned attributes"
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Ok(output) = context.output_or_error() else {
            return Ok(());
        };
        let items: Vec<&Item> = if let Some(q) = output.downcast_ref::<QueryOutput>() {
            q.items().iter().collect()
        } else if let Some(g) = output.downcast_ref::<GetItemOutput>() {
            g.item().into_iter().collect()
        } else {
            Vec::new()
        };
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.extend(items.into_iter().map(|i| i.keys().cloned().collect()));
        Ok(())
    }
}

fn names(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

async fn repo() -> (Repository, Returned) {
    let endpoint = server::server().await.endpoint;
    let returned = Returned::default();
    let config = sdk::Config::builder()
        .behavior_version(sdk::config::BehaviorVersion::latest())
        .region(sdk::config::Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(sdk::config::Credentials::new(
            "local", "local", None, None, "static",
        ))
        .interceptor(returned.clone())
        .build();
    let client = sdk::Client::from_conf(config);
    let repo = Repository::new(client).with_table_name(server::unique_table("Helpdesk"));
    repo.create_table().await.unwrap();
    (repo, returned)
}

fn later() -> DateTime {
    let now = DateTime::from(std::time::SystemTime::now()).secs();
    DateTime::from_secs(now + 86_400)
}

fn ticket(id: &str, status: Status, priority: i64, assignee: Option<&str>) -> Ticket {
    Ticket {
        queue: "support".into(),
        id: id.into(),
        title: format!("ticket {id}"),
        body: "a body no list view needs ".repeat(20),
        status,
        priority,
        assignee: assignee.map(Into::into),
        labels: Some(["billing".to_owned(), "vip".to_owned()].into()),
        due_at: Some(DateTime::from_secs(1_800_000_000)),
        expires: Some(later()),
    }
}

async fn seed(repo: &Repository) -> (Ticket, Ticket, Note) {
    let first = ticket("1", Status::Open, 3, Some("ann"));
    let second = ticket("2", Status::Closed, 1, None);
    let note = Note {
        queue: "support".into(),
        id: "1".into(),
        at: DateTime::from_secs(1_700_000_000),
        body: "called back".into(),
        author: "bob".into(),
    };
    repo.create_ticket(&first).await.unwrap();
    repo.create_ticket(&second).await.unwrap();
    repo.create_note(&note).await.unwrap();
    (first, second, note)
}

#[tokio::test]
async fn index_queries_return_what_the_index_carries() {
    let (repo, _) = repo().await;
    let (first, second, _) = seed(&repo).await;

    // KEYS_ONLY: the table's and the index's keys, and what they hold.
    let open = repo
        .tickets_by_status("support", Status::Open)
        .all()
        .await
        .unwrap();
    assert_eq!(
        open,
        vec![TicketsByStatusItem {
            queue: "support".into(),
            id: "1".into(),
            status: Status::Open,
            expires: first.expires,
        }]
    );

    // INCLUDE: the projected attributes besides.
    let mine = repo.tickets_of_assignee("ann").all().await.unwrap();
    assert_eq!(
        mine,
        vec![TicketsOfAssigneeItem {
            queue: "support".into(),
            id: "1".into(),
            title: first.title.clone(),
            priority: 3,
            assignee: Some("ann".into()),
            expires: first.expires,
        }]
    );

    // A local index: the priority is read out of the index's sort key.
    let urgent = repo.urgent_tickets("support").all().await.unwrap();
    let expected: Vec<UrgentTicketsItem> = [&second, &first]
        .into_iter()
        .map(|t| UrgentTicketsItem {
            queue: t.queue.clone(),
            id: t.id.clone(),
            title: t.title.clone(),
            priority: t.priority,
            expires: t.expires,
        })
        .collect();
    assert_eq!(urgent, expected);
}

#[tokio::test]
async fn select_asks_for_the_selected_attributes_only() {
    let (repo, returned) = repo().await;
    let (first, _, note) = seed(&repo).await;
    returned.take();

    let key = TicketKey {
        queue: "support".into(),
        id: "1".into(),
    };
    let heading = repo.ticket_heading(&key.queue, &key.id).await.unwrap();
    assert_eq!(
        heading,
        Some(TicketHeadingItem {
            title: first.title.clone(),
            status: Status::Open,
            labels: first.labels.clone(),
            due_at: first.due_at,
        })
    );
    assert_eq!(
        returned.take(),
        vec![names(&[
            "pk",
            "sk",
            "entity_type",
            "expires",
            "title",
            "status",
            "labels",
            "Due At"
        ])]
    );
    let missing = TicketKey {
        queue: "support".into(),
        id: "9".into(),
    };
    assert_eq!(
        repo.ticket_heading(&missing.queue, &missing.id)
            .await
            .unwrap(),
        None
    );

    // On an index: what `select` names, of what the index carries.
    let titles = repo.assigned_titles("ann").all().await.unwrap();
    assert_eq!(
        titles,
        vec![AssignedTitlesItem {
            title: first.title.clone()
        }]
    );
    assert_eq!(
        returned.take(),
        vec![names(&[
            "pk",
            "sk",
            "gsi2pk",
            "gsi2sk",
            "entity_type",
            "expires",
            "title"
        ])]
    );

    // Several entities: each read as its own partial type, in sort-key
    // order (`TICKET#1|NOTE#…` before `TICKET#1|TICKET`).
    let thread = repo.ticket_thread("support", "1").all().await.unwrap();
    assert_eq!(
        thread,
        vec![
            TicketThreadItem::Note(TicketThreadNote {
                body: note.body.clone(),
            }),
            TicketThreadItem::Ticket(TicketThreadTicket {
                title: first.title.clone(),
                body: first.body.clone(),
            }),
        ]
    );
    let items = returned.take();
    assert_eq!(items.len(), 2);
    for item in &items {
        assert!(
            !item.contains("author") && !item.contains("priority") && !item.contains("labels"),
            "{item:?}"
        );
    }
}

#[tokio::test]
async fn a_partial_item_that_breaks_its_declaration_is_an_error_of_its_own() {
    let (repo, _) = repo().await;
    seed(&repo).await;
    // Another program gives ticket 1 a title of the wrong type.
    repo.client()
        .update_item()
        .table_name(repo.table_name())
        .key("pk", AttributeValue::S("QUEUE#support".into()))
        .key("sk", AttributeValue::S("TICKET#1|TICKET".into()))
        .update_expression("SET title = :t")
        .expression_attribute_values(":t", AttributeValue::N("7".into()))
        .send()
        .await
        .unwrap();
    let urgent = repo.urgent_tickets("support").items();
    let results: Vec<Result<UrgentTicketsItem, Error>> =
        futures_util::StreamExt::collect(urgent).await;
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].as_ref().unwrap().id, "2");
    let error = results[1].as_ref().unwrap_err().to_string();
    assert!(error.contains("`title`"), "{error}");
    let heading = repo.ticket_heading("support", "1").await;
    assert!(matches!(heading, Err(Error::Decode(_))), "{heading:?}");
}

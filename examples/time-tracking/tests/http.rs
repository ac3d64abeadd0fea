//! The API over HTTP, on the embedded dynoxide server or the DynamoDB at
//! `DYNAMODB_ENDPOINT`: request bodies without server-set fields, typed
//! gets, one-call pages, the transaction's typed failures, workspaces kept
//! apart.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt as _;
use serde_json::{json, Value};
use singletable_runtime::PageTokens;
use time_tracking_service::{router, Repository};
use tower::ServiceExt as _;

async fn app() -> Router {
    let repo: Repository = singletable_runtime::testing::repository().await;
    router(repo.with_page_tokens(PageTokens::new(&[3; 32])))
}

async fn send(
    app: &Router,
    method: &str,
    uri: &str,
    ws: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("x-workspace", ws)
        .header(header::CONTENT_TYPE, "application/json");
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    let response = app
        .clone()
        .oneshot(request.body(body).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, json)
}

fn project(id: &str) -> Value {
    json!({"project_id": id, "name": format!("Project {id}"), "hourly_rate": "120"})
}

#[tokio::test]
async fn a_project_is_created_from_a_body_without_timestamps_and_read_typed() {
    let app = app().await;
    let (status, created) = send(&app, "POST", "/projects", "acme", Some(project("web"))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    // Set by the repository: the timestamps, and the total's default.
    assert!(created["created_at"].is_string(), "{created}");
    assert_eq!(created["created_at"], created["updated_at"]);
    assert_eq!(created["total_minutes"], json!(0));
    // The rate at its declared scale.
    assert_eq!(created["hourly_rate"], json!("120.00"));

    let (status, read) = send(&app, "GET", "/projects/web", "acme", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, created, "the item as written is the item read back");

    // A body that sets what the repository sets is refused, not trimmed.
    let mut forged = project("app");
    forged["created_at"] = json!("2000-01-01T00:00:00.000Z");
    let (status, _) = send(&app, "POST", "/projects", "acme", Some(forged)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // Creating it twice is a conflict.
    let (status, _) = send(&app, "POST", "/projects", "acme", Some(project("web"))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Another workspace sees none of it.
    let (status, _) = send(&app, "GET", "/projects/web", "globex", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, page) = send(&app, "GET", "/projects", "globex", None).await;
    assert_eq!(page["items"], json!([]));
}

#[tokio::test]
async fn logging_time_is_one_transaction_with_typed_failures() {
    let app = app().await;
    send(&app, "POST", "/projects", "acme", Some(project("web"))).await;
    let entry = |id: &str, project: &str, minutes: i64| json!({"project_id": project, "entry_id": id, "person": "ann", "minutes": minutes});
    let (status, logged) = send(
        &app,
        "POST",
        "/entries",
        "acme",
        Some(entry("e1", "web", 90)),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    assert!(logged["logged_at"].is_string(), "{logged}");
    send(
        &app,
        "POST",
        "/entries",
        "acme",
        Some(entry("e2", "web", 30)),
    )
    .await;
    let (_, web) = send(&app, "GET", "/projects/web", "acme", None).await;
    assert_eq!(web["total_minutes"], json!(120));

    // The same entry again: the create step failed, nothing was added.
    let (status, body) = send(
        &app,
        "POST",
        "/entries",
        "acme",
        Some(entry("e1", "web", 90)),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("the entry exists"))
    );
    // No such project: the update step failed, no entry was written.
    let (status, body) = send(
        &app,
        "POST",
        "/entries",
        "acme",
        Some(entry("e3", "nope", 5)),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("no such project"))
    );
    let (_, nope) = send(&app, "GET", "/projects/nope/entries", "acme", None).await;
    assert_eq!(nope["items"], json!([]));
    let (_, web) = send(&app, "GET", "/projects/web", "acme", None).await;
    assert_eq!(web["total_minutes"], json!(120));
    // Another workspace cannot log time against this one's project.
    let (status, _) = send(
        &app,
        "POST",
        "/entries",
        "globex",
        Some(entry("e4", "web", 5)),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn lists_come_a_page_per_call_with_tokens() {
    let app = app().await;
    for i in 0..5 {
        send(
            &app,
            "POST",
            "/projects",
            "acme",
            Some(project(&format!("p{i}"))),
        )
        .await;
    }
    let mut seen = Vec::new();
    let mut uri = "/projects?limit=2".to_owned();
    loop {
        let (status, page) = send(&app, "GET", &uri, "acme", None).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 2);
        seen.extend(
            items
                .iter()
                .map(|p| p["project_id"].as_str().unwrap().to_owned()),
        );
        match page["next_page_token"].as_str() {
            Some(token) => uri = format!("/projects?limit=2&page_token={token}"),
            None => break,
        }
    }
    assert_eq!(seen, ["p0", "p1", "p2", "p3", "p4"]);
    // A token is bound to its workspace and query: anywhere else it is a 400.
    let (_, first) = send(&app, "GET", "/projects?limit=2", "acme", None).await;
    let token = first["next_page_token"].as_str().unwrap();
    let (status, _) = send(
        &app,
        "GET",
        &format!("/projects?page_token={token}"),
        "globex",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = send(
        &app,
        "GET",
        &format!("/projects/p0/entries?page_token={token}"),
        "acme",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

//! The API over HTTP: JSON entities, paging by tokens, tenants kept apart,
//! errors as status codes, one span per DynamoDB call.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use axum_service::support_ticket::Status;
use axum_service::{bearer_token, router, AppState, ErrorBody, ListPage, Repository, Ticket};
use http_body_util::BodyExt as _;
use singletable_runtime::testing::CallRecorder;
use singletable_runtime::PageTokens;
use tower::ServiceExt as _;

const AUTH_KEY: &[u8] = b"test signing key";

async fn app() -> Router {
    let repo: Repository = singletable_runtime::testing::repository().await;
    let repo = repo.with_page_tokens(PageTokens::new(&[9; 32]));
    router(AppState {
        repo,
        auth_key: AUTH_KEY.to_vec(),
    })
}

/// Sends a request; the status and the JSON body.
async fn send(
    app: &Router,
    method: &str,
    uri: &str,
    tenant: Option<&str>,
    body: Option<serde_json::Value>,
) -> (StatusCode, serde_json::Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(tenant) = tenant {
        request = request.header(
            header::AUTHORIZATION,
            format!("Bearer {}", bearer_token(AUTH_KEY, tenant)),
        );
    }
    let request = match body {
        Some(body) => request
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string())),
        None => request.body(Body::empty()),
    }
    .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json = if bytes.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)))
    };
    (status, json)
}

fn ticket(id: &str, status: &str) -> serde_json::Value {
    serde_json::json!({
        "id": id,
        "title": format!("ticket {id}"),
        "status": status,
        // Open tickets are listed by resolver (GSI1 is sparse on it).
        "resolver": "ada",
        "created_at": "2024-05-01T12:00:00Z",
    })
}

#[tokio::test]
async fn tickets_over_http() {
    let app = app().await;
    let calls = CallRecorder::default();
    let _guard = calls.install();

    // Created as JSON, with the stored enum values; read back the same.
    for i in 0..7 {
        let status = if i == 3 { "CLOSED" } else { "OPEN" };
        let (code, body) = send(
            &app,
            "POST",
            "/tickets",
            Some("acme"),
            Some(ticket(&format!("a{i}"), status)),
        )
        .await;
        assert_eq!(code, StatusCode::CREATED, "{body}");
    }
    for i in 0..2 {
        let (code, _) = send(
            &app,
            "POST",
            "/tickets",
            Some("globex"),
            Some(ticket(&format!("g{i}"), "OPEN")),
        )
        .await;
        assert_eq!(code, StatusCode::CREATED);
    }
    let (code, body) = send(&app, "GET", "/tickets/a1", Some("acme"), None).await;
    assert_eq!(code, StatusCode::OK);
    let read: Ticket = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(read.status, Status::Open);
    assert_eq!(body["status"], "OPEN");
    assert_eq!(body["created_at"], "2024-05-01T12:00:00Z");

    // One span per repository call: the read above was one query.
    let spans = calls.calls();
    let last = spans.last().unwrap();
    assert_eq!(last.name, "singletable.query");
    assert_eq!(last.fields["pattern"], "ticket_summary");
    assert_eq!(spans.len(), 7 + 2 + 1, "{spans:#?}");
    assert!(spans[..9].iter().all(|s| s.fields["operation"] == "create"));

    // Paged through tokens: every open ticket of acme once, none of globex.
    calls.clear();
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let mut first_token = None;
    let mut requests = 0;
    loop {
        requests += 1;
        let uri = match &token {
            Some(t) => format!("/tickets?limit=2&page_token={t}"),
            None => "/tickets?limit=2".to_owned(),
        };
        let (code, body) = send(&app, "GET", &uri, Some("acme"), None).await;
        assert_eq!(code, StatusCode::OK, "{body}");
        let page: ListPage<Ticket> = serde_json::from_value(body).unwrap();
        assert!(page.items.len() <= 2);
        seen.extend(page.items.into_iter().map(|t| t.id));
        match page.next_page_token {
            Some(next) => {
                assert!(!next.contains("acme") && !next.contains("TENANT"), "{next}");
                first_token.get_or_insert(next.clone());
                token = Some(next);
            }
            None => break,
        }
    }
    seen.sort();
    assert_eq!(seen, ["a0", "a1", "a2", "a4", "a5", "a6"]);
    let pages = calls.calls();
    assert!(pages
        .iter()
        .all(|s| s.name == "singletable.query" && s.fields["pattern"] == "open_tickets"));
    // A page cut by its limit cannot know nothing follows: 3 full pages,
    // then an empty one.
    assert_eq!(requests, 4);
    assert_eq!(
        pages.len(),
        requests,
        "one call per HTTP request: {pages:#?}"
    );

    // Refused before any request: another tenant's token, a forged one.
    calls.clear();
    let acme_token = first_token.unwrap();
    let (code, body) = send(
        &app,
        "GET",
        &format!("/tickets?page_token={acme_token}"),
        Some("globex"),
        None,
    )
    .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    let error: ErrorBody = serde_json::from_value(body).unwrap();
    assert_eq!(error.code, "bad_page_token");
    assert!(
        error.message.contains("another tenant"),
        "{}",
        error.message
    );
    let mut forged = acme_token.clone();
    forged.replace_range(10..11, if &forged[10..11] == "A" { "B" } else { "A" });
    let (code, _) = send(
        &app,
        "GET",
        &format!("/tickets?page_token={forged}"),
        Some("acme"),
        None,
    )
    .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    let refused = calls.calls();
    assert!(
        refused.is_empty(),
        "a refused token makes no DynamoDB call: {refused:#?}"
    );

    tenants_apart_errors_typed(&app).await;
}

/// Another tenant's ticket is not found, a missing or forged bearer is
/// unauthorized, and bad input gets its typed error.
async fn tenants_apart_errors_typed(app: &Router) {
    let app = app.clone();
    let (code, _) = send(&app, "GET", "/tickets/a1", Some("globex"), None).await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    let (code, _) = send(&app, "GET", "/tickets/a1", None, None).await;
    assert_eq!(code, StatusCode::UNAUTHORIZED);
    let request = Request::get("/tickets/a1")
        .header(
            header::AUTHORIZATION,
            format!("Bearer {}x", bearer_token(AUTH_KEY, "acme")),
        )
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        app.clone().oneshot(request).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let (code, body) = send(
        &app,
        "POST",
        "/tickets",
        Some("acme"),
        Some(ticket("a1", "OPEN")),
    )
    .await;
    assert_eq!(code, StatusCode::CONFLICT, "{body}");
    let (code, body) = send(
        &app,
        "POST",
        "/tickets",
        Some("acme"),
        Some(ticket("bad id!", "OPEN")),
    )
    .await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "invalid_value");
    let (code, _) = send(
        &app,
        "POST",
        "/tickets",
        Some("acme"),
        Some(ticket("a9", "Open")),
    )
    .await;
    assert_eq!(
        code,
        StatusCode::UNPROCESSABLE_ENTITY,
        "an enum value not as stored is refused by serde"
    );
}

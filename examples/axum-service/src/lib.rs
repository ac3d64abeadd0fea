//! An HTTP API on the support-ticket design, as a service would build it.
//!
//! - The tenant comes from a verified bearer token (`Authorization: Bearer
//!   <tenant>.<HMAC-SHA256 of it>`, as an auth service would sign it), never
//!   from the request body or path: every repository call goes through
//!   `repo.for_tenant(&tenant)`.
//! - Entities are the generated types, read and written as JSON through
//!   serde (names and enum values as stored).
//! - Lists are paged with opaque page tokens bound to the tenant, the
//!   access pattern and its parameters.
//! - Errors are typed and map to status codes; a refused page token is a
//!   400 before any request to DynamoDB.
//! - With the runtime's `tracing` feature, each DynamoDB call is one span.

singletable_runtime::include_generated!(pub support_ticket);

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use singletable_runtime::Error;
pub use support_ticket::{Repository, TenantId, Ticket};

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    /// The repository (one client, one table, the keys page tokens are
    /// sealed with: `Repository::with_page_tokens`).
    pub repo: Repository,
    /// The key bearer tokens are signed with.
    pub auth_key: Vec<u8>,
}

/// The service's routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/tickets", get(list_open_tickets).post(create_ticket))
        .route("/tickets/{id}", get(get_ticket))
        .with_state(state)
}

/// A bearer token for `tenant`, signed with `key` (what the auth service
/// hands out; here for tests and the demo).
pub fn bearer_token(key: &[u8], tenant: &str) -> String {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    format!(
        "{}.{}",
        b64.encode(tenant),
        b64.encode(sign(key, tenant.as_bytes()))
    )
}

fn sign(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// The tenant of a request, from its verified bearer token.
pub struct Tenant(pub TenantId);

impl FromRequestParts<AppState> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let header = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or(ApiError::Unauthorized)?;
        let (tenant, signature) = header.split_once('.').ok_or(ApiError::Unauthorized)?;
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let tenant = b64.decode(tenant).map_err(|_| ApiError::Unauthorized)?;
        let signature = b64.decode(signature).map_err(|_| ApiError::Unauthorized)?;
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&state.auth_key)
            .expect("HMAC takes any key length");
        mac.update(&tenant);
        mac.verify_slice(&signature)
            .map_err(|_| ApiError::Unauthorized)?;
        let tenant = String::from_utf8(tenant).map_err(|_| ApiError::Unauthorized)?;
        // Signed, yet checked against the spec's tenant rules all the same.
        let tenant = TenantId::new(tenant).map_err(|_| ApiError::Unauthorized)?;
        Ok(Tenant(tenant))
    }
}

/// The errors of the API, each with its status code.
#[derive(Debug)]
pub enum ApiError {
    /// No valid bearer token.
    Unauthorized,
    /// No such item.
    NotFound,
    /// A body that is not the JSON of the entity (an enum value not as
    /// stored, a missing attribute, …), with the status axum gives it.
    Body(StatusCode, String),
    /// A repository error.
    Repository(Error),
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError::Repository(e)
    }
}

/// The JSON body of an error.
#[derive(Debug, Serialize, Deserialize)]
pub struct ErrorBody {
    /// A stable code.
    pub code: String,
    /// What went wrong.
    pub message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, message) = match &self {
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "a valid bearer token is required".to_owned(),
            ),
            ApiError::NotFound => (
                StatusCode::NOT_FOUND,
                "not_found",
                "no such item".to_owned(),
            ),
            ApiError::Body(status, message) => (*status, "invalid_body", message.clone()),
            ApiError::Repository(e) => match e {
                Error::Token(t) => (StatusCode::BAD_REQUEST, "bad_page_token", t.to_string()),
                Error::Value(v) => (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "invalid_value",
                    v.to_string(),
                ),
                Error::ConditionFailed { .. } | Error::VersionConflict { .. } => {
                    (StatusCode::CONFLICT, "conflict", e.to_string())
                }
                Error::Service(_) if e.service_code() == Some("ThrottlingException") => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "throttled",
                    "try again later".to_owned(),
                ),
                // Details of stored data and of the service stay in the logs.
                _ => (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "the request could not be completed".to_owned(),
                ),
            },
        };
        let body = ErrorBody {
            code: code.to_owned(),
            message,
        };
        (status, Json(body)).into_response()
    }
}

async fn create_ticket(
    State(state): State<AppState>,
    Tenant(tenant): Tenant,
    body: Result<Json<Ticket>, JsonRejection>,
) -> Result<(StatusCode, Json<Ticket>), ApiError> {
    let Json(ticket) = body.map_err(|e| ApiError::Body(e.status(), e.body_text()))?;
    // The item as written: what the table holds, also where the repository
    // sets attributes of its own.
    let written = state
        .repo
        .for_tenant(&tenant)
        .create_ticket(&ticket)
        .await?;
    Ok((StatusCode::CREATED, Json(written)))
}

async fn get_ticket(
    State(state): State<AppState>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
) -> Result<Json<Ticket>, ApiError> {
    let ticket = state
        .repo
        .for_tenant(&tenant)
        .ticket_summary(&id)
        .first()
        .await?;
    ticket.map(Json).ok_or(ApiError::NotFound)
}

/// `GET /tickets?limit=&page_token=`.
#[derive(Debug, Deserialize)]
pub struct ListParams {
    /// Items per page (1–100, default 20).
    pub limit: Option<usize>,
    /// Where the previous page ended.
    pub page_token: Option<String>,
}

/// A page of a list.
#[derive(Debug, Serialize, Deserialize)]
pub struct ListPage<T> {
    /// The items.
    pub items: Vec<T>,
    /// Pass it back as `page_token` for the next page; absent after the last.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub next_page_token: Option<String>,
}

async fn list_open_tickets(
    State(state): State<AppState>,
    Tenant(tenant): Tenant,
    Query(params): Query<ListParams>,
) -> Result<Json<ListPage<Ticket>>, ApiError> {
    let limit = params.limit.unwrap_or(20).clamp(1, 100);
    let page = state
        .repo
        .for_tenant(&tenant)
        .open_tickets()
        .page(limit, params.page_token.as_deref())
        .await?;
    if let Some(e) = page.errors.into_iter().next() {
        return Err(e.into());
    }
    Ok(Json(ListPage {
        items: page.items,
        next_page_token: page.next_token,
    }))
}

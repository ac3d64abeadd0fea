//! A multi-tenant time-tracking API on one DynamoDB table, in one file.
//!
//! - Every call goes through the workspace's own repository handle
//!   (`repo.for_tenant(&workspace)`): no handler can read another
//!   workspace's items, whatever the request says.
//! - Request bodies are the generated input types (`NewProject`,
//!   `NewEntry`): no timestamps, which the repository sets, and a total
//!   that starts at its default.
//! - A get takes its key's parts (`t.project(&id)`); a list is one call for
//!   one page (`.page(limit, token)`), with an opaque page token.
//! - Logging time is one transaction, written as one expression, and a
//!   refusal says which step failed as an enum, not a string.
//!
//! The workspace comes from an `x-workspace` header here, to keep the file
//! short; a real service takes it from a verified token
//! (`examples/axum-service`).

singletable_runtime::include_generated!(pub time_tracking);

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use singletable_runtime::Error;
pub use time_tracking::Repository;
use time_tracking::{
    Entry, LogTimeStep, LogTimeWritten, NewEntry, NewProject, Project, ProjectKey, ProjectUpdate,
    TenantId,
};

/// The API's routes over one repository.
pub fn router(repo: Repository) -> Router {
    Router::new()
        .route("/projects", get(list_projects).post(create_project))
        .route("/projects/{id}", get(get_project))
        .route("/projects/{id}/entries", get(list_entries))
        .route("/entries", post(log_time))
        .with_state(repo)
}

/// The workspace a request acts for.
pub struct Workspace(TenantId);

impl<S: Send + Sync> FromRequestParts<S> for Workspace {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let header = parts
            .headers
            .get("x-workspace")
            .and_then(|v| v.to_str().ok());
        // Checked against the spec's tenant rules before any request.
        let id = header.and_then(|h| TenantId::new(h).ok());
        id.map(Workspace).ok_or(ApiError::Unauthorized)
    }
}

/// What went wrong, as a status code and a JSON body.
#[derive(Debug)]
pub enum ApiError {
    /// No valid workspace.
    Unauthorized,
    /// No such item.
    NotFound(&'static str),
    /// The item exists already.
    Conflict(&'static str),
    /// Anything else the repository refused.
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
    /// What went wrong.
    pub error: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, error) = match self {
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "no workspace".to_owned()),
            ApiError::NotFound(what) => (StatusCode::NOT_FOUND, format!("no such {what}")),
            ApiError::Conflict(what) => (StatusCode::CONFLICT, format!("the {what} exists")),
            ApiError::Repository(Error::Value(e)) => {
                (StatusCode::UNPROCESSABLE_ENTITY, e.to_string())
            }
            ApiError::Repository(Error::Token(e)) => (StatusCode::BAD_REQUEST, e.to_string()),
            ApiError::Repository(Error::ConditionFailed { .. }) => {
                (StatusCode::CONFLICT, "the item exists".to_owned())
            }
            ApiError::Repository(_) => (StatusCode::INTERNAL_SERVER_ERROR, "try again".to_owned()),
        };
        (status, Json(ErrorBody { error })).into_response()
    }
}

async fn create_project(
    State(repo): State<Repository>,
    Workspace(ws): Workspace,
    Json(body): Json<NewProject>,
) -> Result<(StatusCode, Json<Project>), ApiError> {
    // The project as written: timestamps set, the total at its default.
    let project = repo.for_tenant(&ws).create_project(&body.into()).await?;
    Ok((StatusCode::CREATED, Json(project)))
}

async fn get_project(
    State(repo): State<Repository>,
    Workspace(ws): Workspace,
    Path(id): Path<String>,
) -> Result<Json<Project>, ApiError> {
    let project = repo.for_tenant(&ws).project(&id).await?;
    project.map(Json).ok_or(ApiError::NotFound("project"))
}

/// `?limit=&page_token=` of a list.
#[derive(Debug, Deserialize)]
pub struct PageParams {
    /// Items per page (1–100, default 20).
    pub limit: Option<usize>,
    /// Where the previous page ended.
    pub page_token: Option<String>,
}

/// One page of a list.
#[derive(Debug, Serialize, Deserialize)]
pub struct ListPage<T> {
    /// The items.
    pub items: Vec<T>,
    /// The next page's `page_token`; absent after the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// One page as the API answers it: an item that did not decode, or that
/// the repository refused as another tenant's, fails the request.
fn list_page<T>(page: singletable_runtime::Page<T>) -> Result<Json<ListPage<T>>, ApiError> {
    if let Some(e) = page.errors.into_iter().next() {
        return Err(e.into());
    }
    Ok(Json(ListPage {
        items: page.items,
        next_page_token: page.next_token,
    }))
}

fn limit(p: &PageParams) -> usize {
    p.limit.unwrap_or(20).clamp(1, 100)
}

async fn list_projects(
    State(repo): State<Repository>,
    Workspace(ws): Workspace,
    Query(p): Query<PageParams>,
) -> Result<Json<ListPage<Project>>, ApiError> {
    let t = repo.for_tenant(&ws);
    let page = t
        .projects()
        .page(limit(&p), p.page_token.as_deref())
        .await?;
    list_page(page)
}

async fn list_entries(
    State(repo): State<Repository>,
    Workspace(ws): Workspace,
    Path(id): Path<String>,
    Query(p): Query<PageParams>,
) -> Result<Json<ListPage<Entry>>, ApiError> {
    let t = repo.for_tenant(&ws);
    let page = t
        .project_entries(&id)
        .page(limit(&p), p.page_token.as_deref())
        .await?;
    list_page(page)
}

/// `POST /entries`: the entry and the project's new total, in one
/// transaction; 404 when there is no such project, 409 when the entry
/// exists, and nothing written either way.
async fn log_time(
    State(repo): State<Repository>,
    Workspace(ws): Workspace,
    Json(body): Json<NewEntry>,
) -> Result<(StatusCode, Json<Entry>), ApiError> {
    let entry = Entry::from(body);
    let project = ProjectKey {
        project_id: entry.project_id.clone(),
    };
    let sent = repo
        .for_tenant(&ws)
        .log_time()
        .create_entry(&entry)
        .update_project(
            &project,
            ProjectUpdate::default().add_total_minutes(entry.minutes),
        )
        .send()
        .await;
    let written = match sent {
        Ok(written) => written,
        Err(e) => {
            return Err(match LogTimeStep::failed(&e).first() {
                Some((LogTimeStep::CreateEntry, _)) => ApiError::Conflict("entry"),
                Some((LogTimeStep::UpdateProject, _)) => ApiError::NotFound("project"),
                None => ApiError::Repository(e),
            })
        }
    };
    // What the transaction wrote, step by step: the entry as stored.
    let stored = written.into_iter().find_map(|w| match w {
        LogTimeWritten::CreateEntry(entry) => Some(entry),
        LogTimeWritten::UpdateProject(_) => None,
    });
    Ok((StatusCode::CREATED, Json(stored.unwrap_or(entry))))
}

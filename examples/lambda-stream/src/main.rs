//! The Lambda's entry point: `TABLE_NAME` names the table whose stream
//! invokes it (the spec's name otherwise).

// The Lambda runtime's service stack is deeper than rustc's default layout
// query depth.
#![recursion_limit = "256"]

use lambda_runtime::{service_fn, Error, LambdaEvent};
use lambda_stream::{client_from_env, handle, Repository};

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mut repo = Repository::new(client_from_env()?);
    if let Ok(table) = std::env::var("TABLE_NAME") {
        repo = repo.with_table_name(table);
    }
    let repo = &repo;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<_>| async move {
        let outcome = handle(repo, event).await?;
        println!("{outcome:?}");
        Ok::<_, Error>(outcome.response())
    }))
    .await
}

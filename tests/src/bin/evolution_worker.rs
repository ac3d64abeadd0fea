//! One worker of the evolution test's migration jobs: the command line of
//! the second design's `migrations` (`run <job> --worker I --workers W
//! --live`, `status`, `verify`, …) on the server `DYNAMODB_ENDPOINT` names,
//! as a deployment's job binary runs it.

use std::process::ExitCode;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") else {
        eprintln!("error: DYNAMODB_ENDPOINT names no server");
        return ExitCode::from(2);
    };
    // The runner retries what fails transiently itself.
    let client = singletable_tests::server::client_with_short_backoff(&endpoint);
    singletable_tests::evolution::v2::migrations::main(client).await
}

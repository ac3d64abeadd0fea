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
    // The runner retries what fails transiently itself; the SDK's own
    // retries back off briefly (its standard first backoff is a second).
    let client = singletable_tests::server::client(&endpoint);
    let config = client
        .config()
        .to_builder()
        .retry_config(
            singletable_runtime::sdk::config::retry::RetryConfig::standard()
                .with_initial_backoff(std::time::Duration::from_millis(20)),
        )
        .build();
    let client = singletable_runtime::sdk::Client::from_conf(config);
    singletable_tests::evolution::v2::migrations::main(client).await
}

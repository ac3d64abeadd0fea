//! The generated policies enforced by a running server: fakecloud, a local
//! AWS emulator that evaluates IAM policies (`dynamodb:LeadingKeys`,
//! principal tags, explicit Denies) on every DynamoDB request. For every
//! spec in `schemas/`, the same scenarios as `iam.rs` (every access pattern
//! and entity operation of the generated repository) run for real, as
//! roles that hold the generated principal-tag policies:
//!
//! - the runtime policy, as tenant `a`: no step of `a`'s own scenario is
//!   refused for want of permission (other errors — an item that is not
//!   there — are the server's answer to an allowed request); every step of
//!   tenant `b`'s scenario that sends a request is `AccessDenied`;
//! - each role's policy: its access patterns allowed for its tenant, denied
//!   for the other;
//! - the stream handler's policy (`<stem>.stream.iam.json`): its counter
//!   updates allowed for every tenant, while a tenant's own credentials are
//!   denied the same updates (`DenyDerivedWrites`).
//!
//! fakecloud reads principal tags from the role (it does not model session
//! tags), so each tenant gets a role tagged with its id. Needs
//! `SINGLETABLE_FAKECLOUD` (the endpoint `scripts/fakecloud/run start`
//! prints; `scripts/test` sets it); skipped without it, except under `CI`.

// `work_queue` is run by `iam.rs` alone (see `specs`).
#[path = "iam/scenarios.rs"]
#[allow(dead_code)]
mod scenarios;

use std::sync::Arc;

use singletable_runtime::iam::{AwsTarget, PolicyTemplate};
use singletable_runtime::sdk;
use singletable_tests::capture::{Recorder, Step};
use singletable_tests::generated::*;

const ACCOUNT: &str = "123456789012";
const REGION: &str = "us-east-1";

fn endpoint() -> Option<String> {
    match std::env::var("SINGLETABLE_FAKECLOUD") {
        Ok(endpoint) if !endpoint.is_empty() => Some(endpoint),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the IAM-enforcing server: set SINGLETABLE_FAKECLOUD (scripts/test does)"
            );
            eprintln!("SINGLETABLE_FAKECLOUD is not set: the enforced-policy tests are skipped (scripts/test runs them)");
            None
        }
    }
}

/// The emulator's root: keys named `test…` are its administrator.
fn admin() -> sdk::config::Credentials {
    sdk::config::Credentials::new("test", "test", None, None, "fakecloud-root")
}

/// What the test knows of one spec.
struct Spec {
    name: &'static str,
    /// The principal tag of a multi-tenant spec.
    tag: Option<&'static str>,
    policies: Vec<(Option<&'static str>, PolicyTemplate)>,
    /// The spec as compiled (its roles).
    ir: singletable::ir::Spec,
    table: &'static singletable_runtime::schema::TableDef,
    table_name: &'static str,
}

macro_rules! spec {
    ($m:ident) => {
        Spec {
            name: stringify!($m),
            tag: $m::IAM_POLICY.principal_tag,
            policies: std::iter::once((None, $m::IAM_POLICY))
                .chain($m::IAM_ROLE_POLICIES.iter().map(|(n, p)| (Some(*n), *p)))
                .collect(),
            ir: compile(stringify!($m)),
            table: &$m::TABLE,
            table_name: $m::TABLE_NAME,
        }
    };
}

fn specs() -> Vec<Spec> {
    vec![
        spec!(contest_votes),
        spec!(global_roles),
        spec!(inverted_role_index),
        spec!(iot_device_reports),
        spec!(monthly_activity),
        spec!(photo_site),
        spec!(pooled_product_catalog),
        spec!(project_task_comment),
        spec!(saas_tenant_users_orders),
        spec!(shopping_cart),
        spec!(short_lived_messages),
        spec!(support_ticket),
        spec!(vertical_partitioning),
        // Not `work_queue`: fakecloud 0.51.0 (the newest release) refuses a
        // multi-attribute index key in CreateTable ("Member must have
        // length less than or equal to 2"); `iam.rs` evaluates its policies.
    ]
}

/// Runs the scenario of `spec` for `tenant` as `credentials`.
async fn scenario(
    endpoint: &str,
    credentials: &sdk::config::Credentials,
    spec: &str,
    tenant: Option<&str>,
) -> Vec<Step> {
    let rec = Recorder::live(endpoint, credentials.clone());
    match spec {
        "contest_votes" => scenarios::contest_votes(&rec, tenant).await,
        "global_roles" => scenarios::global_roles(&rec, tenant).await,
        "inverted_role_index" => scenarios::inverted_role_index(&rec, tenant).await,
        "iot_device_reports" => scenarios::iot_device_reports(&rec, tenant).await,
        "monthly_activity" => scenarios::monthly_activity(&rec, tenant).await,
        "photo_site" => scenarios::photo_site(&rec, tenant).await,
        "pooled_product_catalog" => scenarios::pooled_product_catalog(&rec, tenant).await,
        "project_task_comment" => scenarios::project_task_comment(&rec, tenant).await,
        "saas_tenant_users_orders" => scenarios::saas_tenant_users_orders(&rec, tenant).await,
        "shopping_cart" => scenarios::shopping_cart(&rec, tenant).await,
        "short_lived_messages" => scenarios::short_lived_messages(&rec, tenant).await,
        "support_ticket" => scenarios::support_ticket(&rec, tenant).await,
        "vertical_partitioning" => scenarios::vertical_partitioning(&rec, tenant).await,
        other => panic!("no scenario for {other}"),
    }
    sent(&rec)
}

/// The stream handler's scenario of `spec` for `tenant` as `credentials`;
/// empty for a spec whose stream keeps no counter.
async fn stream(
    endpoint: &str,
    credentials: &sdk::config::Credentials,
    spec: &str,
    tenant: &str,
) -> Vec<Step> {
    let rec = Recorder::live(endpoint, credentials.clone());
    match spec {
        "support_ticket" => scenarios::support_ticket_stream(&rec, tenant).await,
        "monthly_activity" => scenarios::monthly_activity_stream(&rec, tenant).await,
        _ => {}
    }
    sent(&rec)
}

/// The steps that sent a request (a step refused before sending judges no
/// policy).
fn sent(rec: &Arc<Recorder>) -> Vec<Step> {
    rec.steps()
        .into_iter()
        .filter(|s| !s.requests.is_empty())
        .collect()
}

/// The emulator's IAM and STS, as its administrator.
struct Iam {
    iam: aws_sdk_iam::Client,
    sts: aws_sdk_sts::Client,
    endpoint: String,
}

impl Iam {
    fn new(endpoint: &str) -> Iam {
        let iam = aws_sdk_iam::Config::builder()
            .behavior_version(aws_sdk_iam::config::BehaviorVersion::latest())
            .region(aws_sdk_iam::config::Region::new(REGION))
            .endpoint_url(endpoint)
            .credentials_provider(admin())
            .build();
        let sts = aws_sdk_sts::Config::builder()
            .behavior_version(aws_sdk_sts::config::BehaviorVersion::latest())
            .region(aws_sdk_sts::config::Region::new(REGION))
            .endpoint_url(endpoint)
            .credentials_provider(admin())
            .build();
        Iam {
            iam: aws_sdk_iam::Client::from_conf(iam),
            sts: aws_sdk_sts::Client::from_conf(sts),
            endpoint: endpoint.to_owned(),
        }
    }

    /// A role holding `policy`, tagged `tag`, and the credentials of a
    /// session of it.
    async fn role(
        &self,
        name: &str,
        tag: Option<(&str, &str)>,
        policy: &str,
    ) -> sdk::config::Credentials {
        let trust = format!(
            r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Allow","Principal":{{"AWS":"arn:aws:iam::{ACCOUNT}:root"}},"Action":["sts:AssumeRole","sts:TagSession"]}}]}}"#
        );
        let mut create = self
            .iam
            .create_role()
            .role_name(name)
            .assume_role_policy_document(trust);
        if let Some((key, value)) = tag {
            let tag = aws_sdk_iam::types::Tag::builder()
                .key(key)
                .value(value)
                .build()
                .expect("a tag");
            create = create.tags(tag);
        }
        create
            .send()
            .await
            .unwrap_or_else(|e| panic!("CreateRole {name}: {e:?}"));
        self.iam
            .put_role_policy()
            .role_name(name)
            .policy_name("singletable")
            .policy_document(policy)
            .send()
            .await
            .unwrap_or_else(|e| panic!("PutRolePolicy {name}: {e:?}\n{policy}"));
        let session = self
            .sts
            .assume_role()
            .role_arn(format!("arn:aws:iam::{ACCOUNT}:role/{name}"))
            .role_session_name("singletable-test")
            .send()
            .await
            .unwrap_or_else(|e| panic!("AssumeRole {name}: {e:?}"));
        let c = session.credentials().expect("credentials");
        sdk::config::Credentials::new(
            c.access_key_id(),
            c.secret_access_key(),
            Some(c.session_token().to_owned()),
            None,
            "fakecloud-role",
        )
    }
}

/// What went against expectations, and how many steps were judged.
#[derive(Default)]
struct Verdicts {
    allowed: usize,
    denied: usize,
    wrong: Vec<String>,
    /// Allowed steps the server answered with another error: the error's
    /// code or first words, and how often.
    answered: std::collections::BTreeMap<String, usize>,
}

impl Verdicts {
    fn expect(&mut self, what: &str, steps: &[Step], allowed: bool) {
        assert!(!steps.is_empty(), "{what}: no step sent a request");
        for step in steps {
            if step.denied() == allowed {
                self.wrong.push(format!(
                    "{what}: `{}` ({:?}) expected {}, got {}",
                    step.label,
                    step.requests
                        .iter()
                        .map(|r| (r.action, &r.keys))
                        .collect::<Vec<_>>(),
                    if allowed { "allowed" } else { "AccessDenied" },
                    step.error.as_deref().unwrap_or("success")
                ));
            } else if allowed {
                self.allowed += 1;
                if let Some(error) = &step.error {
                    let code = error
                        .split("code: Some(\"")
                        .nth(1)
                        .and_then(|c| c.split('"').next())
                        .unwrap_or_else(|| error.split(['(', ' ', '{']).next().unwrap_or(error));
                    *self.answered.entry(code.to_owned()).or_default() += 1;
                }
            } else {
                self.denied += 1;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_enforces_the_generated_policies() {
    let Some(endpoint) = endpoint() else { return };
    let iam = Iam::new(&endpoint);
    let target = AwsTarget::new("aws", REGION, ACCOUNT).expect("a target");
    let root = singletable_tests::server::client(&endpoint)
        .config()
        .to_builder()
        .credentials_provider(admin())
        .build();
    let root = sdk::Client::from_conf(root);
    let mut v = Verdicts::default();
    for spec in specs() {
        // Another test pass on this server may have created it.
        if let Err(e) = spec.table.create(&root, spec.table_name).await {
            assert!(
                format!("{e:?}").contains("ResourceInUse"),
                "{}: CreateTable: {e:?}",
                spec.name
            );
        }
        let tenants = spec.tag.map(|tag| (tag, ["acme", "globex"]));
        for (role, template) in &spec.policies {
            let declared = role.map(|r| &spec.ir.roles[r]);
            // An admin role scans: no tenant's, and judged by `iam.rs`.
            if declared.is_some_and(|r| spec.ir.is_admin_role(r)) {
                continue;
            }
            let label = role.unwrap_or("runtime");
            let policy = template.principal_tag_policy(&target);
            let patterns: Option<Vec<&str>> =
                declared.map(|r| r.access_patterns.iter().map(|p| p.as_str()).collect());
            let mine = |steps: Vec<Step>| -> Vec<Step> {
                steps
                    .into_iter()
                    .filter(|s| {
                        patterns
                            .as_ref()
                            .is_none_or(|p| p.contains(&s.label.as_str()))
                    })
                    .collect()
            };
            // Role names of this process (another pass may share the server).
            let name = format!("{}-{label}-{}", spec.name, std::process::id()).replace('_', "-");
            match tenants {
                None => {
                    let credentials = iam.role(&name, None, &policy).await;
                    let steps = mine(scenario(&iam.endpoint, &credentials, spec.name, None).await);
                    v.expect(&format!("{} {label}", spec.name), &steps, true);
                }
                Some((tag, [a, b])) => {
                    let credentials = iam
                        .role(&format!("{name}-{a}"), Some((tag, a)), &policy)
                        .await;
                    // A step is allowed when its keys are the principal's
                    // own, or, for a role, global keys its access patterns
                    // reach (the runtime policy grants no global key); a
                    // key of the other tenant is denied.
                    let expect = |step: &Step| {
                        let keys = || step.requests.iter().flat_map(|r| &r.keys);
                        let theirs = keys().any(|k| k.contains(b));
                        let global = keys().any(|k| !k.contains(a) && !k.contains(b));
                        !theirs && (role.is_some() || !global)
                    };
                    for tenant in [a, b] {
                        let steps = mine(
                            scenario(&iam.endpoint, &credentials, spec.name, Some(tenant)).await,
                        );
                        for allowed in [true, false] {
                            let judged: Vec<Step> = steps
                                .iter()
                                .filter(|s| expect(s) == allowed)
                                .cloned()
                                .collect();
                            if !judged.is_empty() {
                                let what =
                                    format!("{} {label} as `{a}`: tenant `{tenant}`'s", spec.name);
                                v.expect(&what, &judged, allowed);
                            }
                        }
                    }
                    if role.is_none() {
                        // A tenant never writes the counters the stream keeps.
                        let counters = stream(&iam.endpoint, &credentials, spec.name, a).await;
                        if !counters.is_empty() {
                            let what = format!("{} runtime as `{a}`: its counters", spec.name);
                            v.expect(&what, &counters, false);
                        }
                    }
                }
            }
        }
        // The stream handler updates every tenant's counters.
        if let Some(policy) = singletable::emit::iam::stream_policy(
            &spec.ir,
            &singletable::emit::iam::AwsTarget::new("aws", REGION, ACCOUNT).expect("a target"),
        ) {
            let policy = singletable::emit::iam::to_pretty_json(&policy);
            let name = format!("{}-stream-{}", spec.name, std::process::id()).replace('_', "-");
            let credentials = iam.role(&name, None, &policy).await;
            for tenant in ["acme", "globex"] {
                let steps = stream(&iam.endpoint, &credentials, spec.name, tenant).await;
                let what = format!("{} stream handler: `{tenant}`'s counters", spec.name);
                v.expect(&what, &steps, true);
            }
        }
    }
    assert!(
        v.wrong.is_empty(),
        "{} steps went against the policies:\n{}",
        v.wrong.len(),
        v.wrong.join("\n")
    );
    assert!(
        v.allowed > 100 && v.denied > 50,
        "{} allowed, {} denied",
        v.allowed,
        v.denied
    );
    println!(
        "fakecloud: {} steps allowed and {} denied, as the policies say; allowed steps the server answered with an error: {:?}",
        v.allowed, v.denied, v.answered
    );
}

fn compile(name: &str) -> singletable::ir::Spec {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let schema = root.join("schemas").join(format!("{name}.yaml"));
    let path = match schema.exists() {
        true => schema,
        false => root.join("fixtures/pass").join(format!("{name}.yaml")),
    };
    singletable::Compiler::new()
        .file(&path)
        .compile()
        .specs
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{name} compiles"))
        .spec
}

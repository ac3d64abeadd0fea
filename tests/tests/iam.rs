//! The generated IAM policies of every spec, evaluated by independent
//! evaluators for a matrix of requests built from the keys the generated
//! repositories really produce (recorded by `singletable_tests::capture`):
//!
//! - the own tenant is allowed every action on every table and index its
//!   access patterns use; every access pattern is exercised, and the policy
//!   grants exactly the actions and indexes the repository uses;
//! - another tenant, a tenant whose id is a prefix of the other's (`1` and
//!   `10`), ids made of every allowed principal-tag character, a batch
//!   mixing own and other keys, a query on an index not in the policy, a
//!   Scan, a full-table PartiQL select and a request without the principal
//!   tag are all denied (Scan and PartiQL explicitly);
//! - a role is allowed its access patterns and denied the actions it lacks.
//!
//! `iam-rs` evaluates in process, on the session policy (the tenant
//! substituted by `singletable_runtime`: it does not substitute variables in
//! conditions). When `SINGLETABLE_IAM_TOOLS` names the directory
//! `scripts/iam-check/install` prints, the principal-tag policies are also
//! evaluated by `@cloud-copilot/iam-simulate` (a separate node process) and
//! every policy is linted by `parliament`, which must report nothing.
//! `scripts/test` sets it; under `CI` it is required.

// `global_roles` is run by `iam_enforced.rs` alone: its runtime policy
// grants no global key, which this matrix's coverage check does not model.
#[path = "iam/scenarios.rs"]
#[allow(dead_code)]
mod scenarios;

#[path = "iam/matrix.rs"]
mod matrix;
#[path = "iam/migration.rs"]
mod migration;

use matrix::*;

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};

use iam_rs::{
    evaluate_policy, Arn, Context, ContextValue, Decision, IAMPolicy, IAMRequest, Principal,
    PrincipalId,
};
use serde_json::{json, Value};
use singletable::{ir, Compiler};
use singletable_runtime::iam::{AwsTarget, PolicyError, PolicyTemplate};
use singletable_tests::capture::{Recorder, Request};
use singletable_tests::generated::*;

const ACCOUNT: &str = "123456789012";
const REGION: &str = "us-east-1";
const PRINCIPAL: &str = "arn:aws:iam::123456789012:role/app";

fn target() -> AwsTarget {
    AwsTarget::new("aws", REGION, ACCOUNT).expect("a valid target")
}

/// What the tests know of one spec.
struct Spec {
    name: &'static str,
    table: &'static str,
    indexes: Vec<&'static str>,
    /// `None` for the runtime policy, else the role.
    policies: Vec<(Option<&'static str>, PolicyTemplate)>,
    valid_tenant: fn(&str) -> bool,
    session: fn(&PolicyTemplate, &str, &AwsTarget) -> Result<String, PolicyError>,
    ir: ir::Spec,
}

fn compile(name: &str) -> ir::Spec {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(format!("{name}.yaml"));
    let compilation = Compiler::new().file(&path).compile();
    compilation
        .specs
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{name} compiles"))
        .spec
}

fn policies(
    runtime: PolicyTemplate,
    roles: &[(&'static str, PolicyTemplate)],
) -> Vec<(Option<&'static str>, PolicyTemplate)> {
    std::iter::once((None, runtime))
        .chain(roles.iter().map(|(name, p)| (Some(*name), *p)))
        .collect()
}

macro_rules! spec {
    (tenant $m:ident) => {
        Spec {
            name: stringify!($m),
            table: $m::TABLE_NAME,
            indexes: $m::TABLE.indexes.iter().map(|i| i.name).collect(),
            policies: policies($m::IAM_POLICY, $m::IAM_ROLE_POLICIES),
            valid_tenant: |id| $m::TenantId::new(id).is_ok(),
            session: |template, id, target| {
                let id = $m::TenantId::new(id).expect("a valid tenant id");
                template.session_policy(&id, target)
            },
            ir: compile(stringify!($m)),
        }
    };
    (shared $m:ident) => {
        Spec {
            name: stringify!($m),
            table: $m::TABLE_NAME,
            indexes: $m::TABLE.indexes.iter().map(|i| i.name).collect(),
            policies: policies($m::IAM_POLICY, $m::IAM_ROLE_POLICIES),
            valid_tenant: |_| false,
            session: |_, _, _| Err(PolicyError::NoTenant),
            ir: compile(stringify!($m)),
        }
    };
}

fn specs() -> Vec<Spec> {
    vec![
        spec!(shared contest_votes),
        spec!(tenant inverted_role_index),
        spec!(shared iot_device_reports),
        spec!(tenant monthly_activity),
        spec!(tenant photo_site),
        spec!(tenant pooled_product_catalog),
        spec!(tenant project_task_comment),
        spec!(tenant saas_tenant_users_orders),
        spec!(shared shopping_cart),
        spec!(shared short_lived_messages),
        spec!(tenant support_ticket),
        spec!(tenant vertical_partitioning),
        spec!(tenant work_queue),
    ]
}

/// Everything the repository of `spec` does, for `tenant`.
async fn capture(spec: &str, tenant: Option<&str>) -> Vec<Request> {
    let rec = Recorder::new();
    match spec {
        "contest_votes" => scenarios::contest_votes(&rec, tenant).await,
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
        "work_queue" => scenarios::work_queue(&rec, tenant).await,
        other => panic!("no scenario for {other}"),
    }
    rec.requests()
}

/// Evaluates with iam-rs on the session policy of the principal's tenant.
fn iam_rs(check: &Check) -> Result<(bool, bool), String> {
    let text = match (&check.json, &check.principal, check.tag) {
        (Some(json), _, _) => json.clone(),
        (None, Some(id), Some(_)) => {
            (check.session)(&check.template, id, &target()).map_err(|e| e.to_string())?
        }
        _ => check.template.principal_tag_policy(&target()),
    };
    let policy =
        IAMPolicy::from_json(&text).map_err(|e| format!("iam-rs cannot read the policy: {e}"))?;
    let mut context = Context::new();
    if let Some(keys) = &check.keys {
        context.insert(
            "dynamodb:LeadingKeys".into(),
            ContextValue::StringList(keys.clone()),
        );
    }
    if check.full_table_scan {
        context.insert("dynamodb:FullTableScan".into(), ContextValue::Boolean(true));
    }
    let resource = Arn::parse(&check.resource).map_err(|e| format!("{e:?}"))?;
    let request = IAMRequest::new_with_context(
        Principal::Aws(PrincipalId::String(PRINCIPAL.into())),
        check.action.clone(),
        resource,
        context,
    );
    let decision = evaluate_policy(&policy, &request).map_err(|e| e.to_string())?;
    Ok((decision == Decision::Allow, decision == Decision::Deny))
}

async fn all_checks() -> Vec<Check> {
    let mut out = Vec::new();
    for spec in specs() {
        out.extend(checks(&spec).await);
    }
    out
}

fn failures(checks: &[Check], verdicts: &[Result<(bool, bool), String>]) -> Vec<String> {
    checks
        .iter()
        .zip(verdicts)
        .filter_map(|(check, verdict)| match verdict {
            Ok((allowed, explicit)) if verdict_matches(check.expect, *allowed, *explicit) => None,
            Ok((allowed, explicit)) => Some(format!(
                "{}: expected {:?}, got allowed={allowed} explicit={explicit}",
                check.what, check.expect
            )),
            Err(e) => Some(format!("{}: {e}", check.what)),
        })
        .collect()
}

#[tokio::test]
async fn iam_rs_allows_own_keys_and_denies_everything_else() {
    let checks = all_checks().await;
    let verdicts: Vec<_> = checks.iter().map(iam_rs).collect();
    let failed = failures(&checks, &verdicts);
    assert!(
        failed.is_empty(),
        "{} of {} checks failed:\n{}",
        failed.len(),
        checks.len(),
        failed.join("\n")
    );
    let allowed = checks
        .iter()
        .filter(|c| c.expect == Expect::Allowed)
        .count();
    assert!(
        allowed > 100 && checks.len() > 3 * allowed / 2,
        "{allowed} of {}",
        checks.len()
    );
    println!(
        "iam-rs: {} checks, {allowed} allowed, all as expected",
        checks.len()
    );
}

/// The directory `scripts/iam-check/install` prints, if given.
fn tools() -> Option<std::path::PathBuf> {
    match std::env::var_os("SINGLETABLE_IAM_TOOLS") {
        Some(dir) if !dir.is_empty() => Some(dir.into()),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the IAM checkers: set SINGLETABLE_IAM_TOOLS (scripts/test does)"
            );
            eprintln!("SINGLETABLE_IAM_TOOLS is not set: iam-simulate and parliament are skipped (scripts/test runs them)");
            None
        }
    }
}

fn run_with_stdin(command: &mut Command, input: &str) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("the process ends")
}

#[tokio::test]
async fn iam_simulate_allows_own_keys_and_denies_everything_else() {
    let Some(tools) = tools() else { return };
    let checks = all_checks().await;
    let requests: Vec<Value> = checks
        .iter()
        .map(|check| {
            let mut context = serde_json::Map::new();
            if let (Some(id), Some(tag)) = (&check.principal, check.tag) {
                context.insert(format!("aws:PrincipalTag/{tag}"), json!(id));
            }
            if let Some(keys) = &check.keys {
                context.insert("dynamodb:LeadingKeys".into(), json!(keys));
            }
            if check.full_table_scan {
                context.insert("dynamodb:FullTableScan".into(), json!("true"));
            }
            let text = match &check.json {
                Some(json) => json.clone(),
                None => check.template.principal_tag_policy(&target()),
            };
            let policy: Value = serde_json::from_str(&text).expect("policy JSON");
            json!({
                "policy": policy,
                "action": check.action,
                "resource": check.resource,
                "accountId": ACCOUNT,
                "principal": PRINCIPAL,
                "context": context,
            })
        })
        .collect();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/iam-check/simulate.mjs");
    let output = run_with_stdin(
        Command::new("node").arg(&script).arg(&tools),
        &Value::Array(requests).to_string(),
    );
    assert!(
        output.status.success(),
        "iam-simulate failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Vec<String> =
        serde_json::from_slice(&output.stdout).expect("a JSON array of results");
    assert_eq!(results.len(), checks.len());
    let verdicts: Vec<_> = results
        .iter()
        .map(|r| match r.as_str() {
            "Allowed" => Ok((true, false)),
            "ExplicitlyDenied" => Ok((false, true)),
            "ImplicitlyDenied" => Ok((false, false)),
            other => Err(other.to_owned()),
        })
        .collect();
    let failed = failures(&checks, &verdicts);
    assert!(
        failed.is_empty(),
        "{} of {} checks failed:\n{}",
        failed.len(),
        checks.len(),
        failed.join("\n")
    );
    println!("iam-simulate: {} checks, all as expected", checks.len());
}

/// Lints a policy with parliament: `Err` with what it reports, unless it
/// exits cleanly and prints nothing.
fn parliament(tools: &std::path::Path, policy: &str) -> Result<(), String> {
    let output = run_with_stdin(&mut Command::new(tools.join("venv/bin/parliament")), policy);
    let findings = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() && findings.trim().is_empty() {
        Ok(())
    } else {
        Err(findings)
    }
}

#[test]
fn parliament_finds_nothing_in_any_policy() {
    let Some(tools) = tools() else { return };
    let mut linted = 0;
    for spec in specs() {
        for (role, template) in &spec.policies {
            let mut texts = vec![("principal-tag", template.principal_tag_policy(&target()))];
            if spec.ir.tenant.is_some() {
                let id = pick(&spec, &["acme", "acme01"]);
                let session = (spec.session)(template, &id, &target()).expect("a session policy");
                texts.push(("session", session));
            }
            for (kind, text) in texts {
                if let Err(findings) = parliament(&tools, &text) {
                    panic!(
                        "{} {} {kind} policy: parliament reports:\n{findings}\n{text}",
                        spec.name,
                        role.unwrap_or("runtime")
                    );
                }
                linted += 1;
            }
        }
        let target =
            singletable::emit::iam::AwsTarget::new("aws", REGION, ACCOUNT).expect("a target");
        if let Some(stream) = singletable::emit::iam::stream_policy(&spec.ir, &target) {
            let text = singletable::emit::iam::to_pretty_json(&stream);
            if let Err(findings) = parliament(&tools, &text) {
                panic!(
                    "{} stream policy: parliament reports:\n{findings}\n{text}",
                    spec.name
                );
            }
            linted += 1;
        }
    }
    assert!(linted >= 20, "{linted} policies linted");
    println!("parliament: {linted} policies, no findings");
}

/// The session policy the runtime makes is the one `singletable generate
/// iam --tenant` writes.
#[test]
fn runtime_session_policies_match_the_compiler() {
    use singletable::emit::iam::{self as emit, AwsTarget as CompilerTarget, TenantValue};
    let compiler_target = CompilerTarget::new("aws", REGION, ACCOUNT).expect("a valid target");
    for spec in specs() {
        let kinds = emit::policy_kinds(&spec.ir);
        assert_eq!(kinds.len(), spec.policies.len(), "{}", spec.name);
        for (kind, (role, template)) in kinds.into_iter().zip(&spec.policies) {
            assert_eq!(kind.role(), *role);
            let abac = emit::policy(&spec.ir, kind, &compiler_target, &TenantValue::PrincipalTag);
            assert_eq!(
                template.principal_tag_policy(&target()),
                emit::to_minified_json(&abac)
            );
            if spec.ir.tenant.is_some() {
                let id = pick(&spec, &["acme", "acme01"]);
                let session = emit::policy(
                    &spec.ir,
                    kind,
                    &compiler_target,
                    &TenantValue::Id(id.clone()),
                );
                assert_eq!(
                    (spec.session)(template, &id, &target()).expect("a session policy"),
                    emit::to_minified_json(&session)
                );
            }
        }
    }
}

#[test]
fn every_spec_is_in_the_matrix() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("schemas/")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".yaml")
                .map(str::to_owned)
        })
        .collect();
    on_disk.sort();
    let listed: Vec<String> = specs().iter().map(|s| s.name.to_owned()).collect();
    assert_eq!(on_disk, listed);
}

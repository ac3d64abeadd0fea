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
        other => panic!("no scenario for {other}"),
    }
    rec.requests()
}

/// The evaluators' verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Allowed,
    /// Explicitly or implicitly.
    Denied,
    ExplicitlyDenied,
}

/// One request to evaluate under one policy.
#[derive(Debug, Clone)]
struct Check {
    what: String,
    template: PolicyTemplate,
    session: fn(&PolicyTemplate, &str, &AwsTarget) -> Result<String, PolicyError>,
    tag: Option<&'static str>,
    /// The principal's tenant tag; `None`: the tag is missing.
    principal: Option<String>,
    action: String,
    resource: String,
    keys: Option<Vec<String>>,
    full_table_scan: bool,
    expect: Expect,
    /// A policy given as JSON instead of `template` (the stream handler's,
    /// which has no tenant).
    json: Option<String>,
}

fn arn(table: &str, index: Option<&str>) -> String {
    match index {
        None => format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}"),
        Some(i) => format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}/index/{i}"),
    }
}

/// The first candidate the spec accepts as a tenant id.
fn pick(spec: &Spec, candidates: &[&str]) -> String {
    candidates
        .iter()
        .find(|c| (spec.valid_tenant)(c))
        .unwrap_or_else(|| panic!("{}: no valid tenant id among {candidates:?}", spec.name))
        .to_string()
}

/// An id of every principal-tag character the spec's tenant ids may contain.
fn tag_character_id(spec: &Spec) -> String {
    let id: String = "aZ09 _.:/=+-@"
        .chars()
        .filter(|c| (spec.valid_tenant)(&c.to_string().repeat(3)))
        .collect();
    assert!((spec.valid_tenant)(&id), "{}: `{id}` is valid", spec.name);
    id
}

/// The Allow statement's actions and index names of a policy.
/// Every (action, index) pair the Allow statements of a policy grant
/// (`None`: the table).
fn grants(template: &PolicyTemplate) -> BTreeSet<(String, Option<String>)> {
    let policy: Value =
        serde_json::from_str(&template.principal_tag_policy(&target())).expect("policy JSON");
    let strings = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut pairs = BTreeSet::new();
    for allow in policy["Statement"].as_array().expect("statements") {
        if allow["Effect"] != "Allow" {
            continue;
        }
        for resource in strings(&allow["Resource"]) {
            let index = resource.split_once("/index/").map(|(_, i)| i.to_owned());
            for action in strings(&allow["Action"]) {
                pairs.insert((action, index.clone()));
            }
        }
    }
    pairs
}

struct Builder<'s> {
    spec: &'s Spec,
    checks: Vec<Check>,
}

impl Builder<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        policy: &(Option<&'static str>, PolicyTemplate),
        what: String,
        principal: Option<&str>,
        request: &Request,
        keys: Option<Vec<String>>,
        expect: Expect,
    ) {
        let tag = self.spec.ir.tenant.as_ref().map(|_| {
            policy
                .1
                .principal_tag
                .expect("a tenant spec's policies have a principal tag")
        });
        self.checks.push(Check {
            what: format!(
                "{} {}: {what}: {} on {} for {:?} ({})",
                self.spec.name,
                policy.0.unwrap_or("runtime"),
                request.action,
                request.index.as_deref().unwrap_or("the table"),
                keys.as_ref().unwrap_or(&request.keys),
                request.label
            ),
            template: policy.1,
            session: self.spec.session,
            tag,
            principal: principal.map(str::to_owned),
            action: request.action.to_owned(),
            resource: arn(self.spec.table, request.index.as_deref()),
            keys: Some(keys.unwrap_or_else(|| request.keys.clone())),
            full_table_scan: false,
            expect,
            json: None,
        });
    }

    /// Scan and a full-table PartiQL select: explicitly denied.
    fn scans(&mut self, policy: &(Option<&'static str>, PolicyTemplate), principal: Option<&str>) {
        let spec = self.spec;
        let mut resources = vec![arn(spec.table, None)];
        resources.extend(spec.indexes.iter().map(|i| arn(spec.table, Some(i))));
        for resource in resources {
            for (action, full_table_scan) in
                [("dynamodb:Scan", false), ("dynamodb:PartiQLSelect", true)]
            {
                self.checks.push(Check {
                    what: format!(
                        "{} {}: {action} on {resource}",
                        spec.name,
                        policy.0.unwrap_or("runtime")
                    ),
                    template: policy.1,
                    session: spec.session,
                    tag: policy.1.principal_tag,
                    principal: principal.map(str::to_owned),
                    action: action.to_owned(),
                    resource: resource.clone(),
                    keys: None,
                    full_table_scan,
                    expect: Expect::ExplicitlyDenied,
                    json: None,
                });
            }
        }
    }

    /// A query with an own key on each index the policy does not grant.
    fn unlisted_indexes(
        &mut self,
        policy: &(Option<&'static str>, PolicyTemplate),
        principal: Option<&str>,
        own: &[Request],
    ) {
        let granted: BTreeSet<String> = grants(&policy.1)
            .into_iter()
            .filter_map(|(_, index)| index)
            .collect();
        let Some(query) = own.iter().find(|r| r.action == "dynamodb:Query") else {
            return;
        };
        let unlisted = self
            .spec
            .indexes
            .iter()
            .map(|i| i.to_string())
            .filter(|i| !granted.contains(i))
            .chain(["NotInPolicy".to_owned()]);
        for index in unlisted {
            let request = Request {
                index: Some(index),
                ..query.clone()
            };
            self.push(
                policy,
                "index not in the policy".into(),
                principal,
                &request,
                None,
                Expect::Denied,
            );
        }
    }
}

/// The whole matrix of one spec.
async fn checks(spec: &Spec) -> Vec<Check> {
    let mut b = Builder {
        spec,
        checks: Vec::new(),
    };
    if spec.ir.tenant.is_none() {
        let own = capture(spec.name, None).await;
        assert_coverage(spec, &own);
        for policy in &spec.policies {
            for r in &own {
                b.push(policy, "own request".into(), None, r, None, Expect::Allowed);
            }
            b.unlisted_indexes(policy, None, &own);
            b.scans(policy, None);
        }
        return b.checks;
    }
    let a = pick(spec, &["acme", "acme01"]);
    let other = pick(spec, &["globex", "globex01"]);
    let short = pick(spec, &["1", "11", "111"]);
    let long = format!("{short}0");
    let tags = tag_character_id(spec);
    let mut by_tenant = Vec::new();
    for id in [&a, &other, &short, &long, &tags] {
        by_tenant.push((id.clone(), capture(spec.name, Some(id)).await));
    }
    assert_coverage(spec, &by_tenant[0].1);
    let own = by_tenant[0].1.clone();
    let foreign = by_tenant[1].1.clone();
    let (runtime, roles) = spec.policies.split_first().expect("a runtime policy");

    // Each tenant is allowed its own requests and denied the others'.
    for (id, requests) in &by_tenant {
        for r in requests {
            b.push(
                runtime,
                format!("own tenant `{id}`"),
                Some(id),
                r,
                None,
                Expect::Allowed,
            );
        }
    }
    let pairs = [
        (0, 1, "another tenant"),
        (1, 0, "another tenant"),
        (2, 3, "a tenant whose id extends the principal's"),
        (3, 2, "a tenant whose id is a prefix of the principal's"),
        (4, 0, "another tenant (tag characters)"),
        (0, 4, "a tenant of every tag character"),
    ];
    for (principal, owner, what) in pairs {
        let principal_id = by_tenant[principal].0.clone();
        for r in &by_tenant[owner].1 {
            b.push(
                runtime,
                format!("{what}: principal `{principal_id}`"),
                Some(&principal_id),
                r,
                None,
                Expect::Denied,
            );
        }
    }
    // A request mixing own keys with another tenant's (a batch) is denied.
    for (r, theirs) in own.iter().zip(&foreign) {
        let mut keys = r.keys.clone();
        keys.extend(theirs.keys.iter().cloned());
        b.push(
            runtime,
            "own and other keys mixed".into(),
            Some(&a),
            r,
            Some(keys),
            Expect::Denied,
        );
    }
    // Without the principal tag nothing is allowed; nor without partition
    // keys (`ForAllValues` alone holds for an empty set: the `Null` guard).
    for r in &own {
        b.push(
            runtime,
            "principal tag missing".into(),
            None,
            r,
            None,
            Expect::Denied,
        );
        b.push(
            runtime,
            "no partition keys".into(),
            Some(&a),
            r,
            None,
            Expect::Denied,
        );
        if let Some(check) = b.checks.last_mut() {
            check.keys = None;
        }
    }
    b.unlisted_indexes(runtime, Some(&a), &own);
    b.scans(runtime, Some(&a));

    for role in roles {
        let name = role.0.expect("a role name");
        let patterns: Vec<&str> = spec.ir.roles[name]
            .access_patterns
            .iter()
            .map(|p| p.as_str())
            .collect();
        let granted = grants(&role.1);
        for r in &own {
            if patterns.contains(&r.label.as_str()) {
                b.push(
                    role,
                    "the role's access pattern".into(),
                    Some(&a),
                    r,
                    None,
                    Expect::Allowed,
                );
                if let Some(theirs) = foreign
                    .iter()
                    .find(|f| f.label == r.label && f.action == r.action)
                {
                    b.push(
                        role,
                        "another tenant".into(),
                        Some(&a),
                        theirs,
                        None,
                        Expect::Denied,
                    );
                }
            } else if !granted.contains(&(r.action.to_owned(), r.index.clone())) {
                // An action the role lacks, or lacks on this table or index
                // (a role that gets items may not query the table).
                b.push(
                    role,
                    "an action the role lacks on this resource".into(),
                    Some(&a),
                    r,
                    None,
                    Expect::Denied,
                );
            }
        }
        b.unlisted_indexes(role, Some(&a), &own);
        b.scans(role, Some(&a));
    }
    stream_checks(&mut b, &a, &other, &own).await;
    b.checks
}

/// What the stream handler of `spec` sends for `tenant`, if it keeps counters.
async fn capture_stream(spec: &str, tenant: &str) -> Vec<Request> {
    let rec = Recorder::new();
    match spec {
        "support_ticket" => scenarios::support_ticket_stream(&rec, tenant).await,
        "monthly_activity" => scenarios::monthly_activity_stream(&rec, tenant).await,
        _ => {}
    }
    rec.requests()
}

/// The counters the stream keeps: the handler's policy allows its updates
/// for every tenant and nothing else; every tenant and role policy denies
/// writes to them explicitly, alone or mixed into a batch.
async fn stream_checks(b: &mut Builder<'_>, a: &str, other: &str, own: &[Request]) {
    let spec = b.spec;
    let handler_a = capture_stream(spec.name, a).await;
    let Some(stream) = singletable::emit::iam::stream_policy(
        &spec.ir,
        &singletable::emit::iam::AwsTarget::new("aws", REGION, ACCOUNT).expect("a target"),
    ) else {
        assert!(
            handler_a.is_empty(),
            "{}: a handler without a policy",
            spec.name
        );
        return;
    };
    assert!(!handler_a.is_empty(), "{}: no stream scenario", spec.name);
    let stream = singletable::emit::iam::to_pretty_json(&stream);
    let counter_keys: BTreeSet<String> = handler_a
        .iter()
        .flat_map(|r| r.keys.iter().cloned())
        .collect();
    let runtime = spec.policies[0];
    let handler = |b: &mut Builder<'_>, what: &str, r: &Request, expect: Expect| {
        b.push(
            &runtime,
            format!("stream handler: {what}"),
            None,
            r,
            None,
            expect,
        );
        let check = b.checks.last_mut().expect("a check was pushed");
        check.json = Some(stream.clone());
        check.tag = None;
    };
    for r in handler_a
        .iter()
        .chain(&capture_stream(spec.name, other).await)
    {
        handler(b, "its counter updates", r, Expect::Allowed);
        // An update refused by its condition reads the counter to tell why.
        let read = Request {
            action: "dynamodb:GetItem",
            ..r.clone()
        };
        handler(b, "a read of its counter", &read, Expect::Allowed);
        for action in ["dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:Query"] {
            let r = Request {
                action,
                ..r.clone()
            };
            handler(b, "another action on a counter", &r, Expect::Denied);
        }
    }
    let other_keys = own
        .iter()
        .filter(|r| r.index.is_none() && r.keys.iter().all(|k| !counter_keys.contains(k)));
    for r in other_keys {
        let r = Request {
            action: "dynamodb:UpdateItem",
            ..r.clone()
        };
        handler(b, "an item that is not a counter", &r, Expect::Denied);
    }
    let template = handler_a[0].clone();
    let write = |action: &'static str| Request {
        action,
        label: "a counter the stream keeps".into(),
        ..template.clone()
    };
    let mixed = own
        .iter()
        .find(|r| r.index.is_none() && r.keys.iter().all(|k| !counter_keys.contains(k)))
        .expect("a write of another item");
    for policy in spec.policies.clone() {
        for action in [
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
            "dynamodb:BatchWriteItem",
        ] {
            let what = "a write of a counter the stream keeps";
            b.push(
                &policy,
                what.into(),
                Some(a),
                &write(action),
                None,
                Expect::ExplicitlyDenied,
            );
        }
        let mut keys = mixed.keys.clone();
        keys.extend(template.keys.iter().cloned());
        let what = "a batch writing a counter among other items";
        let batch = write("dynamodb:BatchWriteItem");
        b.push(
            &policy,
            what.into(),
            Some(a),
            &batch,
            Some(keys),
            Expect::ExplicitlyDenied,
        );
    }
}

/// Every access pattern ran, and the runtime policy grants exactly the
/// actions and indexes the repository used.
fn assert_coverage(spec: &Spec, own: &[Request]) {
    let labels: BTreeSet<&str> = own.iter().map(|r| r.label.as_str()).collect();
    for pattern in spec.ir.access_patterns.keys() {
        assert!(
            labels.contains(pattern.as_str()),
            "{}: `{pattern}` was not exercised",
            spec.name
        );
    }
    assert!(
        own.iter().all(|r| !r.keys.is_empty()),
        "{}: a request without keys",
        spec.name
    );
    // Each action on exactly the table or indexes it is sent to.
    let used: BTreeSet<(String, Option<String>)> = own
        .iter()
        .map(|r| (r.action.to_owned(), r.index.clone()))
        .collect();
    assert_eq!(
        used,
        grants(&spec.policies[0].1),
        "{}: (action, index) pairs used vs granted",
        spec.name
    );
}

fn verdict_matches(expect: Expect, allowed: bool, explicit: bool) -> bool {
    match expect {
        Expect::Allowed => allowed,
        Expect::Denied => !allowed,
        Expect::ExplicitlyDenied => !allowed && explicit,
    }
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

/// The migration role's policy (`<stem>.migration.iam.json`), evaluated by
/// iam-rs for what the runtime's jobs send and what they never need:
/// allowed — Scan of the table, UpdateItem naming key attributes of the
/// table and its indexes, the re-key transaction's Put/Delete/
/// ConditionCheck, the control table's checkpoints; denied — an update
/// naming any other attribute, Query and GetItem, any index, another
/// table, a PartiQL select, deleting the control table. Linted by
/// parliament when the tools are installed.
#[test]
fn the_migration_policy_allows_the_jobs_and_nothing_else() {
    use singletable::emit::iam::{self as emit, AwsTarget as CompilerTarget};
    let compiler_target = CompilerTarget::new("aws", REGION, ACCOUNT).expect("a valid target");
    let mut checked = 0;
    for spec in specs() {
        let text = emit::to_pretty_json(&emit::migration_policy(&spec.ir, &compiler_target, &[]));
        let policy = IAMPolicy::from_json(&text).expect("iam-rs reads the policy");
        let table = arn(spec.table, None);
        let control = format!("{table}{}", emit::CONTROL_TABLE_SUFFIX);
        let mut keys: Vec<String> = spec
            .ir
            .key_attributes()
            .map(|k| k.name.value.clone())
            .collect();
        keys.dedup();
        let mut cases: Vec<(String, String, Option<Vec<String>>, bool)> = vec![
            ("dynamodb:Scan".into(), table.clone(), None, true),
            (
                "dynamodb:UpdateItem".into(),
                table.clone(),
                Some(keys.clone()),
                true,
            ),
            ("dynamodb:PutItem".into(), table.clone(), None, true),
            ("dynamodb:DeleteItem".into(), table.clone(), None, true),
            (
                "dynamodb:ConditionCheckItem".into(),
                table.clone(),
                None,
                true,
            ),
            ("dynamodb:CreateTable".into(), control.clone(), None, true),
            ("dynamodb:DescribeTable".into(), control.clone(), None, true),
            ("dynamodb:Query".into(), control.clone(), None, true),
            ("dynamodb:UpdateItem".into(), control.clone(), None, true),
            ("dynamodb:DeleteItem".into(), control.clone(), None, true),
            ("dynamodb:DeleteTable".into(), control.clone(), None, false),
            ("dynamodb:DeleteTable".into(), table.clone(), None, false),
            ("dynamodb:Query".into(), table.clone(), None, false),
            ("dynamodb:GetItem".into(), table.clone(), None, false),
            ("dynamodb:PartiQLSelect".into(), table.clone(), None, false),
            ("dynamodb:Scan".into(), arn("OtherTable", None), None, false),
            (
                "dynamodb:PutItem".into(),
                arn("OtherTable", None),
                None,
                false,
            ),
        ];
        let mut forbidden = keys.clone();
        forbidden.push("not_a_key_attribute".into());
        cases.push((
            "dynamodb:UpdateItem".into(),
            table.clone(),
            Some(forbidden),
            false,
        ));
        for index in &spec.indexes {
            for action in ["dynamodb:Scan", "dynamodb:Query"] {
                cases.push((action.into(), arn(spec.table, Some(index)), None, false));
            }
        }
        for (action, resource, attributes, expected) in cases {
            assert_eq!(
                allows_naming(&policy, &action, &resource, attributes.as_deref()),
                expected,
                "{}: {action} on {resource} naming {attributes:?}\n{text}",
                spec.name
            );
            checked += 1;
        }
        if let Some(tools) = tools() {
            if let Err(findings) = parliament(&tools, &text) {
                panic!(
                    "{} migration policy: parliament reports:\n{findings}\n{text}",
                    spec.name
                );
            }
        }
    }
    println!("migration policies: {checked} requests as expected");
}

/// The migration role of a design whose lock holds jobs that move, fill
/// and re-mark attributes and copy a renamed table
/// (`tests/evolution/rewrite/`): it may write exactly those attributes
/// besides the keys, scan the old table, and look items up in the new one
/// (the copy's verify); nothing more.
#[test]
fn the_migration_policy_grows_with_the_pending_jobs_and_no_further() {
    let (text, policy) = migration_policy_of("evolution/rewrite/v2.yaml");
    let text = &text;
    let (table, old) = (arn("Rewrite2", None), arn("Rewrite", None));
    let names = |n: &[&str]| Some(n.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
    let cases = [
        // Moving `body` to `text`, filling `priority` and `rev`, re-marking `kind`.
        (
            "dynamodb:UpdateItem",
            &table,
            names(&["pk", "sk", "body", "text"]),
            true,
        ),
        (
            "dynamodb:UpdateItem",
            &table,
            names(&["pk", "sk", "priority"]),
            true,
        ),
        (
            "dynamodb:UpdateItem",
            &table,
            names(&["pk", "sk", "rev"]),
            true,
        ),
        (
            "dynamodb:UpdateItem",
            &table,
            names(&["pk", "sk", "kind"]),
            true,
        ),
        (
            "dynamodb:UpdateItem",
            &table,
            names(&["pk", "sk", "id"]),
            false,
        ),
        (
            "dynamodb:UpdateItem",
            &table,
            names(&["pk", "sk", "data"]),
            false,
        ),
        // The copy: scan the old table, put into and look up in the new one.
        ("dynamodb:Scan", &old, None, true),
        ("dynamodb:Scan", &table, None, true),
        ("dynamodb:PutItem", &table, None, true),
        ("dynamodb:GetItem", &table, None, true),
        ("dynamodb:PutItem", &old, None, false),
        ("dynamodb:DeleteItem", &old, None, false),
        ("dynamodb:UpdateItem", &old, names(&["pk", "sk"]), false),
        ("dynamodb:GetItem", &old, None, false),
        ("dynamodb:Query", &table, None, false),
    ];
    for (action, resource, attributes, expected) in cases {
        assert_eq!(
            allows_naming(&policy, action, resource, attributes.as_deref()),
            expected,
            "{action} on {resource} naming {attributes:?}\n{text}"
        );
    }
    if let Some(tools) = tools() {
        if let Err(findings) = parliament(&tools, text) {
            panic!("parliament reports:\n{findings}\n{text}");
        }
    }
}

/// The migration role of a design whose lock holds two recounts
/// (`tests/evolution/recount/`): it may name the marks, the counts, the
/// shadow counts and what a counter upsert sets, read single items (a
/// recount reads an item or counter again after a refusal); nothing more.
/// The names are the generated module's own.
#[test]
fn the_migration_policy_allows_what_a_recount_names() {
    use singletable_runtime::Entity;
    use singletable_tests::evolution::recount::v2;
    let (text, policy) = migration_policy_of("evolution/recount/v2.yaml");
    let text = &text;
    let table = arn("Recount", None);
    let names = |n: &[&str]| n.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
    let (tickets, notes) = (
        v2::COUNTER_TICKET_COUNT.recount.expect("a pending recount"),
        v2::COUNTER_NOTE_COUNT.recount.expect("a pending recount"),
    );
    let (marker, _) = <v2::TicketCount as Entity>::IDENTITY
        .marker()
        .expect("an entity-type attribute");
    let allowed = [
        // Marking a ticket (conditional on its group) and a note.
        names(&["pk", "sk", "status", tickets.attribute]),
        names(&["pk", "sk", "topic", notes.attribute]),
        // The counter upsert in the mark's transaction.
        names(&["pk", "sk", "status", marker, "count", tickets.shadow]),
        // A counter's switch.
        names(&["pk", "count", notes.shadow]),
    ];
    for attributes in allowed {
        assert!(
            allows_naming(&policy, "dynamodb:UpdateItem", &table, Some(&attributes)),
            "UpdateItem naming {attributes:?}\n{text}"
        );
    }
    for refused in [
        names(&["pk", "sk", "id"]),
        names(&["pk", "sk", "__applied"]),
    ] {
        assert!(
            !allows_naming(&policy, "dynamodb:UpdateItem", &table, Some(&refused)),
            "UpdateItem naming {refused:?}\n{text}"
        );
    }
    assert!(allows_naming(&policy, "dynamodb:GetItem", &table, None));
    assert!(!allows_naming(&policy, "dynamodb:Query", &table, None));
    if let Some(tools) = tools() {
        if let Err(findings) = parliament(&tools, text) {
            panic!("parliament reports:\n{findings}\n{text}");
        }
    }
}

/// The migration policy of the spec at `path` (in this crate, beside its
/// lock), as JSON and as iam-rs reads it.
fn migration_policy_of(path: &str) -> (String, IAMPolicy) {
    use singletable::emit::iam::{AwsTarget as CompilerTarget, IamOptions};
    let options = IamOptions {
        target: CompilerTarget::new("aws", REGION, ACCOUNT).expect("a valid target"),
        tenant: None,
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let files = Compiler::new()
        .file(&path)
        .generate_iam(&options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = files
        .iter()
        .find(|f| f.name == "v2.migration.iam.json")
        .expect("the migration policy")
        .contents
        .clone();
    let policy = IAMPolicy::from_json(&text).expect("iam-rs reads the policy");
    (text, policy)
}

/// Whether iam-rs allows `action` on `resource` for a request naming
/// `attributes` (`dynamodb:Attributes`), when given.
fn allows_naming(
    policy: &IAMPolicy,
    action: &str,
    resource: &str,
    attributes: Option<&[String]>,
) -> bool {
    let mut context = Context::new();
    if let Some(names) = attributes {
        context.insert(
            "dynamodb:Attributes".into(),
            ContextValue::StringList(names.to_vec()),
        );
    }
    let request = IAMRequest::new_with_context(
        Principal::Aws(PrincipalId::String(PRINCIPAL.into())),
        action.to_owned(),
        Arn::parse(resource).expect("an ARN"),
        context,
    );
    evaluate_policy(policy, &request).expect("evaluates") == Decision::Allow
}

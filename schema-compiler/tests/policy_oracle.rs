//! An independent oracle for the generated IAM policies.
//!
//! For every spec with a tenant that compiles (`schemas/*.yaml`,
//! `fixtures/pass/*.yaml`), the principal-tag policies (the runtime policy
//! and each role's) are evaluated by `@cloud-copilot/iam-simulate` for every
//! pair of a principal tag and a partition key:
//!
//! - tenant ids chosen to break prefix patterns: ids that are prefixes and
//!   extensions of each other, ids that start with the literal text another
//!   template puts before the tenant (`archivedacme` beside
//!   `TENANT#archived<tenant>`), ids made of the words of the templates and
//!   of global entities' literal prefixes (`RATES`), ids with spaces and tag
//!   punctuation, and ids at the greatest length — each kept only when the
//!   spec's `id_pattern` accepts it and it can be a principal tag value;
//! - the partition key of every entity on the table and on every index, for
//!   each of those tenants, and the keys of every global entity, built by
//!   the Workbench sample generator the way the repositories build them.
//!
//! The requests are the ones a repository sends: GetItem and PutItem on the
//! table (or what else the policy's access patterns send to the table) and
//! Query on each index the access patterns query, with
//! `dynamodb:LeadingKeys = [key]`. A key of another tenant or of a global
//! entity must be denied; the tenant's own key must be allowed when the
//! repository sends that action for that entity. The owner of every key is
//! known by construction, so the verdict owes nothing to the compiler's
//! reasoning about patterns.
//!
//! Two negative controls show the oracle can fail: the designs of
//! `fixtures/fail/tenant_policy_overlap.yaml` and `tenant_policy_global.yaml`,
//! resolved without the checks that reject them, must each show the wrong
//! allow their comment describes.
//!
//! Needs `SINGLETABLE_IAM_TOOLS` (printed by `scripts/iam-check/install`;
//! `scripts/test` sets it); skipped without it, except under `CI`.

mod support;

#[path = "policy_oracle/keys.rs"]
mod keys;

use keys::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use regex::Regex;
use serde_json::{json, Value};
use singletable::diagnostics::Code;
use singletable::emit::iam::{self, AwsTarget, PolicyKind, TenantValue};
use singletable::emit::workbench::samples;
use singletable::ir::{self, AttributeValue, IndexRef, Operation, Scope, TransactionOp};
use singletable::Compiler;

const ACCOUNT: &str = "123456789012";
const REGION: &str = "us-east-1";
const PRINCIPAL: &str = "arn:aws:iam::123456789012:role/app";
/// The longest IAM principal tag value.
const MAX_TAG: usize = 256;
/// Spaces a tag value may hold besides ` ` (IAM allows Unicode white space).
const UNICODE_SPACES: [char; 3] = ['\u{a0}', '\u{2003}', '\u{3000}'];
/// The punctuation IAM allows in tag values.
const TAG_PUNCTUATION: &str = "_.:/=+-@";

/// Where a key is read: the table or an index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Table,
    Index(String),
}

/// One partition key and who owns it.
#[derive(Debug, Clone)]
struct Key {
    place: Place,
    value: String,
    /// `None`: a global entity's key.
    owner: Option<String>,
    /// The entities whose template gives this value.
    entities: BTreeSet<String>,
}

/// An action a repository sends to a place for an entity's keys.
type Use = (&'static str, Place, String);

/// One request and the verdict the oracle expects.
#[derive(Debug, Clone)]
struct Request {
    policy: String,
    action: &'static str,
    place: Place,
    key: String,
    owner: Option<String>,
    tag: String,
    allow: bool,
}

/// What the oracle found for one spec.
#[derive(Debug, Default)]
struct Outcome {
    tenants: Vec<String>,
    requests: usize,
    /// Requests for the tenant's own keys, which must be allowed.
    own: usize,
    /// Requests for global keys a role's access patterns reach, which must
    /// be allowed to every tag.
    global: usize,
    /// Scan requests, and those that must be allowed.
    scans: (usize, usize),
    wrong_allows: Vec<Request>,
    wrong_denies: Vec<Request>,
}

// ---- the tenant ids ------------------------------------------------------

/// Whether `id` is a tenant id the spec accepts (its pattern, as the spec
/// author wrote it, and the alphabet and length the runtime checks) and a
/// value a principal tag can carry.
fn acceptable(tenant: &ir::Tenant, pattern: &Regex, id: &str) -> bool {
    let length = id.chars().count();
    length >= tenant.min_length.max(1)
        && tenant.max_length.is_none_or(|max| length <= max)
        && length <= MAX_TAG
        && pattern.is_match(id)
        && id
            .chars()
            .all(|c| tenant.alphabet.contains(c) && !matches!(c, '*' | '?' | '$') && is_tag_char(c))
}

// ---- the keys ------------------------------------------------------------

// ---- what a repository sends -------------------------------------------

/// The actions a policy's repository sends, where, for which entity's keys:
/// the runtime's entity operations and every access pattern, or a role's
/// access patterns. Global entities are left out: no tenant may reach them.
fn uses(spec: &ir::Spec, kind: PolicyKind<'_>) -> BTreeSet<Use> {
    let mut out = BTreeSet::new();
    let patterns: Vec<&ir::AccessPattern> = match kind {
        PolicyKind::Runtime => {
            for (name, entity) in &spec.entities {
                // The counters the stream keeps are only read.
                let actions: &[&'static str] = match entity.kept_by_stream() {
                    true => &["GetItem"],
                    false => &["GetItem", "PutItem", "UpdateItem", "DeleteItem"],
                };
                for &action in actions {
                    out.insert((action, Place::Table, name.clone()));
                }
            }
            spec.access_patterns.values().collect()
        }
        PolicyKind::Role(role) => role
            .access_patterns
            .iter()
            .filter_map(|name| spec.access_patterns.get(&name.value))
            .collect(),
    };
    for pattern in patterns {
        pattern_uses(spec, pattern, &mut out);
    }
    // The runtime policy reaches tenants' keys only; a role also the
    // global entities its access patterns name.
    let role = matches!(kind, PolicyKind::Role(_));
    out.retain(|(_, _, e)| {
        spec.entities
            .get(e)
            .is_some_and(|e| e.scope == Scope::Tenant || role)
    });
    out
}

fn pattern_uses(spec: &ir::Spec, pattern: &ir::AccessPattern, out: &mut BTreeSet<Use>) {
    let mut add = |action, place: Place, entity: &String| {
        out.insert((action, place, entity.clone()));
    };
    match &pattern.operation {
        Operation::Get { entity, .. } => add("GetItem", Place::Table, entity),
        Operation::Query(q) => {
            // The shards of a sharded whole-key query are read with
            // BatchGetItem, on the table (the repository's choice, which
            // `tests/tests/iam.rs` sees in the requests it really sends).
            let batch = singletable::explain::reads_shards_in_batch(spec, pattern);
            for entity in q.matching.iter().chain(&q.returns) {
                add("Query", place_of(&q.index), entity);
                if batch {
                    add("BatchGetItem", Place::Table, entity);
                }
            }
        }
        Operation::Transaction(t) => {
            for (op, entity) in &t.items {
                let action = match op {
                    TransactionOp::Put | TransactionOp::Create => "PutItem",
                    TransactionOp::Update => "UpdateItem",
                    TransactionOp::Delete => "DeleteItem",
                    TransactionOp::ConditionCheck => "ConditionCheckItem",
                };
                add(action, Place::Table, entity);
            }
        }
        // TransactGetItems is authorized as a GetItem of each item.
        Operation::TransactGet(t) => {
            for entity in &t.entities {
                add("GetItem", Place::Table, entity);
            }
        }
        // A Scan sends no LeadingKeys: judged apart ([`scan_requests`]).
        Operation::Scan(_) => {}
        Operation::Batch(b) => {
            for entity in &b.get {
                add("BatchGetItem", Place::Table, entity);
            }
            for entity in b.put.iter().chain(&b.delete) {
                add("BatchWriteItem", Place::Table, entity);
            }
        }
    }
}

/// The actions tested on a place: GetItem and PutItem on the table (or,
/// for a role that sends neither, what it does send), Query on an index.
fn tested_actions(uses: &BTreeSet<Use>, place: &Place) -> BTreeSet<&'static str> {
    let sent = uses
        .iter()
        .filter(|(_, p, _)| p == place)
        .map(|(a, _, _)| *a);
    let sent: BTreeSet<&'static str> = sent.collect();
    let item = ["GetItem", "PutItem"]
        .into_iter()
        .filter(|a| sent.contains(a));
    let item: BTreeSet<&'static str> = item.collect();
    if item.is_empty() {
        sent
    } else {
        item
    }
}

/// Every judged request of one policy: every tag against every key of
/// every place the policy's repository sends requests to.
fn requests(
    policy: &str,
    uses: &BTreeSet<Use>,
    keys: &[Key],
    tags: &[String],
    derived: &BTreeSet<String>,
) -> Vec<Request> {
    let places: BTreeSet<&Place> = uses.iter().map(|(_, p, _)| p).collect();
    // The global entities: those whose keys have no owner.
    let globals: BTreeSet<&String> = keys
        .iter()
        .filter(|k| k.owner.is_none())
        .flat_map(|k| &k.entities)
        .collect();
    let mut out = Vec::new();
    for place in places {
        for action in tested_actions(uses, place) {
            // The role reaches global keys here with this action.
            let sends_global = uses
                .iter()
                .any(|(a, p, e)| *a == action && p == place && globals.contains(e));
            for key in keys.iter().filter(|k| &k.place == place) {
                for tag in tags {
                    let own = key.owner.as_ref() == Some(tag);
                    let sent = key
                        .entities
                        .iter()
                        .any(|e| uses.contains(&(action, place.clone(), e.clone())));
                    // A write to a key only counters the stream keeps
                    // have: denied to every tenant, its own too.
                    let derived_write = action.ends_with("Item")
                        && action != "GetItem"
                        && key.entities.iter().all(|e| derived.contains(e));
                    // The tenant's own key of an entity this repository
                    // does not touch: IAM cannot tell entities with one
                    // key shape apart, so either verdict is sound.
                    if own && !sent && !derived_write {
                        continue;
                    }
                    // A global key: allowed exactly where the role's access
                    // patterns send this action for its entity, to every tag.
                    let global = key.owner.is_none();
                    if global && !sent && sends_global {
                        // Another global entity's key at a place the role
                        // reaches global keys: patterns cannot tell global
                        // entities with one literal prefix apart either.
                        continue;
                    }
                    out.push(Request {
                        policy: policy.to_owned(),
                        action,
                        place: place.clone(),
                        key: key.value.clone(),
                        owner: key.owner.clone(),
                        tag: tag.clone(),
                        allow: (own && !derived_write) || (global && sent),
                    });
                }
            }
        }
    }
    out
}

/// Scan requests (no `dynamodb:LeadingKeys`, as DynamoDB sends them) on
/// the table and every index, under every policy, by one tag: allowed only
/// to a role on what one of its scan access patterns scans.
fn scan_requests(spec: &ir::Spec, tag: &str) -> Vec<Request> {
    let places: Vec<Place> = std::iter::once(Place::Table)
        .chain(spec.indexes.keys().map(|i| Place::Index(i.clone())))
        .collect();
    let mut out = Vec::new();
    for kind in iam::policy_kinds(spec) {
        let scanned: BTreeSet<Place> = match kind {
            PolicyKind::Runtime => BTreeSet::new(),
            PolicyKind::Role(role) => role
                .access_patterns
                .iter()
                .filter_map(
                    |name| match &spec.access_patterns.get(&name.value)?.operation {
                        Operation::Scan(scan) => Some(place_of(&scan.index)),
                        _ => None,
                    },
                )
                .collect(),
        };
        for place in &places {
            out.push(Request {
                policy: kind.role().unwrap_or("runtime").to_owned(),
                action: "Scan",
                place: place.clone(),
                key: String::new(),
                owner: None,
                tag: tag.to_owned(),
                allow: scanned.contains(place),
            });
        }
    }
    out
}

// ---- evaluation ----------------------------------------------------------

fn arn(table: &str, place: &Place) -> String {
    match place {
        Place::Table => format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}"),
        Place::Index(i) => format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}/index/{i}"),
    }
}

/// Evaluates a spec's requests in one iam-simulate process: allowed or not.
fn simulate(tools: &Path, spec: &ir::Spec, requests: &[Request]) -> Vec<bool> {
    let tenant = spec.tenant.as_ref().expect("only specs with a tenant");
    let target = AwsTarget::new("aws", REGION, ACCOUNT).expect("a valid target");
    let policies: BTreeMap<String, Value> = iam::policy_kinds(spec)
        .into_iter()
        .map(|kind| {
            let document = iam::policy(spec, kind, &target, &TenantValue::PrincipalTag);
            let name = kind.role().unwrap_or("runtime").to_owned();
            (
                name,
                serde_json::to_value(document).expect("a policy serializes"),
            )
        })
        .collect();
    let input: Vec<Value> = requests
        .iter()
        .map(|r| {
            let mut context = json!({
                format!("aws:PrincipalTag/{}", tenant.principal_tag.value): r.tag,
            });
            if r.action != "Scan" {
                context["dynamodb:LeadingKeys"] = json!([r.key]);
            }
            json!({
                "policy": policies[&r.policy],
                "action": format!("dynamodb:{}", r.action),
                "resource": arn(&spec.table.name.value, &r.place),
                "accountId": ACCOUNT,
                "principal": PRINCIPAL,
                "context": context,
            })
        })
        .collect();
    let script = support::workspace_root().join("scripts/iam-check/simulate.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .arg(tools)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run node {}: {e}", script.display()));
    // The script reads all of stdin before it writes anything.
    let mut stdin = child.stdin.take().expect("piped stdin");
    serde_json::to_writer(&mut stdin, &input).expect("write the requests");
    stdin.flush().expect("flush the requests");
    drop(stdin);
    let output = child.wait_with_output().expect("node ends");
    assert!(
        output.status.success(),
        "iam-simulate failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Vec<String> = serde_json::from_slice(&output.stdout).expect("a JSON array");
    assert_eq!(results.len(), requests.len(), "one result per request");
    results
        .iter()
        .map(|r| match r.as_str() {
            "Allowed" => true,
            "ExplicitlyDenied" | "ImplicitlyDenied" => false,
            other => panic!("iam-simulate: {other}"),
        })
        .collect()
}

/// Runs the oracle over one spec.
fn oracle(tools: &Path, spec: &ir::Spec) -> Outcome {
    let tenants = tenant_ids(spec, &partition_keys(spec, &[]));
    let keys = partition_keys(spec, &tenants);
    let derived = protected_counters(spec);
    let mut all: Vec<Request> = iam::policy_kinds(spec)
        .into_iter()
        .flat_map(|kind| {
            let name = kind.role().unwrap_or("runtime");
            requests(name, &uses(spec, kind), &keys, &tenants, &derived)
        })
        .collect();
    if let Some(tag) = tenants.first() {
        all.extend(scan_requests(spec, tag));
    }
    let verdicts = simulate(tools, spec, &all);
    let mut outcome = Outcome {
        tenants,
        requests: all.len(),
        own: all
            .iter()
            .filter(|r| r.allow && r.action != "Scan" && r.owner.is_some())
            .count(),
        global: all
            .iter()
            .filter(|r| r.allow && r.action != "Scan" && r.owner.is_none())
            .count(),
        scans: (
            all.iter().filter(|r| r.action == "Scan").count(),
            all.iter().filter(|r| r.action == "Scan" && r.allow).count(),
        ),
        ..Outcome::default()
    };
    for (request, allowed) in all.into_iter().zip(verdicts) {
        match (request.allow, allowed) {
            (false, true) => outcome.wrong_allows.push(request),
            (true, false) => outcome.wrong_denies.push(request),
            _ => {}
        }
    }
    outcome
}

/// The counters the stream keeps whose writes every policy denies: all of
/// them. The specs judged compile without warnings (`fixtures.rs`), so
/// `derived_data_tenant_writable` (IAM cannot name a counter's partitions)
/// is not among them, unless their `lints` silence it: then none is judged.
fn protected_counters(spec: &ir::Spec) -> BTreeSet<String> {
    if spec
        .lints
        .contains_key(Code::DerivedDataTenantWritable.name())
    {
        return BTreeSet::new();
    }
    spec.entities
        .values()
        .filter(|e| e.kept_by_stream())
        .map(|e| e.name.value.clone())
        .collect()
}

// ---- the tests -----------------------------------------------------------

/// The directory `scripts/iam-check/install` prints, if given; required under `CI`.
fn tools() -> Option<PathBuf> {
    match std::env::var_os("SINGLETABLE_IAM_TOOLS") {
        Some(dir) if !dir.is_empty() => Some(dir.into()),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the IAM checkers: set SINGLETABLE_IAM_TOOLS (scripts/test does)"
            );
            eprintln!("SINGLETABLE_IAM_TOOLS is not set: the policy oracle is skipped (scripts/test runs it)");
            None
        }
    }
}

/// Every spec with a tenant that compiles without errors, by file name.
fn tenant_specs() -> Vec<(String, ir::Spec)> {
    let pass = support::workspace_root().join("fixtures/pass");
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&pass)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", pass.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    fixtures.sort();
    support::spec_paths()
        .into_iter()
        .chain(fixtures)
        .filter_map(|path| {
            let compilation = Compiler::new().file(&path).compile();
            let spec = compilation.into_result().ok()?.pop()?.spec;
            let name = path.file_name()?.to_string_lossy().into_owned();
            spec.tenant.is_some().then_some((name, spec))
        })
        .collect()
}

/// Runs the oracle over every spec, one node process per core at a time,
/// each thread taking the next spec when it is done.
fn oracle_each<'s>(tools: &Path, specs: &'s [(String, ir::Spec)]) -> Vec<(&'s str, Outcome)> {
    let lanes = std::thread::available_parallelism().map_or(1, usize::from);
    let queue = Mutex::new(specs.iter());
    let next = || {
        queue
            .lock()
            .expect("no thread panics holding the queue")
            .next()
    };
    let mut outcomes: Vec<(&str, Outcome)> = std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..lanes.clamp(1, 4))
            .map(|_| {
                scope.spawn(|| {
                    std::iter::from_fn(next)
                        .map(|(name, spec)| (name.as_str(), oracle(tools, spec)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        lanes
            .into_iter()
            .flat_map(|h| h.join().expect("an oracle thread"))
            .collect()
    });
    outcomes.sort_by_key(|(name, _)| *name);
    outcomes
}

fn describe(r: &Request) -> String {
    format!(
        "{} policy, {} on {:?}: tag `{}`, key `{}` of {}",
        r.policy,
        r.action,
        r.place,
        r.tag,
        r.key,
        r.owner
            .as_deref()
            .map_or("a global entity".to_owned(), |o| format!("tenant `{o}`"))
    )
}

#[test]
fn every_tag_reaches_exactly_its_own_keys() {
    let Some(tools) = tools() else { return };
    let specs = tenant_specs();
    assert!(
        specs.len() >= 10,
        "only {} specs with a tenant",
        specs.len()
    );
    let outcomes = oracle_each(&tools, &specs);
    let (mut tenants, mut requests, mut own, mut global) = (0, 0, 0, 0);
    let (mut scans, mut scans_allowed) = (0, 0);
    let mut wrong = Vec::new();
    let (mut allows, mut denies) = (0, 0);
    for (name, outcome) in &outcomes {
        assert!(
            outcome.own > 0,
            "{name}: no request for the tenant's own keys"
        );
        tenants += outcome.tenants.len();
        requests += outcome.requests;
        own += outcome.own;
        global += outcome.global;
        scans += outcome.scans.0;
        scans_allowed += outcome.scans.1;
        allows += outcome.wrong_allows.len();
        denies += outcome.wrong_denies.len();
        let found = outcome.wrong_allows.iter().map(|r| ("wrong allow", r));
        let found = found.chain(outcome.wrong_denies.iter().map(|r| ("wrong deny", r)));
        wrong.extend(
            found
                .take(10)
                .map(|(what, r)| format!("{name}: {what}: {}", describe(r))),
        );
    }
    assert!(
        global > 0,
        "no role reaches a global key: the oracle tests none"
    );
    eprintln!(
        "policy oracle: {} specs, {tenants} tenant ids, {requests} requests, {allows} wrong allows, {denies} wrong denies ({own} of the requests on the tag's own keys, {global} on global keys a role's access patterns reach; {scans} scans, {scans_allowed} of them by an admin role on what it scans)",
        outcomes.len()
    );
    assert!(
        scans_allowed > 0 && scans > scans_allowed,
        "the scans are judged"
    );
    assert!(allows == 0 && denies == 0, "{}", wrong.join("\n"));
}

/// A failing fixture's spec, resolved without the checks that reject it;
/// the full compilation must report `code`.
fn unchecked(fixture: &str, code: Code) -> ir::Spec {
    let text = support::read(&format!("fixtures/fail/{fixture}"));
    let compilation = Compiler::new().source(fixture, text.clone()).compile();
    assert!(
        compilation.diagnostics.iter().any(|d| d.code == code),
        "{fixture} is rejected with {code:?}"
    );
    match singletable::resolve_unchecked(fixture, text) {
        Ok(spec) => spec,
        Err(diags) => panic!("{fixture} resolves: {diags:?}"),
    }
}

#[test]
fn the_oracle_finds_an_extending_prefix() {
    let Some(tools) = tools() else { return };
    let spec = unchecked("tenant_policy_overlap.yaml", Code::TenantPolicyOverlap);
    let outcome = oracle(&tools, &spec);
    let found = outcome.wrong_allows.iter().find(|r| {
        r.tag == "archivedacme"
            && r.owner.as_deref() == Some("acme")
            && r.key.starts_with("TENANT#archivedacme|TICKET#")
    });
    assert!(
        found.is_some(),
        "no wrong allow of tag `archivedacme` on a key of `acme`; found: {:#?}",
        outcome.wrong_allows
    );
    assert!(
        outcome.wrong_denies.is_empty(),
        "{:#?}",
        outcome.wrong_denies
    );
}

#[test]
fn the_oracle_finds_a_global_key() {
    let Some(tools) = tools() else { return };
    let spec = unchecked("tenant_policy_global.yaml", Code::TenantPolicyGlobal);
    let outcome = oracle(&tools, &spec);
    let found = outcome
        .wrong_allows
        .iter()
        .find(|r| r.tag == "RATES" && r.owner.is_none() && r.key.starts_with("RATES|"));
    assert!(
        found.is_some(),
        "no wrong allow of tag `RATES` on a global key; found: {:#?}",
        outcome.wrong_allows
    );
}

//! The matrix of checks: every action on every key a tenant, a role or the stream handler could name, and the verdict its policy must give.

use super::*;

/// The evaluators' verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    Allowed,
    /// Explicitly or implicitly.
    Denied,
    ExplicitlyDenied,
}

/// One request to evaluate under one policy.
#[derive(Debug, Clone)]
pub(super) struct Check {
    pub(super) what: String,
    pub(super) template: PolicyTemplate,
    pub(super) session: fn(&PolicyTemplate, &str, &AwsTarget) -> Result<String, PolicyError>,
    pub(super) tag: Option<&'static str>,
    /// The principal's tenant tag; `None`: the tag is missing.
    pub(super) principal: Option<String>,
    pub(super) action: String,
    pub(super) resource: String,
    pub(super) keys: Option<Vec<String>>,
    pub(super) full_table_scan: bool,
    pub(super) expect: Expect,
    /// A policy given as JSON instead of `template` (the stream handler's,
    /// which has no tenant).
    pub(super) json: Option<String>,
}

pub(super) fn arn(table: &str, index: Option<&str>) -> String {
    match index {
        None => format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}"),
        Some(i) => format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}/index/{i}"),
    }
}

/// The first candidate the spec accepts as a tenant id.
pub(super) fn pick(spec: &Spec, candidates: &[&str]) -> String {
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
    pub(super) spec: &'s Spec,
    pub(super) checks: Vec<Check>,
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
pub(super) async fn checks(spec: &Spec) -> Vec<Check> {
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

pub(super) fn verdict_matches(expect: Expect, allowed: bool, explicit: bool) -> bool {
    match expect {
        Expect::Allowed => allowed,
        Expect::Denied => !allowed,
        Expect::ExplicitlyDenied => !allowed && explicit,
    }
}

//! The IAM policies generated from every spec, and the rules behind them:
//! tenant patterns with a `Null` guard, least privilege from the access
//! patterns, indexes granted only when queried by tenant keys, escaping,
//! roles, session policies and the templates generated code embeds.

mod support;

use std::collections::BTreeSet;

use serde_json::Value;
use singletable::emit::iam::{self, AwsTarget, IamOptions, PolicyKind, PolicyPiece, TenantValue};
use singletable::emit::GeneratedFile;
use singletable::{ir, Compiler};
use support::{read, spec_paths};

fn spec(name: &str, text: &str) -> ir::Spec {
    let compilation = Compiler::new().source(name, text).compile();
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.report().to_text()
    );
    compilation.specs[0].spec.clone()
}

fn support_ticket() -> ir::Spec {
    spec("support_ticket.yaml", &read("schemas/support_ticket.yaml"))
}

fn target() -> AwsTarget {
    AwsTarget::new("aws", "eu-west-1", "123456789012").expect("a valid target")
}

fn files(path: &std::path::Path, options: &IamOptions) -> Vec<GeneratedFile> {
    Compiler::new()
        .file(path)
        .generate_iam(options)
        .unwrap_or_else(|report| panic!("{}: {report:?}", path.display()))
}

fn json(policy: &iam::model::PolicyDocument) -> Value {
    serde_json::from_str(&iam::to_pretty_json(policy)).expect("JSON")
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_str().expect("a string"))
        .collect()
}

#[test]
fn every_spec_policy_matches_its_snapshot() {
    for path in spec_paths() {
        for file in files(&path, &IamOptions::default()) {
            insta::assert_snapshot!(format!("iam_{}", file.name), file.contents);
        }
    }
}

#[test]
fn session_policies_carry_the_tenant_id_in_compact_json() {
    let options = IamOptions {
        target: target(),
        tenant: Some("acme".into()),
    };
    let path = support::workspace_root().join("schemas/support_ticket.yaml");
    let files = files(&path, &options);
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "support_ticket.iam.json",
            "support_ticket.session.iam.json",
            "support_ticket.role.tenant_admin.iam.json",
            "support_ticket.role.tenant_admin.session.iam.json",
            "support_ticket.role.agent.iam.json",
            "support_ticket.role.agent.session.iam.json",
            "support_ticket.stream.iam.json",
            "support_ticket.migration.iam.json",
        ]
    );
    let session = &files[1].contents;
    insta::assert_snapshot!("iam_support_ticket_session_acme", session);
    assert!(!session.trim_end().contains('\n'), "one line");
    assert!(session.contains(r#""dynamodb:LeadingKeys":["TENANT#acme|*"]"#));
    assert!(!session.contains("${aws:"), "no variable left");
    let abac: Value = serde_json::from_str(&files[0].contents).expect("JSON");
    let compact: Value = serde_json::from_str(session).expect("JSON");
    assert_eq!(
        abac.to_string()
            .replace("${aws:PrincipalTag/TenantId}", "acme"),
        compact.to_string(),
        "the session policy is the principal-tag policy with the tenant substituted"
    );
}

#[test]
fn every_tenant_policy_is_guarded_and_never_grants_scans_or_wildcard_tables() {
    for path in spec_paths() {
        for file in files(&path, &IamOptions::default()) {
            // The migration role and the stream handler are no tenant's
            // (see below).
            if file.name.ends_with(".migration.iam.json") || file.name.ends_with(".stream.iam.json")
            {
                continue;
            }
            let policy: Value = serde_json::from_str(&file.contents).expect("JSON");
            assert_eq!(policy["Version"], "2012-10-17");
            let mut statements: Vec<Value> =
                policy["Statement"].as_array().expect("statements").clone();
            // Writes to the counters the stream keeps: denied, on the
            // table, for the principal's own keys of those counters.
            if let Some(at) = statements
                .iter()
                .position(|s| s["Sid"] == "DenyDerivedWrites")
            {
                let deny = statements.remove(at);
                assert_eq!(deny["Effect"], "Deny");
                assert_eq!(
                    strings(&deny["Action"]),
                    [
                        "dynamodb:PutItem",
                        "dynamodb:UpdateItem",
                        "dynamodb:DeleteItem",
                        "dynamodb:BatchWriteItem"
                    ]
                );
                let resources = strings(&deny["Resource"]);
                assert!(
                    resources.len() == 1 && !resources[0].contains("/index/"),
                    "{}: the table only",
                    file.name
                );
                let patterns =
                    strings(&deny["Condition"]["ForAnyValue:StringLike"]["dynamodb:LeadingKeys"]);
                assert!(!patterns.is_empty());
                assert!(patterns.iter().all(|p| p.contains("${aws:PrincipalTag/")));
            }
            // The Allow statements (one per set of resources with the same
            // actions and keys), then the two Denies.
            let allows = statements.len() - 2;
            assert!(allows >= 1, "{}", file.name);
            for allow in &statements[..allows] {
                assert_eq!(allow["Effect"], "Allow", "{}", file.name);
                let actions = strings(&allow["Action"]);
                assert!(!actions
                    .iter()
                    .any(|a| a.contains("Scan") || a.contains("PartiQL")));
                assert!(!actions.iter().any(|a| a.contains('*')));
                for resource in strings(&allow["Resource"]) {
                    assert!(!resource.ends_with('*'), "{}: {resource}", file.name);
                    // An index is only ever queried.
                    if resource.contains("/index/") {
                        assert_eq!(actions, ["dynamodb:Query"], "{}", file.name);
                    }
                }
                let tenant = !allow["Condition"].is_null();
                if tenant {
                    let patterns = strings(
                        &allow["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"],
                    );
                    assert!(!patterns.is_empty());
                    assert!(patterns.iter().all(|p| p.contains("${aws:PrincipalTag/")));
                    assert_eq!(allow["Condition"]["Null"]["dynamodb:LeadingKeys"], "false");
                }
            }
            let denies: Vec<&Value> = statements[allows..].iter().collect();
            assert_eq!(denies.len(), 2, "{}", file.name);
            assert!(denies.iter().all(|d| d["Effect"] == "Deny"));
            assert_eq!(strings(&denies[0]["Action"]), ["dynamodb:Scan"]);
            assert!(denies[0]["Condition"].is_null(), "Scan is denied outright");
            assert_eq!(strings(&denies[1]["Action"]), ["dynamodb:PartiQLSelect"]);
            assert_eq!(
                denies[1]["Condition"]["Bool"]["dynamodb:FullTableScan"],
                "true"
            );
        }
    }
}

const ODD_SPEC: &str = r#"
version: 1
table: { name: Oddities, partition_key: pk, sort_key: sk }
tenant: { placeholder: tenant, id_pattern: "^[a-z0-9]{1,16}$" }
lints: { global_entities: allow }
indexes:
  GSI1: { partition_key: gsi1pk, sort_key: gsi1sk }
  GSI2: { partition_key: gsi2pk, sort_key: gsi2sk }
entities:
  Account:
    attributes: { name: { type: string, max_length: 64 } }
    key: { pk: "A*?$#<tenant>", sk: ACCOUNT }
  Note:
    attributes:
      id: { type: string, pattern: "^[a-z0-9]{1,8}$" }
      kind: { type: enum, values: [RED, BLUE] }
    key: { pk: "A*?$#<tenant>|NOTE#<id>", sk: NOTE }
    indexes:
      GSI2: { pk: "A*?$#<tenant>|KIND#<kind>", sk: "<id>" }
  Plan:
    scope: global
    attributes:
      name: { type: string, pattern: "^[a-z]{1,8}$" }
      status: { type: enum, values: [LIVE, OLD] }
    key: { pk: "PLAN#<name>", sk: PLAN }
    indexes:
      GSI1: { pk: "STATUS#<status>", sk: "<name>" }
access_patterns:
  account: { get: Account }
  note: { get: Note }
  notes_of_kind:
    index: GSI2
    query: { pk: "A*?$#<tenant>|KIND#<kind>" }
    returns: Note
  live_plans:
    index: GSI1
    query: { pk: "STATUS#LIVE" }
    returns: Plan
roles:
  reader:
    access_patterns: [notes_of_kind]
"#;

#[test]
fn literal_wildcards_are_escaped_and_a_bare_tenant_root_is_exact() {
    let spec = spec("odd.yaml", ODD_SPEC);
    let policy = json(&iam::policy(
        &spec,
        PolicyKind::Runtime,
        &target(),
        &TenantValue::PrincipalTag,
    ));
    let allow = &policy["Statement"][0];
    assert_eq!(
        strings(&allow["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]),
        [
            "A${*}${?}${$}#${aws:PrincipalTag/TenantId}",
            "A${*}${?}${$}#${aws:PrincipalTag/TenantId}|*",
        ]
    );
    let session = json(&iam::policy(
        &spec,
        PolicyKind::Runtime,
        &target(),
        &TenantValue::Id("t1".into()),
    ));
    assert_eq!(
        strings(
            &session["Statement"][0]["Condition"]["ForAllValues:StringLike"]
                ["dynamodb:LeadingKeys"]
        ),
        ["A${*}${?}${$}#t1", "A${*}${?}${$}#t1|*"]
    );
}

#[test]
fn an_index_not_keyed_by_the_tenant_is_never_granted_to_tenant_roles() {
    let spec = spec("odd.yaml", ODD_SPEC);
    let policy = json(&iam::policy(
        &spec,
        PolicyKind::Runtime,
        &target(),
        &TenantValue::PrincipalTag,
    ));
    let resources: Vec<&str> = policy["Statement"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["Effect"] == "Allow")
        .flat_map(|s| strings(&s["Resource"]))
        .collect();
    assert_eq!(
        resources,
        [
            "arn:aws:dynamodb:eu-west-1:123456789012:table/Oddities",
            "arn:aws:dynamodb:eu-west-1:123456789012:table/Oddities/index/GSI2",
        ],
        "GSI1 is keyed by a status shared by every tenant"
    );
}

#[test]
fn roles_get_only_the_actions_and_indexes_of_their_access_patterns() {
    let spec = support_ticket();
    let role = |name: &str| {
        let role = &spec.roles[name];
        json(&iam::policy(
            &spec,
            PolicyKind::Role(role),
            &target(),
            &TenantValue::PrincipalTag,
        ))
    };
    let admin = role("tenant_admin");
    assert_eq!(
        strings(&admin["Statement"][0]["Action"]),
        ["dynamodb:Query"]
    );
    assert_eq!(
        strings(&admin["Statement"][0]["Resource"]),
        [
            "arn:aws:dynamodb:eu-west-1:123456789012:table/SupportTicket",
            "arn:aws:dynamodb:eu-west-1:123456789012:table/SupportTicket/index/GSI1",
        ]
    );
    let agent = role("agent");
    assert_eq!(
        strings(&agent["Statement"][0]["Action"]),
        ["dynamodb:Query", "dynamodb:UpdateItem"]
    );
    assert_eq!(
        strings(&agent["Statement"][0]["Resource"]),
        ["arn:aws:dynamodb:eu-west-1:123456789012:table/SupportTicket"]
    );
    assert_eq!(
        strings(&agent["Statement"][1]["Action"]),
        ["dynamodb:Query"]
    );
    assert_eq!(
        strings(&agent["Statement"][1]["Resource"]),
        ["arn:aws:dynamodb:eu-west-1:123456789012:table/SupportTicket/index/GSI1"]
    );
    let odd = spec_with_role_reader();
    assert_eq!(strings(&odd["Statement"][0]["Action"]), ["dynamodb:Query"]);
    // It queries only the index: the table is granted nothing.
    assert_eq!(
        strings(&odd["Statement"][0]["Resource"]),
        ["arn:aws:dynamodb:eu-west-1:123456789012:table/Oddities/index/GSI2"]
    );
    assert_eq!(odd["Statement"][1]["Effect"], "Deny");
    assert_eq!(
        strings(
            &odd["Statement"][0]["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
        ),
        ["A${*}${?}${$}#${aws:PrincipalTag/TenantId}|*"]
    );
}

/// Actions are granted per resource: a role that gets items from the table
/// and queries an index may query the index, not the table, and get
/// nothing from the index.
#[test]
fn a_role_gets_query_only_where_it_declares_one() {
    let spec = spec(
        "lookups.yaml",
        r#"
version: 1
table: { name: Lookups, partition_key: pk, sort_key: sk }
tenant: { placeholder: tenant }
indexes:
  GSI1: { partition_key: gsi1pk, sort_key: gsi1sk }
entities:
  Order:
    attributes:
      id: { type: string, pattern: "^[a-z0-9]{1,36}$" }
      status: { type: enum, values: [OPEN, DONE] }
    key: { pk: "TENANT#<tenant>|ORDER#<id>", sk: ORDER }
    indexes:
      GSI1: { pk: "TENANT#<tenant>|STATUS#<status>", sk: "ORDER#<id>" }
access_patterns:
  order:
    description: One order.
    get: Order
  orders_by_status:
    description: A tenant's orders in one status.
    index: GSI1
    query: { pk: "TENANT#<tenant>|STATUS#<status>" }
    returns: Order
roles:
  clerk:
    description: Reads orders one by one and by status.
    access_patterns: [order, orders_by_status]
"#,
    );
    let policy = json(&iam::policy(
        &spec,
        PolicyKind::Role(&spec.roles["clerk"]),
        &target(),
        &TenantValue::PrincipalTag,
    ));
    let table = "arn:aws:dynamodb:eu-west-1:123456789012:table/Lookups";
    let index = "arn:aws:dynamodb:eu-west-1:123456789012:table/Lookups/index/GSI1";
    // Every (action, resource) an Allow statement grants.
    let mut granted = BTreeSet::new();
    for statement in policy["Statement"].as_array().unwrap() {
        if statement["Effect"] == "Allow" {
            for action in strings(&statement["Action"]) {
                for resource in strings(&statement["Resource"]) {
                    granted.insert((action.to_owned(), resource.to_owned()));
                }
            }
        }
    }
    let expected: BTreeSet<(String, String)> =
        [("dynamodb:GetItem", table), ("dynamodb:Query", index)]
            .into_iter()
            .map(|(a, r)| (a.to_owned(), r.to_owned()))
            .collect();
    assert_eq!(granted, expected, "{policy:#}");
}

fn spec_with_role_reader() -> Value {
    let spec = spec("odd.yaml", ODD_SPEC);
    json(&iam::policy(
        &spec,
        PolicyKind::Role(&spec.roles["reader"]),
        &target(),
        &TenantValue::PrincipalTag,
    ))
}

#[test]
fn a_spec_without_tenant_gets_an_unconditioned_policy_and_no_session_policy() {
    let path = support::workspace_root().join("schemas/shopping_cart.yaml");
    let files = files(&path, &IamOptions::default());
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["shopping_cart.iam.json", "shopping_cart.migration.iam.json"]
    );
    let policy: Value = serde_json::from_str(&files[0].contents).expect("JSON");
    assert!(policy["Statement"][0]["Condition"].is_null());
    let asked = Compiler::new().file(&path).generate_iam(&IamOptions {
        target: target(),
        tenant: Some("acme".into()),
    });
    let report = asked.expect_err("no spec has a tenant");
    assert!(format!("{report:?}").contains("no spec declares a tenant"));
}

#[test]
fn tenant_ids_the_spec_refuses_are_refused() {
    let path = support::workspace_root().join("schemas/support_ticket.yaml");
    for bad in ["", "a|b", "a*", &"x".repeat(65)] {
        let result = Compiler::new().file(&path).generate_iam(&IamOptions {
            target: target(),
            tenant: Some(bad.to_owned()),
        });
        let report = result.expect_err(bad);
        assert!(format!("{report:?}").contains("invalid_value"), "{bad}");
    }
}

#[test]
fn arn_parts_are_validated() {
    assert!(AwsTarget::new("aws", "eu-west-1", "123456789012").is_ok());
    assert!(AwsTarget::new("aws", "*", "*").is_ok());
    assert!(AwsTarget::new("aws", "EU", "123456789012").is_err());
    assert!(AwsTarget::new("aws", "eu-west-1", "12345").is_err());
    assert!(AwsTarget::new("a\"ws", "eu-west-1", "123456789012").is_err());
}

/// The pieces generated code embeds render the same policy as the emitter.
#[test]
fn policy_pieces_render_the_emitted_policy() {
    for path in spec_paths() {
        let text = std::fs::read_to_string(&path).expect("spec");
        let spec = spec(&path.display().to_string(), &text);
        for kind in iam::policy_kinds(&spec) {
            let pieces = iam::policy_pieces(&spec, kind);
            assert!(pieces.iter().any(|p| matches!(p, PolicyPiece::Region)));
            let join = |tenant: &str| -> String {
                pieces
                    .iter()
                    .map(|piece| match piece {
                        PolicyPiece::Text(t) => t.as_str(),
                        PolicyPiece::Tenant => tenant,
                        PolicyPiece::Partition => "aws",
                        PolicyPiece::Region => "eu-west-1",
                        PolicyPiece::Account => "123456789012",
                    })
                    .collect()
            };
            let tag = spec.tenant.as_ref().map_or(String::new(), |t| {
                format!("${{aws:PrincipalTag/{}}}", t.principal_tag)
            });
            let abac = iam::policy(&spec, kind, &target(), &TenantValue::PrincipalTag);
            assert_eq!(
                join(&tag),
                iam::to_minified_json(&abac),
                "{}",
                path.display()
            );
            if spec.tenant.is_some() {
                let session = iam::policy(&spec, kind, &target(), &TenantValue::Id("t123".into()));
                assert_eq!(join("t123"), iam::to_minified_json(&session));
            } else {
                assert!(!pieces.contains(&PolicyPiece::Tenant));
            }
        }
    }
}

#[test]
fn generation_is_deterministic() {
    for path in spec_paths() {
        let options = IamOptions {
            target: target(),
            tenant: None,
        };
        assert_eq!(files(&path, &options), files(&path, &options));
    }
}

#[test]
fn sizes_count_what_iam_and_sts_count() {
    let spec = support_ticket();
    let policy = iam::policy(
        &spec,
        PolicyKind::Runtime,
        &target(),
        &TenantValue::PrincipalTag,
    );
    let pretty = iam::to_pretty_json(&policy);
    let compact = iam::to_minified_json(&policy);
    assert_eq!(
        iam::managed_policy_size(&policy),
        pretty.chars().filter(|c| !c.is_whitespace()).count()
    );
    assert_eq!(iam::session_policy_size(&policy), compact.chars().count());
    assert!(iam::managed_policy_size(&policy) < iam::MANAGED_POLICY_LIMIT);
}

#[test]
fn compile_to_out_dir_writes_the_policies_when_asked() {
    let dir = std::env::temp_dir().join(format!("singletable-iam-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = Compiler::new()
        .out_dir(&dir)
        .iam(IamOptions::default())
        .compile_to_out_dir([support::workspace_root().join("schemas/support_ticket.yaml")])
        .expect("compiles");
    let names: Vec<String> = written
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
        .collect();
    assert_eq!(
        names,
        [
            "support_ticket.iam.json",
            "support_ticket.role.tenant_admin.iam.json",
            "support_ticket.role.agent.iam.json",
            "support_ticket.stream.iam.json",
            "support_ticket.migration.iam.json",
            "support_ticket.rs",
        ]
    );
    let policy = std::fs::read_to_string(dir.join("support_ticket.iam.json")).expect("written");
    assert_eq!(policy, runtime_policy_with_placeholders());
}

/// The runtime policy with the default ARN placeholders, as the CLI writes it.
fn runtime_policy_with_placeholders() -> String {
    let spec = support_ticket();
    iam::to_pretty_json(&iam::policy(
        &spec,
        PolicyKind::Runtime,
        &AwsTarget::default(),
        &TenantValue::PrincipalTag,
    ))
}

/// The migration role's policy names the table and its control table only
/// (no index, no other table, no wildcard), scans only the table, and
/// updates items naming only key attributes of the table and its indexes.
#[test]
fn the_migration_policy_names_the_table_its_control_table_and_key_attributes_only() {
    for path in spec_paths() {
        let spec = spec(
            &path.display().to_string(),
            &std::fs::read_to_string(&path).expect("a spec"),
        );
        let document = iam::migration_policy(&spec, &target(), &[]);
        let policy = json(&document);
        let table = format!(
            "arn:aws:dynamodb:eu-west-1:123456789012:table/{}",
            spec.table.name.value
        );
        let control = format!("{table}{}", iam::CONTROL_TABLE_SUFFIX);
        let keys: BTreeSet<&str> = spec
            .key_attributes()
            .map(|k| k.name.value.as_str())
            .collect();
        for statement in policy["Statement"].as_array().expect("statements") {
            assert_eq!(statement["Effect"], "Allow");
            let resources = strings(&statement["Resource"]);
            let actions = strings(&statement["Action"]);
            assert!(!actions
                .iter()
                .any(|a| a.contains('*') || a.contains("PartiQL")));
            if resources == [control.as_str()] {
                continue;
            }
            assert_eq!(resources, [table.as_str()], "{}", path.display());
            if actions.contains(&"dynamodb:UpdateItem") {
                let named: BTreeSet<&str> = strings(
                    &statement["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"],
                )
                .into_iter()
                .collect();
                assert_eq!(named, keys, "{}", path.display());
            }
            assert!(
                !actions.contains(&"dynamodb:Query") && !actions.contains(&"dynamodb:GetItem"),
                "{}: jobs read by Scan only",
                path.display()
            );
        }
    }
}

/// Two counters the stream keeps in one partition (different sort keys):
/// each is written by the handler alone, so neither keeps the other's
/// partition from being denied to tenants, and `check` has nothing to say.
#[test]
fn counters_sharing_a_partition_are_denied_together() {
    let text = r#"
version: 1
table: { name: Desk, partition_key: pk, sort_key: sk }
tenant: { placeholder: tenant, id_pattern: "^[a-z0-9]{1,16}$" }
entities:
  Ticket:
    attributes:
      id: { type: string, pattern: "^[0-9]{1,8}$" }
      status: { type: enum, values: [OPEN, CLOSED] }
      priority: { type: enum, values: [LOW, HIGH] }
    key: { pk: "TENANT#<tenant>|TICKET#<id>", sk: TICKET }
  StatusCount:
    attributes:
      status: { type: enum, values: [OPEN, CLOSED] }
      count: { type: integer, min: 0 }
    key: { pk: "TENANT#<tenant>|COUNTS", sk: "STATUS#<status>" }
    aggregate: { of: Ticket, group_by: status, count: count, maintained_by: stream }
  PriorityCount:
    attributes:
      priority: { type: enum, values: [LOW, HIGH] }
      count: { type: integer, min: 0 }
    key: { pk: "TENANT#<tenant>|COUNTS", sk: "PRIORITY#<priority>" }
    aggregate: { of: Ticket, group_by: priority, count: count, maintained_by: stream }
access_patterns:
  ticket: { get: Ticket }
  counts:
    query: { pk: "TENANT#<tenant>|COUNTS" }
    returns: [StatusCount, PriorityCount]
"#;
    let compilation = Compiler::new().source("desk.yaml", text).compile();
    let report = compilation.report().to_text();
    assert!(!report.contains("derived_data_tenant_writable"), "{report}");
    let spec = spec("desk.yaml", text);
    let policy = json(&iam::policy(
        &spec,
        PolicyKind::Runtime,
        &target(),
        &iam::TenantValue::PrincipalTag,
    ));
    let deny = policy["Statement"]
        .as_array()
        .expect("statements")
        .iter()
        .find(|s| s["Sid"] == "DenyDerivedWrites")
        .expect("the counters' partition is denied");
    assert_eq!(
        strings(&deny["Condition"]["ForAnyValue:StringLike"]["dynamodb:LeadingKeys"]),
        ["TENANT#${aws:PrincipalTag/TenantId}|COUNTS"]
    );
}

//! The migration policy: what the jobs of pending migrations may read and write.

use super::*;

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

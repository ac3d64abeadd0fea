//! Rules about how the table runs: across Regions, how warm it starts, and
//! whom its resource-based policy lets in.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use serde_json::Value;

use crate::ir::{self, Consistency, IndexKind, IndexRef, Maintenance, Operation};
use crate::policy::grants::pattern_grants;
use crate::policy::model::Action;
use crate::resolve::global::{names_action, strings};

/// Why: DynamoDB's multi-Region strong consistency serves no transaction
/// API, no TTL and no local index; a design that needs one fails when it is
/// created or at its first such request.
pub fn check_strong_consistency(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(replicas) = &spec.table.settings.replicas else {
        return;
    };
    if replicas.consistency.value != Consistency::Strong {
        return;
    }
    let at = replicas.consistency.span;
    let mut refuse = |what: String, span, label: &str, help: &str| {
        diags.push(
            Diagnostic::new(
                Code::StrongConsistencyUnsupported,
                format!("{what}, which a strongly consistent global table does not support"),
            )
            .label(span, label.to_owned())
            .label(at, "strong consistency")
            .help(help.to_owned()),
        );
    };
    if let Some(ttl) = &spec.table.ttl {
        refuse(
            format!("the table expires items by TTL (`{ttl}`)"),
            ttl.span,
            "time to live",
            "remove `ttl` (delete expired items with a job), or use `consistency: eventual`",
        );
    }
    for index in spec.indexes.values() {
        if index.kind == IndexKind::Local {
            refuse(
                format!("`{}` is a local index", index.name),
                index.name.span,
                "local index",
                "make the index global, or use `consistency: eventual`",
            );
        }
    }
    for pattern in spec.access_patterns.values() {
        let (call, help) = match pattern.operation {
            Operation::Transaction(_) => ("TransactWriteItems", "write the items one by one with conditions, or use `consistency: eventual`"),
            Operation::TransactGet(_) => ("TransactGetItems", "read the items one by one with strongly consistent gets, or use `consistency: eventual`"),
            _ => continue,
        };
        refuse(
            format!("access pattern `{}` is a transaction", pattern.name),
            pattern.name.span,
            call,
            help,
        );
    }
    for entity in spec.entities.values() {
        if entity
            .aggregate
            .as_ref()
            .is_some_and(|a| a.maintained_by == Maintenance::Transaction)
        {
            refuse(
                format!(
                    "aggregate `{}` keeps its count in the counted entity's transactions",
                    entity.name
                ),
                entity.name.span,
                "maintained by transaction",
                "keep the count with `maintained_by: stream`, or use `consistency: eventual`",
            );
        }
    }
}

/// Why: a table or index whose warm throughput is below what the declared
/// rates need throttles them at launch and after quiet periods, until
/// DynamoDB has split its partitions.
pub fn check_warm_throughput(spec: &ir::Spec, diags: &mut Diagnostics) {
    let mut targets = vec![(
        IndexRef::Table,
        spec.table.settings.warm_throughput,
        spec.table.settings.warm_from_rates,
        "the table".to_owned(),
    )];
    for index in spec.indexes.values() {
        targets.push((
            IndexRef::Index(index.name.value.clone()),
            index.warm_throughput,
            index.warm_from_rates,
            format!("index `{}`", index.name),
        ));
    }
    for (on, warm, from_rates, whose) in targets {
        let (Some(warm), None) = (warm, from_rates) else {
            continue;
        };
        let need = crate::plan::declared_units_on(spec, &on);
        for (need, declared, what) in [
            (need.reads, warm.read, "read"),
            (need.writes, warm.write, "write"),
        ] {
            let Some(declared) = declared else {
                continue;
            };
            if need > declared.value as f64 {
                diags.push(
                    Diagnostic::new(
                        Code::WarmThroughputBelowRates,
                        format!(
                            "the declared rates need about {need:.0} {what} units per second of {whose}, over its warm throughput of {}",
                            declared.value
                        ),
                    )
                    .label(declared.span, "warm throughput")
                    .help(format!(
                        "the first requests over it are throttled while DynamoDB adds partitions: raise it to at least {:.0}, or write `warm_throughput: rates`",
                        need.ceil()
                    )),
                );
            }
        }
    }
}

/// Whether a statement of the resource-based policy denies `action` to
/// every caller whatever the request: `Deny`, every principal, no
/// condition, the whole table.
fn denies_always(statement: &serde_json::Map<String, Value>, action: Action) -> bool {
    let has = |v: &Value, wanted: &dyn Fn(&str) -> bool| {
        strings(v).is_some_and(|all| all.into_iter().any(wanted))
    };
    let everyone = match statement.get("Principal") {
        Some(Value::String(s)) => s == "*",
        Some(Value::Object(m)) => m.get("AWS").is_some_and(|a| has(a, &|p| p == "*")),
        _ => false,
    };
    let whole_table = statement
        .get("Resource")
        .is_none_or(|r| has(r, &|r| r == "*"));
    let named = |patterns: &Value| has(patterns, &|p| names_action(p, action.name()));
    let covered = match (statement.get("Action"), statement.get("NotAction")) {
        (Some(a), _) => named(a),
        (None, Some(not)) => !named(not),
        (None, None) => false,
    };
    statement.get("Effect") == Some(&Value::from("Deny"))
        && everyone
        && !statement.contains_key("Condition")
        && whole_table
        && covered
}

/// Why: a resource-based policy that denies an action to every principal
/// without a condition denies it to the service and every role too (an
/// explicit deny wins over any allow), so the access patterns that need it
/// fail on every call.
pub fn check_resource_policy(spec: &ir::Spec, diags: &mut Diagnostics) {
    let statements = &spec.table.settings.resource_policy;
    if statements.is_empty() {
        return;
    }
    let mut needs: Vec<(Action, String, crate::source::Span)> = Vec::new();
    for pattern in spec.access_patterns.values() {
        let mut actions: Vec<Action> = pattern_grants(spec, pattern)
            .into_iter()
            .map(|(a, _, _)| a)
            .collect();
        if let Operation::Scan(_) = pattern.operation {
            actions.push(Action::Scan);
        }
        for action in actions {
            needs.push((
                action,
                format!("access pattern `{}`", pattern.name),
                pattern.name.span,
            ));
        }
    }
    for entity in spec.entities.values() {
        for action in [
            Action::GetItem,
            Action::PutItem,
            Action::UpdateItem,
            Action::DeleteItem,
        ] {
            needs.push((
                action,
                format!("the generated operations of `{}`", entity.name),
                entity.name.span,
            ));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (action, who, span) in needs {
        if !seen.insert((action.name(), who.clone())) {
            continue;
        }
        if statements.iter().any(|s| denies_always(s, action)) {
            diags.push(
                Diagnostic::new(
                    Code::ResourcePolicyDeniesAccess,
                    format!("the resource-based policy denies `dynamodb:{}` to every caller, and {who} needs it", action.name()),
                )
                .label(span, "needs it")
                .help("an explicit deny wins over every allow, the service's and the roles' too: add a condition that exempts them (`ArnNotEquals` on `aws:PrincipalArn`), or remove the statement"),
            );
        }
    }
}

//! Rules about how a table runs across Regions and how warm it starts.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir::{self, Consistency, IndexKind, IndexRef, Maintenance, Operation};

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
        if let Operation::Transaction(_) = pattern.operation {
            refuse(
                format!("access pattern `{}` is a transaction", pattern.name),
                pattern.name.span,
                "TransactWriteItems",
                "write the items one by one with conditions, or use `consistency: eventual`",
            );
        }
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

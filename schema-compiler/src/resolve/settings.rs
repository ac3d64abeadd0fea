//! The table's settings: point-in-time recovery, encryption, class, tags,
//! Contributor Insights and throughput limits, each checked against
//! DynamoDB's rules where it is written.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir;
use crate::source::Spanned;
use crate::syntax::{self, UnitsDecl, WarmDecl};

use super::{bounds, Resolver};

/// DynamoDB's tag limits.
const MAX_TAGS: usize = 50;
const MAX_TAG_KEY: usize = 128;
const MAX_TAG_VALUE: usize = 256;

/// The warm throughput of a new on-demand table or index: reads and writes
/// per second it serves without warming up.
pub const WARM_READS: u64 = 12_000;
/// See [`WARM_READS`].
pub const WARM_WRITES: u64 = 4_000;

/// Whose throughput is declared, as the provisioned-table error names it.
struct Owner {
    subject: &'static str,
    help: &'static str,
}

/// The spec's field for a maximum (`max`) or a warm throughput.
fn throughput_field(max: bool) -> &'static str {
    if max {
        "max_throughput"
    } else {
        "warm_throughput"
    }
}

impl Resolver<'_> {
    pub(super) fn resolve_settings(
        &mut self,
        decl: &syntax::TableDecl,
        billing: ir::BillingMode,
    ) -> ir::TableSettings {
        let point_in_time_recovery = decl.point_in_time_recovery.as_ref().map(|days| {
            if !(1..=35).contains(&days.value) {
                self.error(
                    Diagnostic::new(
                        Code::InvalidBounds,
                        format!("point-in-time recovery of {} days", days.value),
                    )
                    .label(days.span, "the recovery period")
                    .help("DynamoDB keeps 1 to 35 days of continuous backups: write a number of days from 1 to 35 (35 is DynamoDB's default)"),
                );
            }
            days.value.clamp(1, 35)
        });
        let encryption = match decl.kms_key.as_ref() {
            None => ir::Encryption::AwsOwned,
            Some(key) if key.value == "aws_managed" => ir::Encryption::AwsManaged,
            Some(key) => {
                self.check_kms_key(key);
                ir::Encryption::Customer(key.value.clone())
            }
        };
        self.check_tags(&decl.tags);
        let (warm, warm_from_rates) = self.warm(&decl.warm_throughput);
        let table = Owner {
            subject: "a provisioned table",
            help: "its capacity is the limit: remove `max_throughput`, or bill on demand",
        };
        ir::TableSettings {
            point_in_time_recovery,
            encryption,
            table_class: decl.table_class.as_ref().map(|c| c.value),
            tags: decl
                .tags
                .iter()
                .map(|(k, v)| (k.value.clone(), v.value.clone()))
                .collect(),
            contributor_insights: decl.contributor_insights.as_ref().map(|c| c.value),
            max_throughput: decl
                .max_throughput
                .as_ref()
                .map(|t| self.throughput(t, true, billing, &table)),
            warm_throughput: warm
                .as_ref()
                .map(|t| self.throughput(t, false, billing, &table)),
            warm_from_rates,
            replicas: decl
                .replicas
                .as_ref()
                .map(|r| self.resolve_replicas(r, decl)),
            resource_policy: decl
                .resource_policy
                .as_ref()
                .map(|p| self.resolve_resource_policy(p, &decl.name.value))
                .unwrap_or_default(),
        }
    }

    /// `warm_throughput` as written: units, or the span of `rates` (the
    /// units are derived once the rates are resolved).
    pub(super) fn warm(
        &mut self,
        decl: &Option<Spanned<WarmDecl>>,
    ) -> (Option<Spanned<UnitsDecl>>, Option<Spanned<()>>) {
        let Some(decl) = decl else {
            return (None, None);
        };
        match &decl.value {
            WarmDecl::Units(units) => (Some(Spanned::new(units.clone(), decl.span)), None),
            WarmDecl::Rates => (None, Some(Spanned::new((), decl.span))),
            WarmDecl::Unknown(word) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`warm_throughput: {word}` is neither `rates` nor units"),
                    )
                    .label(decl.span, "warm_throughput")
                    .help("write `rates` (what the declared rates need) or `{ read, write }` in units per second"),
                );
                (None, None)
            }
        }
    }

    /// The throughput of a global index: not of a local one (it shares the
    /// table's), and a maximum only on demand.
    pub(super) fn index_throughput(
        &mut self,
        value: Option<&Spanned<UnitsDecl>>,
        kind: ir::IndexKind,
        table: &ir::Table,
        max: bool,
    ) -> Option<ir::UnitsPerSecond> {
        let t = value?;
        let what = throughput_field(max);
        if kind == ir::IndexKind::Local {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("a local index has no `{what}` of its own"),
                )
                .label(t.span, what)
                .help("a local index uses the table's throughput: set it on the table"),
            );
            return None;
        }
        let index = Owner {
            subject: "an index of a provisioned table",
            help: "its capacity is the limit: remove `max_throughput`",
        };
        Some(self.throughput(t, max, table.billing.mode, &index))
    }

    /// `max_throughput` (`max`) or `warm_throughput` of the table or an
    /// index (`owner`): a maximum only on demand, and at least one of reads
    /// and writes, each 1 or more.
    fn throughput(
        &mut self,
        t: &Spanned<UnitsDecl>,
        max: bool,
        billing: ir::BillingMode,
        owner: &Owner,
    ) -> ir::UnitsPerSecond {
        let what = throughput_field(max);
        if max && billing == ir::BillingMode::Provisioned {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{} has no on-demand maximum throughput", owner.subject),
                )
                .label(t.span, what)
                .help(owner.help),
            );
        }
        if t.value.read.is_none() && t.value.write.is_none() {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`{what}` sets neither reads nor writes"),
                )
                .label(t.span, what)
                .help("write `read:`, `write:` or both, in units per second"),
            );
        }
        let mut units = |u: &Option<Spanned<u64>>| {
            let u = u.as_ref()?;
            if u.value == 0 {
                self.error(
                    Diagnostic::new(
                        Code::InvalidBounds,
                        format!("`{what}` of 0 units per second"),
                    )
                    .label(u.span, "units per second")
                    .help("write 1 or more units per second, or leave the limit out"),
                );
            }
            let value = self.at_most(u, bounds::UNITS_PER_SECOND, what, "units per second");
            Some(Spanned::new(value, u.span))
        };
        ir::UnitsPerSecond {
            read: units(&t.value.read),
            write: units(&t.value.write),
        }
    }

    /// Warm throughput asked for as `rates`: what the declared rates need of
    /// the table and of each such index, where that is more than a new
    /// table or index serves warm anyway (on demand 12,000 reads and 4,000
    /// writes a second; provisioned, its capacity).
    pub(super) fn derive_warm_throughput(spec: &mut ir::Spec) {
        let floors = |read: Option<u64>, write: Option<u64>| match spec.table.billing.mode {
            ir::BillingMode::Provisioned => (read.unwrap_or(0), write.unwrap_or(0)),
            _ => (WARM_READS, WARM_WRITES),
        };
        let derive = |on: &ir::IndexRef, at: Spanned<()>, floor: (u64, u64)| {
            let units = crate::plan::declared_units_on(spec, on);
            let above = |need: f64, floor: u64| {
                let need = need.ceil().min(bounds::UNITS_PER_SECOND as f64) as u64;
                (need > floor).then(|| Spanned::new(need, at.span))
            };
            let (read, write) = (above(units.reads, floor.0), above(units.writes, floor.1));
            (read.is_some() || write.is_some()).then_some(ir::UnitsPerSecond { read, write })
        };
        let mut derived = Vec::new();
        if let Some(at) = spec.table.settings.warm_from_rates {
            let floor = floors(
                spec.table.billing.read_capacity,
                spec.table.billing.write_capacity,
            );
            derived.push((None, derive(&ir::IndexRef::Table, at, floor)));
        }
        for index in spec.indexes.values() {
            if let Some(at) = index.warm_from_rates {
                let floor = floors(index.read_capacity, index.write_capacity);
                let on = ir::IndexRef::Index(index.name.value.clone());
                derived.push((Some(index.name.value.clone()), derive(&on, at, floor)));
            }
        }
        for (index, warm) in derived {
            match index {
                None => spec.table.settings.warm_throughput = warm,
                Some(name) => {
                    if let Some(index) = spec.indexes.get_mut(&name) {
                        index.warm_throughput = warm;
                    }
                }
            }
        }
    }

    /// A KMS key as DynamoDB takes it: a key ARN, a key id or an alias.
    fn check_kms_key(&mut self, key: &Spanned<String>) {
        let k = key.value.as_str();
        let arn = k.starts_with("arn:") && k.contains(":kms:");
        let alias = k.starts_with("alias/") && k.len() > "alias/".len();
        let id = !k.is_empty()
            && k.len() <= 64
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !(arn || alias || id) {
            self.error(
                Diagnostic::new(Code::InvalidValue, format!("`{k}` is not a KMS key"))
                    .label(key.span, "kms_key")
                    .help("write `aws_managed`, or a customer managed key's ARN (`arn:aws:kms:…:key/…`), id or alias (`alias/…`)"),
            );
        }
    }

    fn check_tags(&mut self, tags: &syntax::de::NamedMap<String>) {
        if tags.0.len() > MAX_TAGS {
            let (first, _) = &tags.0[MAX_TAGS];
            self.error(
                Diagnostic::new(
                    Code::InvalidBounds,
                    format!("{} tags, over DynamoDB's {MAX_TAGS}", tags.0.len()),
                )
                .label(first.span, "the first tag over the limit")
                .help(format!("a DynamoDB table holds at most {MAX_TAGS} tags")),
            );
        }
        for (key, value) in tags.iter() {
            let k = key.value.as_str();
            let problem = if k.is_empty() || k.chars().count() > MAX_TAG_KEY {
                Some(format!("a tag key has 1 to {MAX_TAG_KEY} characters"))
            } else if k.to_ascii_lowercase().starts_with("aws:") {
                Some("keys beginning with `aws:` are AWS's own".to_owned())
            } else if value.value.chars().count() > MAX_TAG_VALUE {
                Some(format!(
                    "a tag value has at most {MAX_TAG_VALUE} characters"
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                self.error(
                    Diagnostic::new(Code::InvalidValue, format!("tag `{k}`: {problem}"))
                        .label(key.span, "this tag")
                        .help("DynamoDB refuses the table's tags as written: shorten or rename the tag"),
                );
            }
        }
    }
}

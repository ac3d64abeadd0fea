//! The table's settings: point-in-time recovery, encryption, class, tags,
//! Contributor Insights and throughput limits, each checked against
//! DynamoDB's rules where it is written.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir;
use crate::source::Spanned;
use crate::syntax::{self, UnitsDecl};

use super::{bounds, Resolver};

/// DynamoDB's tag limits.
const MAX_TAGS: usize = 50;
const MAX_TAG_KEY: usize = 128;
const MAX_TAG_VALUE: usize = 256;

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
            warm_throughput: decl
                .warm_throughput
                .as_ref()
                .map(|t| self.throughput(t, false, billing, &table)),
        }
    }

    /// The throughput of a global index: not of a local one (it shares the
    /// table's), and a maximum only on demand.
    pub(super) fn index_throughput(
        &mut self,
        value: &Option<Spanned<UnitsDecl>>,
        kind: ir::IndexKind,
        table: &ir::Table,
        max: bool,
    ) -> Option<ir::UnitsPerSecond> {
        let t = value.as_ref()?;
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

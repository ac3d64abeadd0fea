//! The changes between two resolved specs, classified.

use super::codes::{ChangeCode, Class, DeployOrder};
use super::design::{Design, IndexDesign, KeyDef, PatternDesign};
pub use super::job::Job;
use crate::diagnostics::Label;
use crate::ir::{self, IndexKind};
use crate::source::Span;

/// One change between two designs.
#[derive(Debug, Clone)]
pub struct Finding {
    /// What kind of change.
    pub code: ChangeCode,
    /// Its class, which a witness may lower from the code's default.
    pub class: Class,
    /// What it is about: `Ticket`, `Ticket.title`, `GSI2`, `open_tickets`.
    pub subject: String,
    /// One sentence.
    pub message: String,
    /// Labels: on the new spec first, then on the old one.
    pub labels: Vec<Label>,
    /// An item built under the old design and what the new design does
    /// with it.
    pub witness: Option<String>,
    /// The jobs the change needs.
    pub jobs: Vec<Job>,
    /// CloudFormation applies the change by replacing the table.
    pub replaces_table: bool,
    /// Recorded as accepted in the lock.
    pub accepted: bool,
}

impl Finding {
    pub(super) fn new(
        code: ChangeCode,
        subject: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            class: code.default_class(),
            subject: subject.into(),
            message: message.into(),
            labels: Vec::new(),
            witness: None,
            jobs: Vec::new(),
            replaces_table: false,
            accepted: false,
        }
    }

    pub(super) fn label(mut self, span: Option<Span>, message: impl Into<String>) -> Self {
        if let Some(span) = span.filter(|s| !s.is_dummy()) {
            self.labels.push(Label {
                span,
                message: message.into(),
            });
        }
        self
    }

    pub(super) fn witness(mut self, witness: Option<String>) -> Self {
        self.witness = witness;
        self
    }

    pub(super) fn job(mut self, job: Job) -> Self {
        self.jobs.push(job);
        self
    }

    /// `Code(subject)`: how the lock records an accepted change.
    pub fn key(&self) -> String {
        format!("{}({})", self.code.name(), self.subject)
    }

    /// What to deploy first.
    pub fn deploy_order(&self) -> DeployOrder {
        self.code.deploy_order()
    }

    /// The steps of the change, in order.
    pub fn plan(&self) -> Vec<String> {
        let jobs: Vec<String> = self
            .jobs
            .iter()
            .map(|j| format!("run job `{}`", j.id()))
            .collect();
        let mut steps = Vec::new();
        match (self.class, self.code.deploy_order()) {
            (Class::Compatible, DeployOrder::Infrastructure) => {
                steps.push(
                    "update the table first (UpdateTable, one index per call; wait until ACTIVE)"
                        .to_owned(),
                );
                steps.push("deploy the code".to_owned());
            }
            (Class::Compatible, DeployOrder::Readers) => {
                steps.push("deploy readers, then writers".to_owned());
            }
            (Class::Compatible, _) => steps.push("deploy in any order".to_owned()),
            (Class::Clients, _) if self.code == ChangeCode::ProtectionLowered => {
                steps.push("take a backup (on-demand or point-in-time recovery) while the table is still protected".to_owned());
                steps.push("deploy the template".to_owned());
            }
            (Class::Clients, _) => {
                steps.push("update the callers of the generated API or policy first".to_owned());
                steps.push("deploy".to_owned());
            }
            (Class::Backfill, _)
                if self
                    .jobs
                    .iter()
                    .all(|j| matches!(j, Job::VerifyItems { .. })) =>
            {
                steps.extend(self.jobs.iter().map(|j| format!("before deploying, run job `{}`: it reads every stored item under the new rules and lists those that break them", j.id())));
                steps.push("fix what it lists (or loosen the rule)".to_owned());
                steps.push(
                    "deploy readers, then writers; `singletable lock --verified <job>`".to_owned(),
                );
            }
            (Class::Backfill, _) if self.jobs.is_empty() => {
                steps.push("rewrite the stored items the change leaves behind (no job is generated for it: an UpdateItem per item, by hand)".to_owned());
                steps.push("deploy writers, then readers".to_owned());
            }
            (Class::Backfill, _) => {
                // No access pattern reads a derived attribute: none waits.
                let gated = !self
                    .jobs
                    .iter()
                    .all(|j| matches!(j, Job::BackfillDerived { .. }));
                steps.push(if gated {
                    "deploy writers (new code writes the new form; the affected access patterns wait)".to_owned()
                } else {
                    "deploy writers (new code writes the new form; no access pattern waits for the job)".to_owned()
                });
                if self.code.deploy_order() == DeployOrder::Infrastructure
                    || self.code == ChangeCode::IndexComputedKeysAdded
                {
                    steps.push("update the table (create the index; wait until ACTIVE)".to_owned());
                }
                steps.extend(jobs);
                steps.push("verify: the job's `verify` finds nothing left".to_owned());
                steps.push(if gated {
                    "switch: `singletable lock --verified <job>`, then rebuild (the patterns open)"
                        .to_owned()
                } else {
                    "record it: `singletable lock --verified <job>`".to_owned()
                });
            }
            (Class::Breaking, _) if self.code == ChangeCode::WarmThroughputLowered => {
                steps.push(
                    "keep the deployed warm throughput in the spec: it cannot be lowered in place"
                        .to_owned(),
                );
            }
            (Class::Breaking, _) if self.code == ChangeCode::GlobalTableChanged => {
                steps.push("keep the deployed table: `DeletionPolicy: Retain` (the default) before any stack update".to_owned());
                steps.push("remove the table from the stack; change its replicas with UpdateTable (`<stem>.update-table-replicas.json`), or, for a change fixed at creation, create the new global table under a new name and copy the items into it".to_owned());
                steps.push("import the table into the stack as its new resource type, then deploy the code".to_owned());
            }
            (Class::Breaking, _) => {
                steps.push("expand: deploy code that writes the new form (the affected access patterns wait)".to_owned());
                if self.replaces_table {
                    steps.push(
                        "create the new table beside the old one (CloudFormation would replace it)"
                            .to_owned(),
                    );
                }
                if jobs.is_empty() {
                    steps.push("rewrite every stored item into the new form (no job is generated for this change: write it into a new attribute, then move readers over)".to_owned());
                } else {
                    steps.extend(jobs);
                    steps.push("verify: the job's `verify` finds nothing left".to_owned());
                    steps.push(
                        "switch: `singletable lock --verified <job>`, then rebuild".to_owned(),
                    );
                }
                steps.push("contract: remove the old form".to_owned());
            }
        }
        steps
    }
}

/// Where things are in a spec, for labels.
pub(super) struct Spans<'s> {
    pub spec: &'s ir::Spec,
}

impl Spans<'_> {
    pub(super) fn entity(&self, name: &str) -> Option<Span> {
        self.spec.entities.get(name).map(|e| e.name.span)
    }

    pub(super) fn attribute(&self, entity: &str, name: &str) -> Option<Span> {
        self.spec
            .entities
            .get(entity)?
            .attributes
            .get(name)
            .map(|a| a.name.span)
    }

    pub(super) fn template(
        &self,
        entity: &str,
        index: Option<&str>,
        attribute: &str,
    ) -> Option<Span> {
        let e = self.spec.entities.get(entity)?;
        let key = match index {
            None => &e.primary_key,
            Some(i) => e.index_keys.get(i)?,
        };
        key.templates()
            .find(|t| t.attribute == attribute)
            .map(|t| t.source.span)
    }

    pub(super) fn index(&self, name: &str) -> Option<Span> {
        self.spec.indexes.get(name).map(|i| i.name.span)
    }

    pub(super) fn pattern(&self, name: &str) -> Option<Span> {
        self.spec.access_patterns.get(name).map(|p| p.name.span)
    }

    pub(super) fn role(&self, name: &str) -> Option<Span> {
        self.spec.roles.get(name).map(|r| r.name.span)
    }

    pub(super) fn table(&self) -> Option<Span> {
        Some(self.spec.table.name.span)
    }
}

/// Both versions: their designs, for comparing, and their specs, for
/// spans and witness items.
pub(super) struct Versions<'s> {
    pub old: &'s Design,
    pub new: &'s Design,
    pub old_spec: &'s ir::Spec,
    pub new_spec: &'s ir::Spec,
}

impl<'s> Versions<'s> {
    pub(super) fn old_at(&self) -> Spans<'s> {
        Spans {
            spec: self.old_spec,
        }
    }

    pub(super) fn new_at(&self) -> Spans<'s> {
        Spans {
            spec: self.new_spec,
        }
    }
}

/// Every change from `old` to `new`, in the order of the new design:
/// table, tenant, indexes, entities (keys, then attributes), access
/// patterns, roles.
pub fn diff(old: &ir::Spec, new: &ir::Spec) -> Vec<Finding> {
    let (old_design, new_design) = (Design::of(old), Design::of(new));
    let v = Versions {
        old: &old_design,
        new: &new_design,
        old_spec: old,
        new_spec: new,
    };
    let mut out = Vec::new();
    table_changes(&v, &mut out);
    tenant_changes(&v, &mut out);
    index_changes(&v, &mut out);
    super::entities::entity_changes(&v, &mut out);
    pattern_changes(&v, &mut out);
    role_changes(&v, &mut out);
    // An entity copied into the new table under its new keys is re-keyed
    // by the copy.
    let copies: Vec<Job> = out
        .iter()
        .flat_map(|f| &f.jobs)
        .filter(|j| matches!(j, Job::CopyEntity { .. }))
        .cloned()
        .collect();
    for job in out.iter_mut().flat_map(|f| &mut f.jobs) {
        if let Job::Rekey { entity } = job {
            if let Some(copy) = copies.iter().find(|c| c.entity() == Some(entity.as_str())) {
                *job = copy.clone();
            }
        }
    }
    // In the order of the new spec: by the first label on it, then the
    // changes only the old spec shows, in its order.
    let new_file = new.table.name.span.file;
    out.sort_by_key(|f| {
        f.labels.first().map_or((2, 0), |l| {
            (u8::from(l.span.file != new_file), l.span.start)
        })
    });
    out
}

fn key_text(k: &KeyDef) -> String {
    format!("`{}` ({:?})", k.attribute, k.r#type)
}

/// A renamed table and changed key attributes: what CloudFormation applies
/// by replacing the table, with the jobs that copy the items over.
fn table_moves(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (old, new) = (&v.old.table, &v.new.table);
    let (at, was) = (v.new_at(), v.old_at());
    let keys_changed = old.partition_key != new.partition_key || old.sort_key != new.sort_key;
    // Into a renamed table whose key attributes changed: entity by entity,
    // under the new keys.
    let copies: Vec<Job> = if keys_changed && old.name != new.name {
        v.new
            .entities
            .keys()
            .filter(|e| v.old.entities.contains_key(*e))
            .map(|entity| Job::CopyEntity {
                entity: entity.clone(),
                from: old.name.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    if old.name != new.name {
        let mut f = Finding::new(
            ChangeCode::TableRenamed,
            &new.name,
            format!("the table is renamed from `{}` to `{}`", old.name, new.name),
        )
        .label(at.table(), "the new name")
        .label(was.table(), "the name deployed");
        // Items can be copied as they are only into a table with the same
        // key attributes; a key schema change needs every item re-keyed.
        if keys_changed {
            f.jobs.extend(copies.iter().cloned());
        } else {
            f = f.job(Job::CopyTable {
                from: old.name.clone(),
            });
        }
        f.replaces_table = true;
        let fate = match new.protection.update_replace_policy {
            ir::ResourcePolicy::Retain => {
                "retained, not deleted, by the template's UpdateReplacePolicy"
            }
            ir::ResourcePolicy::Snapshot => {
                "then deleted after a snapshot, by the template's UpdateReplacePolicy"
            }
            ir::ResourcePolicy::Delete => {
                "then DELETED, by the template's UpdateReplacePolicy: Delete"
            }
        };
        f.witness = Some(format!(
            "the generated CloudFormation template names table `{}`: an update creates a new, empty table, and every stored item stays in `{}` ({fate})",
            new.name, old.name
        ));
        out.push(f);
    }
    if keys_changed {
        let show = |k: &Option<KeyDef>| k.as_ref().map_or("none".to_owned(), key_text);
        let mut f = Finding::new(
            ChangeCode::TableKeySchemaChanged,
            &new.name,
            format!(
                "the table's keys change from {} / {} to {} / {}",
                key_text(&old.partition_key),
                show(&old.sort_key),
                key_text(&new.partition_key),
                show(&new.sort_key)
            ),
        )
        .label(at.table(), "the table");
        f.replaces_table = true;
        if old.name != new.name {
            f.jobs.extend(copies);
        } else {
            f.witness = Some(format!(
                "DynamoDB cannot change a table's key attributes: items can be copied into a new table under their new keys by a generated job when the new design names one (rename `{}`)",
                new.name
            ));
        }
        out.push(f);
    }
}

fn table_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (old, new) = (&v.old.table, &v.new.table);
    let at = v.new_at();
    table_moves(v, out);
    match (&old.ttl, &new.ttl) {
        (None, Some(ttl)) => out.push(
            Finding::new(ChangeCode::TtlAdded, ttl, format!("the table gets the TTL attribute `{ttl}`"))
                .label(at.table(), "the table")
                .witness(Some(format!("a stored item that already holds a number in `{ttl}` expires once the TTL is enabled"))),
        ),
        (Some(ttl), None) => out.push(
            Finding::new(ChangeCode::TtlRemoved, ttl, format!("the table's TTL attribute `{ttl}` is removed: reads stop hiding expired items"))
                .label(at.table(), "the table"),
        ),
        (Some(a), Some(b)) if a != b => out.push(
            Finding::new(ChangeCode::TtlChanged, b, format!("the TTL attribute changes from `{a}` to `{b}`"))
                .label(at.table(), "the table"),
        ),
        _ => {}
    }
    if old.stream != new.stream {
        out.push(
            Finding::new(
                ChangeCode::StreamChanged,
                &new.name,
                format!(
                    "the table's stream changes from {:?} to {:?}",
                    old.stream, new.stream
                ),
            )
            .label(at.table(), "the table"),
        );
    }
    super::settings::protection_changes(v, out);
    super::settings::replica_changes(v, out);
    super::settings::warm_changes(v, out);
    if old.entity_type != new.entity_type {
        let show = |a: &Option<String>| {
            a.as_ref()
                .map_or("their keys".to_owned(), |a| format!("attribute `{a}`"))
        };
        out.push(
            Finding::new(
                ChangeCode::EntityTypeModeChanged,
                &new.name,
                format!(
                    "items were told apart by {}, now by {}",
                    show(&old.entity_type),
                    show(&new.entity_type)
                ),
            )
            .label(at.table(), "the table"),
        );
    }
}

fn tenant_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (Some(old), Some(new)) = (&v.old.tenant, &v.new.tenant) else {
        return;
    };
    let span = v.new_spec.tenant.as_ref().map(|t| t.id_pattern.span);
    if old.id_pattern != new.id_pattern {
        let (o, n) = (v.old_spec.tenant.as_ref(), v.new_spec.tenant.as_ref());
        let tightened = match (o, n) {
            (Some(o), Some(n)) => {
                n.min_length > o.min_length
                    || n.max_length.unwrap_or(usize::MAX) < o.max_length.unwrap_or(usize::MAX)
                    || o.alphabet
                        .ranges
                        .iter()
                        .any(|&(lo, hi)| (lo..=hi).any(|c| !n.alphabet.contains(c)))
            }
            _ => true,
        };
        let (code, verb) = if tightened {
            (ChangeCode::TenantPatternTightened, "accepts fewer ids")
        } else {
            (ChangeCode::TenantPatternLoosened, "accepts more ids")
        };
        out.push(
            Finding::new(
                code,
                "tenant",
                format!(
                    "the tenant id pattern {verb}: `{}` was `{}`",
                    new.id_pattern, old.id_pattern
                ),
            )
            .label(span, "the new pattern"),
        );
    }
    if old.principal_tag != new.principal_tag {
        out.push(
            Finding::new(
                ChangeCode::PrincipalTagChanged,
                "tenant",
                format!("the policies read the tenant from principal tag `{}`, was `{}`: sessions must carry the new tag before the policies change", new.principal_tag, old.principal_tag),
            )
            .label(v.new_spec.tenant.as_ref().map(|t| t.principal_tag.span), "the new tag"),
        );
    }
}

/// Whether some entity of `spec` writes computed (not natural) keys into
/// `index`.
pub(super) fn computed_keys(spec: &ir::Spec, index: &str) -> Vec<String> {
    spec.entities
        .values()
        .filter(|e| {
            e.index_keys
                .get(index)
                .is_some_and(|k| k.templates().any(|t| !spec.holds_value(t)))
        })
        .map(|e| e.name.value.clone())
        .collect()
}

fn index_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (at, was) = (v.new_at(), v.old_at());
    for (name, new) in &v.new.indexes {
        match v.old.indexes.get(name) {
            None if new.kind == IndexKind::Local => {
                let mut f = Finding::new(ChangeCode::LocalIndexChanged, name, format!("local index `{name}` is added: local indexes exist only from a table's creation"))
                    .label(at.index(name), "the new index");
                f.replaces_table = true;
                out.push(f);
            }
            // An added global index: natural keys are filled by DynamoDB;
            // each entity that computes its keys gets its own finding.
            None if computed_keys(v.new_spec, name).is_empty() => out.push(
                Finding::new(ChangeCode::IndexAddedNatural, name, format!("global index `{name}` is added on attributes items already have: DynamoDB fills it"))
                    .label(at.index(name), "the new index"),
            ),
            None => {}
            Some(old) => changed_index(v, name, old, new, out),
        }
    }
    for (name, old) in &v.old.indexes {
        if v.new.indexes.contains_key(name) {
            continue;
        }
        let mut f = if old.kind == IndexKind::Local {
            let mut f = Finding::new(
                ChangeCode::LocalIndexChanged,
                name,
                format!(
                    "local index `{name}` is removed: local indexes change only with a new table"
                ),
            );
            f.replaces_table = true;
            f
        } else {
            Finding::new(ChangeCode::IndexRemoved, name, format!("global index `{name}` is removed: its queries go, and the policies stop granting it"))
        };
        f = f.label(was.index(name), "the index deployed");
        out.push(f);
    }
}

fn changed_index(
    v: &Versions<'_>,
    name: &str,
    old: &IndexDesign,
    new: &IndexDesign,
    out: &mut Vec<Finding>,
) {
    let at = v.new_at();
    if old.kind != new.kind
        || old.partition_key != new.partition_key
        || old.sort_key != new.sort_key
    {
        let code = if old.kind == IndexKind::Local || new.kind == IndexKind::Local {
            ChangeCode::LocalIndexChanged
        } else {
            ChangeCode::IndexKeySchemaChanged
        };
        let mut f = Finding::new(code, name, format!("index `{name}`'s key attributes change: DynamoDB cannot change an index's keys in place (add a new index, switch, then drop this one)"))
            .label(at.index(name), "this index");
        f.replaces_table = code == ChangeCode::LocalIndexChanged;
        out.push(f);
    }
    if old.projection != new.projection
        && (old.kind == IndexKind::Local || new.kind == IndexKind::Local)
    {
        let mut f = Finding::new(ChangeCode::LocalIndexChanged, name, format!("local index `{name}`'s projection changes: a local index changes only with a new table"))
            .label(at.index(name), "this index");
        f.replaces_table = true;
        out.push(f);
    } else if old.projection != new.projection {
        out.push(
            Finding::new(ChangeCode::ProjectionChanged, name, format!("index `{name}`'s projection changes from {:?} to {:?}: the index is rebuilt, and the partial types read through it change", old.projection, new.projection))
                .label(at.index(name), "this index"),
        );
    }
}

fn pattern_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (at, was) = (v.new_at(), v.old_at());
    for (name, new) in &v.new.access_patterns {
        match v.old.access_patterns.get(name) {
            None => out.push(
                Finding::new(
                    ChangeCode::PatternAdded,
                    name,
                    format!("access pattern `{name}` is added"),
                )
                .label(at.pattern(name), "the new pattern"),
            ),
            Some(old) if old != new => out.push(
                Finding::new(
                    ChangeCode::PatternChanged,
                    name,
                    format!(
                        "access pattern `{name}` changes: {}",
                        describe_pattern_change(old, new)
                    ),
                )
                .label(at.pattern(name), "this pattern")
                .label(was.pattern(name), "as deployed"),
            ),
            Some(_) => {}
        }
    }
    for name in v.old.access_patterns.keys() {
        if !v.new.access_patterns.contains_key(name) {
            out.push(
                Finding::new(ChangeCode::PatternRemoved, name, format!("access pattern `{name}` is removed: its method goes, and its callers with it"))
                    .label(was.pattern(name), "the pattern deployed"),
            );
        }
    }
}

fn describe_pattern_change(old: &PatternDesign, new: &PatternDesign) -> String {
    let mut parts = Vec::new();
    if old.index != new.index {
        parts.push(format!(
            "reads {} instead of {}",
            index_words(&new.index),
            index_words(&old.index)
        ));
    }
    if old.request != new.request {
        parts.push(format!("`{}` was `{}`", new.request, old.request));
    }
    if old.entities != new.entities {
        parts.push(format!(
            "returns {:?} instead of {:?}",
            new.entities, old.entities
        ));
    }
    if parts.is_empty() {
        parts.push(format!(
            "it is a {} instead of a {}",
            new.operation, old.operation
        ));
    }
    parts.join("; ")
}

fn index_words(index: &Option<String>) -> String {
    index
        .as_ref()
        .map_or("the table".to_owned(), |i| format!("index `{i}`"))
}

fn role_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (at, was) = (v.new_at(), v.old_at());
    for (name, new) in &v.new.roles {
        let old = v.old.roles.get(name);
        let lost: Vec<&String> = old.map_or(Vec::new(), |o| {
            o.iter().filter(|p| !new.contains(p)).collect()
        });
        let gained = old.is_none_or(|o| new.iter().any(|p| !o.contains(p)));
        if !lost.is_empty() {
            out.push(
                Finding::new(
                    ChangeCode::RoleNarrowed,
                    name,
                    format!(
                        "role `{name}` no longer lists {}: its callers get AccessDenied",
                        lost.iter()
                            .map(|p| format!("`{p}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .label(at.role(name), "this role"),
            );
        } else if gained {
            out.push(
                Finding::new(
                    ChangeCode::RoleWidened,
                    name,
                    format!("role `{name}` is granted more"),
                )
                .label(at.role(name), "this role"),
            );
        }
    }
    for name in v.old.roles.keys() {
        if !v.new.roles.contains_key(name) {
            out.push(
                Finding::new(
                    ChangeCode::RoleNarrowed,
                    name,
                    format!("role `{name}` is removed: its callers get AccessDenied"),
                )
                .label(was.role(name), "the role deployed"),
            );
        }
    }
}

/// A finding, for the other rule modules.
pub(super) fn finding(
    code: ChangeCode,
    subject: impl Into<String>,
    message: impl Into<String>,
) -> Finding {
    Finding::new(code, subject, message)
}

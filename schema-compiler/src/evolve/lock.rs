//! The lock of the deployed design: `singletable.lock`, beside the specs
//! it locks, committed with them.
//!
//! For each spec it records the design that is deployed (the spec as
//! written, and the hash of its canonical [`Design`]), a generation bumped
//! by every accepted breaking change, the names and key prefixes that may
//! never be used again, and a hash-chained history of the accepted change
//! sets, each with the migration jobs it needs and whether they are
//! verified. Progress of the jobs lives in the table's control table, not
//! here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::design::{sha256, Design};
use super::diff::{Finding, Job};
use super::Class;

/// The lock file's name.
pub const FILE_NAME: &str = "singletable.lock";

/// The version of the lock format.
pub const FORMAT: u32 = 1;

/// A lock file: one entry per spec of its directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    /// [`FORMAT`].
    pub format: u32,
    /// The compiler version that wrote it.
    pub singletable: String,
    /// The locked specs, by file name.
    #[serde(default, rename = "spec")]
    pub specs: Vec<LockedSpec>,
}

/// The locked design of one spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedSpec {
    /// The spec's file name, in the lock's directory.
    pub file: String,
    /// The hash of the locked design.
    pub design: String,
    /// Bumped by every accepted breaking change.
    pub generation: u32,
    /// The running hash over the history's designs.
    pub chain: String,
    /// What may never be used again.
    #[serde(default)]
    pub reserved: Reserved,
    /// The accepted change sets, oldest first.
    #[serde(default)]
    pub history: Vec<Entry>,
    /// The locked spec, as written.
    pub source: String,
}

/// Names and key prefixes that may never be used again: an entity or a
/// stored attribute removed, the literal start of a key an entity moved
/// away from. Old items still carry them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Reserved {
    /// Entity names (their items' entity-type values).
    #[serde(default)]
    pub entities: Vec<String>,
    /// Stored attribute names, by entity.
    #[serde(default)]
    pub stored_attributes: BTreeMap<String, Vec<String>>,
    /// Table partition-key templates entities moved away from, by entity.
    #[serde(default)]
    pub key_prefixes: BTreeMap<String, Vec<String>>,
}

/// One accepted change set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The design it moved from (none for the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The design it moved to.
    pub to: String,
    /// The generation from then on.
    pub generation: u32,
    /// The changes accepted, as `code(subject)`.
    #[serde(default)]
    pub accepted: Vec<String>,
    /// The jobs the change set needs.
    #[serde(default)]
    pub jobs: Vec<LockedJob>,
    /// The spec the change set moved from, as written, when a job needs
    /// it (a re-key reads items at their old keys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// A job of a change set, and whether its work is verified. (Not
/// `deny_unknown_fields`: serde cannot check a flattened enum's fields.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockedJob {
    /// Its id.
    pub id: String,
    /// What it does.
    #[serde(flatten)]
    pub job: Job,
    /// `pending` until `singletable lock --verified <id>`.
    pub state: JobState,
}

/// Whether a job's work is done and verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// The affected access patterns wait for it.
    Pending,
    /// Its verify found nothing left.
    Verified,
}

impl LockFile {
    /// The lock of the directory of `spec`, if there is one.
    pub fn path_for(spec: &Path) -> PathBuf {
        spec.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .join(FILE_NAME)
    }

    /// Reads a lock file.
    pub fn read(path: &Path) -> Result<Option<LockFile>, String> {
        let text = match crate::source::read_input(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let lock: LockFile = toml::from_str(&text)
            .map_err(|e| format!("{}: not a lock file: {e}", path.display()))?;
        if lock.format != FORMAT {
            return Err(format!(
                "{}: lock format {} is not {FORMAT}, the one this compiler reads",
                path.display(),
                lock.format
            ));
        }
        Ok(Some(lock))
    }

    /// The lock as written: a header comment, then TOML.
    pub fn to_text(&self) -> String {
        let body = toml::to_string_pretty(self).expect("invariant: a lock serializes");
        format!("# Written by `singletable lock`. Do not edit by hand; commit it.\n{body}")
    }

    /// The entry of the spec file `file`.
    pub fn spec(&self, file: &str) -> Option<&LockedSpec> {
        self.specs.iter().find(|s| s.file == file)
    }

    /// Replaces or adds the entry of `spec.file`, keeping the entries
    /// ordered by file name.
    pub fn set(&mut self, spec: LockedSpec) {
        self.specs.retain(|s| s.file != spec.file);
        self.specs.push(spec);
        self.specs.sort_by(|a, b| a.file.cmp(&b.file));
        self.format = FORMAT;
        self.singletable = env!("CARGO_PKG_VERSION").to_owned();
    }
}

impl LockedSpec {
    /// The lock of `design` as deployed, with no checks: `lock init
    /// --baseline` (Prisma's `migrate resolve --applied`).
    pub fn baseline(file: &str, source: &str, design: &Design) -> LockedSpec {
        let to = design.hash();
        LockedSpec {
            file: file.to_owned(),
            design: to.clone(),
            generation: 1,
            chain: sha256(to.as_bytes()),
            reserved: Reserved::default(),
            history: vec![Entry {
                from: None,
                to,
                generation: 1,
                accepted: vec!["baseline".to_owned()],
                jobs: Vec::new(),
                previous: None,
            }],
            source: source.to_owned(),
        }
    }

    /// The lock after accepting `findings`, the changes from the locked
    /// design to `design` (written as `source`): a new history entry with
    /// their jobs (pending), the generation bumped for a breaking change,
    /// and what they retire reserved.
    pub fn accept(
        &self,
        source: &str,
        design: &Design,
        findings: &[Finding],
        old: &Design,
    ) -> LockedSpec {
        let to = design.hash();
        let breaking = findings.iter().any(|f| f.class == Class::Breaking);
        let generation = self.generation + u32::from(breaking);
        let mut jobs: Vec<LockedJob> = Vec::new();
        for job in findings.iter().flat_map(|f| &f.jobs) {
            if !jobs.iter().any(|j| &j.job == job) {
                let mut job = job.clone();
                // A recount's mark: the change set's place in the history
                // and design, never one an earlier recount left on items.
                if let Job::Recount { mark, .. } = &mut job {
                    let design = to.strip_prefix("sha256:").unwrap_or(&to);
                    let short = design.get(..8).unwrap_or(design);
                    *mark = Some(format!("{}.{short}", self.history.len()));
                }
                jobs.push(LockedJob {
                    id: job.id(),
                    job,
                    state: JobState::Pending,
                });
            }
        }
        let mut reserved = self.reserved.clone();
        reserve(&mut reserved, old, design);
        let previous = jobs
            .iter()
            .any(|j| j.job.reads_old_design())
            .then(|| self.source.clone());
        let mut history = self.history.clone();
        history.push(Entry {
            from: Some(self.design.clone()),
            to: to.clone(),
            generation,
            accepted: findings
                .iter()
                .filter(|f| f.class != Class::Compatible)
                .map(Finding::key)
                .collect(),
            jobs,
            previous,
        });
        LockedSpec {
            file: self.file.clone(),
            design: to.clone(),
            generation,
            chain: sha256(format!("{}{to}", self.chain).as_bytes()),
            reserved,
            history,
            source: source.to_owned(),
        }
    }

    /// Every job not yet verified, of every change set.
    pub fn pending_jobs(&self) -> Vec<&LockedJob> {
        self.pending().map(|(job, _)| job).collect()
    }

    /// Every job not yet verified, with the spec its change set moved from
    /// (when it recorded it).
    pub fn pending(&self) -> impl Iterator<Item = (&LockedJob, Option<&str>)> {
        self.history.iter().flat_map(|e| {
            e.jobs
                .iter()
                .filter(|j| j.state == JobState::Pending)
                .map(move |j| (j, e.previous.as_deref()))
        })
    }

    /// Marks job `id` verified; `false` when no pending job has that id.
    pub fn verify(&mut self, id: &str) -> bool {
        let mut found = false;
        for job in self.history.iter_mut().flat_map(|e| e.jobs.iter_mut()) {
            if job.id == id && job.state == JobState::Pending {
                job.state = JobState::Verified;
                found = true;
            }
        }
        found
    }
}

/// Reserves what the move from `old` to `new` retires: removed entities,
/// stored names no entity stores any more, and the literal start of every
/// table key an entity leaves.
fn reserve(reserved: &mut Reserved, old: &Design, new: &Design) {
    for (name, e) in &old.entities {
        let Some(n) = new.entities.get(name) else {
            if !reserved.entities.contains(name) {
                reserved.entities.push(name.clone());
            }
            continue;
        };
        for a in e.attributes.values() {
            if !n.attributes.values().any(|b| b.stored == a.stored) {
                let list = reserved.stored_attributes.entry(name.clone()).or_default();
                if !list.contains(&a.stored) {
                    list.push(a.stored.clone());
                }
            }
        }
        if e.key.pk.parts != n.key.pk.parts {
            let list = reserved.key_prefixes.entry(name.clone()).or_default();
            if !list.contains(&e.key.pk.text) {
                list.push(e.key.pk.text.clone());
            }
        }
    }
}

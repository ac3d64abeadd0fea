//! The build against the lock: a spec whose design differs from the locked
//! one builds only when every change is accepted (compatible changes too,
//! in locked mode, as `cargo --locked` refuses a stale Cargo.lock).

use std::path::Path;

use super::codes::Class;
use super::design::Design;
use super::diff::{diff, Finding};
use super::lock::{LockFile, LockedSpec};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir;
use crate::source::{FileId, SourceMap};

/// The locked design of `path` (resolved), with its lock entry.
pub struct Locked {
    /// The lock entry.
    pub entry: LockedSpec,
    /// The locked spec, resolved; `None` when it no longer compiles.
    pub spec: Option<ir::Spec>,
    /// Where the locked spec's text is in the source map.
    pub file: FileId,
}

/// Reads the lock entry of the spec at `path` and resolves the locked spec
/// into `sources` (shown as `singletable.lock: <file>`); `Ok(None)` without
/// a lock or an entry.
pub fn read_locked(sources: &mut SourceMap, path: &Path) -> Result<Option<Locked>, String> {
    let lock_path = LockFile::path_for(path);
    let Some(lock) = LockFile::read(&lock_path)? else {
        return Ok(None);
    };
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(None);
    };
    let Some(entry) = lock.spec(name).cloned() else {
        return Ok(None);
    };
    let file = sources.add(
        format!("{} (locked {name})", lock_path.display()),
        entry.source.clone(),
    );
    let mut diags = Diagnostics::new();
    let spec = crate::compile_file(sources, file, &mut diags).filter(|_| !diags.has_errors());
    Ok(Some(Locked { entry, spec, file }))
}

/// The changes from the locked design to `spec`, and the reserved names
/// and key prefixes it uses again.
pub fn changes(locked: &Locked, spec: &ir::Spec) -> Vec<Finding> {
    let Some(old) = &locked.spec else {
        return Vec::new();
    };
    let mut findings = diff(old, spec);
    findings.extend(super::entities::reserved_reused(
        &locked.entry.reserved,
        spec,
    ));
    findings
}

/// Checks `spec` (read from `path`) against its lock: diagnostics for
/// every change the lock has not accepted; `strict` (locked mode) refuses
/// unrecorded compatible changes too. Returns the lock entry when the spec
/// builds on it.
pub fn check_against_lock(
    sources: &mut SourceMap,
    path: &Path,
    spec: &ir::Spec,
    strict: bool,
    diags: &mut Diagnostics,
) -> Option<LockedSpec> {
    let locked = match read_locked(sources, path) {
        Ok(Some(locked)) => locked,
        Ok(None) => return None,
        Err(message) => {
            diags.push(Diagnostic::new(Code::Io, message));
            return None;
        }
    };
    if locked.entry.design == Design::of(spec).hash() {
        return Some(locked.entry);
    }
    if locked.spec.is_none() {
        diags.push(
            Diagnostic::new(
                Code::UnacceptedChange,
                format!(
                    "the spec locked in {} no longer compiles: the design cannot be compared",
                    super::lock::FILE_NAME
                ),
            )
            .help("run `singletable lock init --baseline` on the deployed spec to record it again"),
        );
        return None;
    }
    let display = path.display();
    for f in changes(&locked, spec) {
        let compatible = f.class == Class::Compatible;
        if compatible && !strict {
            diags.push(
                Diagnostic::new(
                    Code::UnrecordedChange,
                    format!("{} [{}]", f.message, f.code),
                )
                .label_all(&f)
                .help(format!(
                    "the change is compatible; record it with `singletable lock {display}`"
                )),
            );
            continue;
        }
        let (code, what) = if compatible {
            (
                Code::UnrecordedChange,
                "a compatible change the lock does not record (locked mode)".to_owned(),
            )
        } else {
            (
                Code::UnacceptedChange,
                format!("a {} change the lock has not accepted", f.class),
            )
        };
        diags.push(
            Diagnostic::new(code, format!("{what}: {} [{}]", f.message, f.code))
                .severity(crate::diagnostics::Severity::Error)
                .label_all(&f)
                .help(format!(
                    "`singletable diff --against lock {display}` shows it with its witness item and plan; accept it with `singletable lock {display} --accept '{}'`",
                    f.key()
                )),
        );
    }
    Some(locked.entry)
}

impl Diagnostic {
    /// The labels of a finding.
    fn label_all(mut self, finding: &Finding) -> Self {
        for l in &finding.labels {
            self = self.label(l.span, l.message.clone());
        }
        self
    }
}

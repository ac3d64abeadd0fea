//! Comparing two versions of a spec: files, a spec against its lock, or
//! against a git revision.

use std::path::Path;

use super::check::{changes, read_locked};
use super::diff::{diff, Finding};
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Report};
use crate::ir;
use crate::source::{FileId, SourceMap};

/// Two versions of a spec, compared.
#[derive(Debug)]
pub struct Comparison {
    /// Both specs' texts, for rendering the findings.
    pub sources: SourceMap,
    /// Every change from the old design to the new one.
    pub findings: Vec<Finding>,
    /// The old spec, resolved.
    pub old: ir::Spec,
    /// The new spec, resolved.
    pub new: ir::Spec,
}

impl Comparison {
    /// Whether every change is compatible (`diff`'s exit status 0).
    pub fn is_compatible(&self) -> bool {
        self.findings
            .iter()
            .all(|f| f.class == super::Class::Compatible || f.accepted)
    }
}

/// Where the old version of a spec comes from.
#[derive(Debug, Clone)]
pub enum Against {
    /// Another spec file.
    File(std::path::PathBuf),
    /// The design the spec's `singletable.lock` records.
    Lock,
    /// `git:<revision>:<path>`: the spec as committed (`git show`).
    Git {
        /// The revision (`main`, `HEAD~3`, a tag).
        revision: String,
        /// The path in the repository.
        path: String,
    },
}

impl Against {
    /// `lock`, `git:<rev>:<path>`, or a file path.
    pub fn parse(text: &str) -> Against {
        if text == "lock" {
            return Against::Lock;
        }
        if let Some(rest) = text.strip_prefix("git:") {
            if let Some((revision, path)) = rest.split_once(':') {
                return Against::Git {
                    revision: revision.to_owned(),
                    path: path.to_owned(),
                };
            }
        }
        Against::File(text.into())
    }
}

fn io(message: String) -> Report {
    let mut diagnostics = Diagnostics::new();
    diagnostics.push(Diagnostic::new(Code::Io, message));
    Report {
        sources: SourceMap::new(),
        diagnostics,
    }
}

/// Resolves `file` of `sources`, or the report of its errors.
fn resolve(sources: &SourceMap, file: FileId) -> Result<ir::Spec, Report> {
    let mut diagnostics = Diagnostics::new();
    match crate::compile_file(sources, file, &mut diagnostics) {
        Some(spec) if !diagnostics.has_errors() => Ok(spec),
        _ => Err(Report {
            sources: sources.clone(),
            diagnostics,
        }),
    }
}

/// Compares the spec file `new` with its old version.
pub fn compare(new: &Path, against: &Against) -> Result<Comparison, Report> {
    let mut sources = SourceMap::new();
    let new_file = sources
        .load(new)
        .map_err(|e| io(format!("cannot read {}: {e}", new.display())))?;
    let (old, reserved) = match against {
        Against::File(path) => {
            let file = sources
                .load(path)
                .map_err(|e| io(format!("cannot read {}: {e}", path.display())))?;
            (resolve(&sources, file)?, None)
        }
        Against::Git { revision, path } => {
            let text = git_show(new, revision, path).map_err(io)?;
            let file = sources.add(format!("git:{revision}:{path}"), text);
            (resolve(&sources, file)?, None)
        }
        Against::Lock => {
            let locked = read_locked(&mut sources, new).map_err(io)?.ok_or_else(|| {
                io(format!(
                    "{} has no entry in {}: run `singletable lock init --baseline {}` to record the deployed design",
                    new.display(),
                    super::lock::LockFile::path_for(new).display(),
                    new.display()
                ))
            })?;
            let old = match &locked.spec {
                Some(spec) => spec.clone(),
                None => {
                    return Err(resolve(&sources, locked.file)
                        .err()
                        .unwrap_or_else(|| io("the locked spec does not compile".into())))
                }
            };
            (old, Some(locked))
        }
    };
    let new_spec = resolve(&sources, new_file)?;
    let findings = match &reserved {
        Some(locked) => changes(locked, &new_spec),
        None => diff(&old, &new_spec),
    };
    Ok(Comparison {
        sources,
        findings,
        old,
        new: new_spec,
    })
}

/// `git show <revision>:<path>`, run in the directory of `near`.
fn git_show(near: &Path, revision: &str, path: &str) -> Result<String, String> {
    let dir = near
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .arg("show")
        .arg(format!("{revision}:{path}"))
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git show {revision}:{path}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    if output.stdout.len() as u64 > crate::source::MAX_INPUT_BYTES {
        return Err(format!("git:{revision}:{path} is larger than 16 MiB"));
    }
    String::from_utf8(output.stdout).map_err(|_| format!("git:{revision}:{path} is not UTF-8"))
}

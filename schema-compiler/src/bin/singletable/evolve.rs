//! `singletable diff`, `singletable lock` and `singletable migrate plan`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use singletable::evolve::lock::{JobState, LockFile, LockedSpec};
use singletable::evolve::{self, estimate, Against, Class, Comparison, Design};

use super::{print_and_exit, print_out, Format};

/// `diff OLD NEW`, or `diff NEW --against lock|git:<rev>:<path>|FILE`.
pub fn diff(specs: &[PathBuf], against: Option<&str>, format: Format) -> ExitCode {
    let (new, against) = match (specs, against) {
        ([old, new], None) => (new, Against::File(old.clone())),
        ([new], Some(against)) => (new, Against::parse(against)),
        ([_], None) => {
            tell!("error: give the old and the new spec, or one spec and --against lock|git:<revision>:<path>|<file>");
            return ExitCode::from(2);
        }
        _ => {
            tell!("error: give two specs (old, new), or one with --against");
            return ExitCode::from(2);
        }
    };
    let comparison = match evolve::compare(new, &against) {
        Ok(c) => c,
        Err(report) => return report_failure(&report),
    };
    let printed = match format {
        Format::Json => {
            let json = evolve::render_json(&comparison.sources, &comparison.findings);
            print_out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&json).expect("findings serialize")
            ))
        }
        Format::Text => print_out(&text(&comparison)),
    };
    if let Err(status) = printed {
        return status;
    }
    if comparison.is_compatible() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The findings and a summary line.
fn text(comparison: &Comparison) -> String {
    let mut out = evolve::render_text(&comparison.sources, &comparison.findings);
    let count = |class: Class| {
        comparison
            .findings
            .iter()
            .filter(|f| f.class == class)
            .count()
    };
    out.push_str(&format!(
        "{} change(s): {} compatible, {} backfill, {} breaking, {} breaking for clients\n",
        comparison.findings.len(),
        count(Class::Compatible),
        count(Class::Backfill),
        count(Class::Breaking),
        count(Class::Clients),
    ));
    out
}

/// A spec that cannot be read or resolved: its report, exit status 2 for
/// I/O, 1 for errors in the spec.
fn report_failure(report: &singletable::diagnostics::Report) -> ExitCode {
    tell!("{}", report.to_text().trim_end());
    let io = report
        .diagnostics
        .iter()
        .all(|d| d.code == singletable::diagnostics::Code::Io);
    ExitCode::from(if io { 2 } else { 1 })
}

/// What `lock` does to each spec.
pub struct LockRequest<'a> {
    /// Record the design as deployed, with no checks.
    pub baseline: bool,
    /// Changes accepted by key, `code(subject)`.
    pub accept: &'a [String],
    /// Accept every change that is not breaking.
    pub accept_all: bool,
    /// Jobs verified.
    pub verified: &'a [String],
}

/// `lock [--accept K]... [--accept-all] [--verified JOB]... SPEC...`, and
/// `lock init --baseline SPEC...`.
pub fn lock(specs: &[PathBuf], request: &LockRequest<'_>) -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for spec in specs {
        match lock_one(spec, request) {
            Ok(message) => tell!("{}: {message}", spec.display()),
            Err((message, code)) => {
                tell!("{message}");
                status = ExitCode::from(code);
            }
        }
    }
    status
}

type Failure = (String, u8);

fn lock_one(spec: &Path, request: &LockRequest<'_>) -> Result<String, Failure> {
    let lock_path = LockFile::path_for(spec);
    let mut lock = LockFile::read(&lock_path)
        .map_err(|e| (format!("error: {e}"), 2))?
        .unwrap_or_default();
    let file = spec
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| (format!("error: {} is not a file name", spec.display()), 2))?;
    let source = singletable::source::read_input(spec)
        .map_err(|e| (format!("error: cannot read {}: {e}", spec.display()), 2))?;
    let compiled = singletable::Compiler::new()
        .source(spec.display().to_string(), source.clone())
        .compile();
    if compiled.has_errors() {
        return Err((compiled.report().to_text(), 1));
    }
    let design = Design::of(&compiled.specs[0].spec);
    let message = match (lock.spec(file).cloned(), request.baseline) {
        (_, true) => {
            lock.set(LockedSpec::baseline(file, &source, &design));
            format!("locked as deployed ({}), generation 1", design.hash())
        }
        (None, false) => {
            return Err((
                format!("error: {} has no entry in {}: record the deployed design first with `singletable lock init --baseline {}`", spec.display(), lock_path.display(), spec.display()),
                1,
            ))
        }
        (Some(entry), false) => accept(spec, &source, &design, entry, request, &mut lock)?,
    };
    singletable::write_if_changed(&lock_path, &lock.to_text()).map_err(|e| {
        (
            format!("error: cannot write {}: {e}", lock_path.display()),
            2,
        )
    })?;
    Ok(message)
}

fn accept(
    spec: &Path,
    source: &str,
    design: &Design,
    mut entry: LockedSpec,
    request: &LockRequest<'_>,
    lock: &mut LockFile,
) -> Result<String, Failure> {
    let mut notes = Vec::new();
    for job in request.verified {
        if !entry.verify(job) {
            return Err((
                format!("error: {} has no pending job `{job}`", spec.display()),
                1,
            ));
        }
        notes.push(format!("job `{job}` verified"));
    }
    if entry.design != design.hash() {
        let comparison = evolve::compare(spec, &Against::Lock).map_err(|r| (r.to_text(), 1))?;
        let refused: Vec<&evolve::Finding> = comparison
            .findings
            .iter()
            .filter(|f| f.class != Class::Compatible)
            .filter(|f| {
                let named = request.accept.iter().any(|a| *a == f.key());
                !(named || (request.accept_all && f.class != Class::Breaking))
            })
            .collect();
        if !refused.is_empty() {
            let shown: Vec<evolve::Finding> = refused.iter().map(|f| (*f).clone()).collect();
            let keys: Vec<String> = shown
                .iter()
                .map(|f| format!("--accept '{}'", f.key()))
                .collect();
            return Err((
                format!(
                    "{}error: {} change(s) not accepted; accept them by name ({}), breaking ones always by name",
                    evolve::render_text(&comparison.sources, &shown),
                    shown.len(),
                    keys.join(" ")
                ),
                1,
            ));
        }
        let old = Design::of(&comparison.old);
        entry = entry.accept(source, design, &comparison.findings, &old);
        let jobs: Vec<&str> = entry.pending_jobs().iter().map(|j| j.id.as_str()).collect();
        notes.push(format!(
            "{} change(s) accepted, generation {}; pending jobs: {}",
            comparison.findings.len(),
            entry.generation,
            if jobs.is_empty() {
                "none".to_owned()
            } else {
                jobs.join(", ")
            }
        ));
    }
    lock.set(entry);
    if notes.is_empty() {
        notes.push("up to date".to_owned());
    }
    Ok(notes.join("; "))
}

/// `migrate plan SPEC`: the pending jobs of the lock, what waits for each,
/// what each costs over `volume`, and how to run them.
pub fn migrate_plan(spec: &Path, volume: Option<estimate::Volume>) -> ExitCode {
    let lock = match LockFile::read(&LockFile::path_for(spec)) {
        Ok(Some(lock)) => lock,
        Ok(None) => {
            tell!(
                "error: no {} beside {}",
                singletable::evolve::lock::FILE_NAME,
                spec.display()
            );
            return ExitCode::from(1);
        }
        Err(e) => {
            tell!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(entry) = spec
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| lock.spec(n))
    else {
        tell!("error: {} is not in the lock", spec.display());
        return ExitCode::from(1);
    };
    let mut out = format!(
        "{} (generation {}, design {})\n",
        spec.display(),
        entry.generation,
        entry.design
    );
    let jobs: Vec<_> = entry.history.iter().flat_map(|e| &e.jobs).collect();
    let compiled = volume.as_ref().and_then(|_| {
        let mut compiler = singletable::Compiler::new();
        compiler.ignore_lock();
        let compilation = compiler.file(spec).compile();
        compilation.specs.into_iter().next().map(|s| s.spec)
    });
    if jobs.is_empty() {
        out.push_str("no migration jobs\n");
    }
    for job in &jobs {
        let state = match job.state {
            JobState::Pending => "pending",
            JobState::Verified => "verified",
        };
        out.push_str(&format!("  {} [{state}]: {}\n", job.id, describe(&job.job)));
        if let (Some(volume), Some(compiled)) = (&volume, &compiled) {
            match estimate::estimate(compiled, &job.job, volume) {
                Some(e) => out.push_str(&format!("    {}\n", cost(&e, volume))),
                None => out.push_str("    no estimate: its entity is not in the spec\n"),
            }
        }
    }
    if volume.is_none() && !jobs.is_empty() {
        out.push_str("\n(`--items N`, with `--workers W --max-wcu X`, estimates each job's capacity, cost and time)\n");
    }
    out.push_str("\nRun a job from the crate that includes the generated module (its `migrations::main()`):\n  <binary> run <job> --worker I --workers W --live\n  <binary> status <job> | verify <job> | reset-segment <job> <S>\nthen `singletable lock --verified <job>` and rebuild: the access patterns that wait for it open.\n");
    print_and_exit(&out)
}

/// One line of a job's estimate.
fn cost(e: &estimate::Estimate, volume: &estimate::Volume) -> String {
    let time = match e.seconds {
        Some(seconds) => format!(
            "about {} with {} worker(s) at the given budgets",
            duration(seconds),
            volume.workers
        ),
        None => {
            "time: give --max-wcu/--max-rcu (on-demand tables throttle by partition, not by budget)"
                .to_owned()
        }
    };
    format!(
        "estimate: {} items of about {} bytes; {:.0} read units, {:.0} write units, about ${:.2} on demand (us-east-1); {time}",
        volume.entity_items, e.item_bytes, e.read_units, e.write_units, e.dollars
    )
}

fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

fn describe(job: &evolve::Job) -> String {
    match job {
        evolve::Job::BackfillIndexKeys { entity, index } => {
            format!("write index `{index}`'s keys into every stored `{entity}` (UpdateItem, conditional on the attributes read)")
        }
        evolve::Job::BackfillDerived { entity, attribute } => {
            format!("write the derived attribute `{attribute}` into every stored `{entity}` (UpdateItem, conditional on the attributes read)")
        }
        evolve::Job::CleanupIndexKeys { entity, index } => {
            format!("remove index `{index}`'s keys from every stored `{entity}`")
        }
        evolve::Job::VerifyItems { entity } => {
            format!("read every stored `{entity}` under the new rules; count and list the ones that break them (writes nothing)")
        }
        evolve::Job::Rekey { entity } => {
            format!("move every stored `{entity}` to its new key (TransactWriteItems: put new if absent, delete old)")
        }
        evolve::Job::MoveAttribute { entity, from, to } => {
            format!("move `{from}` to `{to}` in every stored `{entity}` (UpdateItem, conditional on the values read)")
        }
        evolve::Job::FillAttribute {
            entity,
            attribute,
            value: Some(value),
        } => {
            format!("set `{attribute}` to {value} in every stored `{entity}` that lacks it (UpdateItem, conditional on its absence)")
        }
        evolve::Job::FillAttribute {
            entity,
            attribute,
            value: None,
        } => {
            format!("set `{attribute}` in every stored `{entity}` that lacks it, to what your function returns for the item (the generated `migrations::fill_…` function takes it)")
        }
        evolve::Job::Remark { entity } => {
            format!("rewrite the entity-type value of every stored `{entity}` (UpdateItem, conditional on the old value)")
        }
        evolve::Job::Purge { entity } => {
            format!("delete every stored `{entity}` as the old design tells them: an entity the design removed, or a regrouped aggregate's old counters (DeleteItem, conditional on the item as read; never an item that is a current entity by its marker and keys)")
        }
        evolve::Job::CopyTable { from } => {
            format!("copy every item of table `{from}` into the new table (PutItem where the key is free)")
        }
        evolve::Job::CopyEntity { entity, from } => {
            format!("copy every stored `{entity}` of table `{from}` into the new table under its new keys (PutItem where the new key is free)")
        }
        evolve::Job::Recount { aggregate, .. } => {
            format!("recount every `{aggregate}` counter from the items it counts, exactly beside live writes (mark each item not yet counted and count it, then set each counter to its recount)")
        }
    }
}

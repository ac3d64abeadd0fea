//! The `singletable` command-line tool.
//!
//! Exit codes: 0 success; 1 the spec has errors (or warnings with
//! `--deny-warnings`); 2 usage or I/O error (an unreadable or over-large
//! input, an output that cannot be written, standard output included).
//! Nothing here panics on a failed write: `println!` would, with status 101.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use singletable::diagnostics::{Code, Report, Severity};
use singletable::emit::iam::{AwsTarget, IamOptions};
use singletable::emit::GeneratedFile;
use singletable::import::workbench::ImportedSpec;
use singletable::Compiler;

/// Writes a line to standard error. A failure there is ignored: there is
/// nowhere left to report it, and the exit status still tells.
macro_rules! tell {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod evolve;

/// Checks Amazon DynamoDB single-table designs and generates code from them.
#[derive(Debug, Parser)]
#[command(name = "singletable", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check specs and report every problem with its location.
    ///
    /// Exit status: 0 when no errors were found, 1 when errors were found (or
    /// warnings, with --deny-warnings), 2 on usage or I/O errors: a spec that
    /// cannot be read or is over 16 MiB, output that cannot be written
    /// (standard output included).
    Check {
        /// Spec files to check.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Output format for diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Treat warnings as errors.
        #[arg(long)]
        deny_warnings: bool,
        /// Print a summary line even when there is nothing to report.
        #[arg(short, long)]
        verbose: bool,
        /// Also print, for each access pattern, the request it compiles to and
        /// its estimated capacity, and how each key placeholder is protected.
        #[arg(long)]
        explain: bool,
    },
    /// Check specs, then write what they generate.
    ///
    /// Each output is written per spec into --out-dir, or printed.
    /// Exit status as for `check`; nothing is written when a spec has errors
    /// or when two outputs would have the same file name.
    Generate {
        /// What to generate.
        #[command(subcommand)]
        output: Output,
    },
    /// Print each access pattern's DynamoDB request and AWS CLI command.
    ///
    /// For each access pattern (or the one named): the exact request
    /// (operation, index, key condition, attribute names and values, with
    /// placeholders such as `<tenant>` where values go), what the repository
    /// does around it, its estimated capacity, and the equivalent
    /// `aws dynamodb` command.
    Explain {
        /// The spec.
        spec: PathBuf,
        /// Only this access pattern.
        pattern: Option<String>,
    },
    /// Turn another tool's model into a starting spec.
    Import {
        /// The format to read.
        #[arg(value_enum)]
        format: ImportFormat,
        /// The model file.
        model: PathBuf,
        /// Directory to write `<table>.yaml` into, one spec per table;
        /// standard output when absent (the model must then have one table,
        /// or name one with --table).
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
        /// Only this table of the model.
        #[arg(long)]
        table: Option<String>,
    },
    /// Print the JSON Schema of the spec format.
    Schema,
    /// Report every change between two versions of a design, classified.
    ///
    /// `diff OLD NEW`, or `diff NEW --against lock` (the design the
    /// `singletable.lock` beside NEW records), `--against git:<rev>:<path>`
    /// or `--against <file>`. Each change is compatible, needs a backfill,
    /// is breaking, or breaks clients only, with the order to deploy it in,
    /// a witness item built under the old design and the plan. Exit status:
    /// 0 when every change is compatible, 1 otherwise, 2 on usage or I/O
    /// errors.
    Diff {
        /// The new spec, or the old and the new.
        #[arg(required = true, num_args = 1..=2)]
        specs: Vec<PathBuf>,
        /// The old version: `lock`, `git:<revision>:<path>` or a file.
        #[arg(long)]
        against: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Record the deployed design in `singletable.lock` beside each spec.
    ///
    /// Without a subcommand: accept the changes since the locked design
    /// (`--accept 'code(subject)'` each, `--accept-all` for every change
    /// that is not breaking; a breaking change is always accepted by name
    /// and bumps the generation), or mark a job verified. `lock init
    /// --baseline` records the design as it is deployed, with no checks.
    Lock {
        /// `init --baseline`.
        #[command(subcommand)]
        init: Option<LockInit>,
        /// Spec files.
        specs: Vec<PathBuf>,
        /// Accept a change, as `code(subject)` (`diff` prints the keys).
        #[arg(long)]
        accept: Vec<String>,
        /// Accept every change that is not breaking.
        #[arg(long)]
        accept_all: bool,
        /// Mark a migration job verified (its `verify` found nothing left):
        /// the access patterns that wait for it open at the next build.
        #[arg(long)]
        verified: Vec<String>,
    },
    /// Migration jobs of the changes the lock accepted.
    Migrate {
        /// What to do.
        #[command(subcommand)]
        action: Migrate,
    },
}

/// `lock init`.
#[derive(Debug, Subcommand)]
enum LockInit {
    /// Record the design of each spec as deployed, with no checks.
    Init {
        /// Required: the specs are what is deployed now.
        #[arg(long, required = true)]
        baseline: bool,
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
    },
}

/// `migrate`'s actions.
#[derive(Debug, Subcommand)]
enum Migrate {
    /// The migration jobs of the lock, pending and verified, what each
    /// costs and how to run them.
    Plan {
        /// The spec.
        spec: PathBuf,
        /// Stored items of each job's entity (for the cost and time estimate).
        #[arg(long)]
        items: Option<u64>,
        /// Items in the whole table, which every job scans (default: `--items`).
        #[arg(long)]
        table_items: Option<u64>,
        /// Workers the jobs run on.
        #[arg(long, default_value_t = 1)]
        workers: u32,
        /// Each worker's write budget, in WCU per second.
        #[arg(long)]
        max_wcu: Option<f64>,
        /// Each worker's read budget, in RCU per second.
        #[arg(long)]
        max_rcu: Option<f64>,
    },
}

/// What `generate` writes.
#[derive(Debug, Subcommand)]
enum Output {
    /// Typed Rust repositories on aws-sdk-dynamodb: one module per spec,
    /// `<file stem>.rs` (what a build script's `compile_to_out_dir` writes).
    Rust {
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Directory to write into (created if missing); standard output when absent.
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
    },
    /// IAM policies: tenant isolation with dynamodb:LeadingKeys, least privilege.
    ///
    /// Per spec: `<stem>.iam.json`, what the generated repository does, for a
    /// role whose principal carries the tenant in a principal tag (ABAC);
    /// `<stem>.role.<role>.iam.json` for each role the spec declares; and with
    /// --tenant, the compact session policies `<stem>[.role.<role>].session.iam.json`
    /// with that tenant id, for STS AssumeRole. Without --out-dir, prints a JSON
    /// object of file name to policy.
    Iam {
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Directory to write into (created if missing); standard output when absent.
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
        /// Also write session policies for this tenant id.
        #[arg(long)]
        tenant: Option<String>,
        /// The table's region in ARNs (`*` for any); `REGION` when absent.
        #[arg(long)]
        region: Option<String>,
        /// The table's 12-digit account id in ARNs; `ACCOUNT_ID` when absent.
        #[arg(long)]
        account: Option<String>,
        /// The AWS partition in ARNs.
        #[arg(long, default_value = "aws")]
        partition: String,
    },
    /// A NoSQL Workbench model with sample items: `<stem>.workbench.json`.
    Workbench {
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Directory to write into (created if missing); standard output when absent.
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
        /// The model's date, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM` (UTC);
        /// defaults to $SOURCE_DATE_EPOCH, else now.
        #[arg(long)]
        date: Option<String>,
        /// The model's author.
        #[arg(long, default_value = "")]
        author: String,
    },
    /// CreateTable and UpdateTimeToLive JSON, and a CloudFormation template:
    /// `<stem>.create-table.json`, `<stem>.update-time-to-live.json` (with a
    /// TTL) and `<stem>.cloudformation.json`.
    Table {
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Directory to write into (created if missing); standard output when absent.
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
    },
    /// A Terraform configuration: `<stem>.tf`, the `aws_dynamodb_table`
    /// (AWS provider >= 6.29), the IAM policies as `aws_iam_policy` and
    /// the table's outputs.
    Terraform {
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Directory to write into (created if missing); standard output when absent.
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
    },
    /// A markdown design document: `<stem>.md`.
    Docs {
        /// Spec files.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Directory to write into (created if missing); standard output when absent.
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
    },
}

/// What `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ImportFormat {
    /// A NoSQL Workbench model (any version).
    Workbench,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Human-readable, with source snippets.
    Text,
    /// A JSON array of diagnostics.
    Json,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    match cli.command {
        Command::Check {
            specs,
            format,
            deny_warnings,
            verbose,
            explain,
        } => check(&specs, format, deny_warnings, verbose, explain),
        Command::Generate {
            output: Output::Rust { specs, out_dir },
        } => generate(&specs, out_dir.as_deref(), |c| c.generate_rust()),
        Command::Generate {
            output:
                Output::Iam {
                    specs,
                    out_dir,
                    tenant,
                    region,
                    account,
                    partition,
                },
        } => {
            let target = match (region, account) {
                (None, None) if partition == "aws" => Ok(AwsTarget::default()),
                (region, account) => AwsTarget::new(
                    &partition,
                    region.as_deref().unwrap_or("REGION"),
                    account.as_deref().unwrap_or("ACCOUNT_ID"),
                ),
            };
            let target = match target {
                Ok(target) => target,
                Err(message) => {
                    tell!("error: {message}");
                    return ExitCode::from(2);
                }
            };
            let options = IamOptions { target, tenant };
            let out_dir = out_dir.as_deref();
            if out_dir.is_none() {
                return print_iam(&specs, &options);
            }
            generate(&specs, out_dir, |c| c.generate_iam(&options))
        }
        Command::Generate {
            output:
                Output::Workbench {
                    specs,
                    out_dir,
                    date,
                    author,
                },
        } => {
            let date = match workbench_date(date.as_deref()) {
                Ok(date) => date,
                Err(e) => {
                    tell!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let options = singletable::emit::workbench::Options { date, author };
            generate(&specs, out_dir.as_deref(), |c| {
                c.generate_workbench(&options)
            })
        }
        Command::Generate {
            output: Output::Table { specs, out_dir },
        } => generate(&specs, out_dir.as_deref(), |c| c.generate_table()),
        Command::Generate {
            output: Output::Terraform { specs, out_dir },
        } => generate(&specs, out_dir.as_deref(), |c| c.generate_terraform()),
        Command::Generate {
            output: Output::Docs { specs, out_dir },
        } => generate(&specs, out_dir.as_deref(), |c| c.generate_docs()),
        Command::Explain { spec, pattern } => explain(&spec, pattern.as_deref()),
        Command::Diff {
            specs,
            against,
            format,
        } => evolve::diff(&specs, against.as_deref(), format),
        Command::Lock {
            init: Some(LockInit::Init { specs, .. }),
            ..
        } => evolve::lock(
            &specs,
            &evolve::LockRequest {
                baseline: true,
                accept: &[],
                accept_all: false,
                verified: &[],
            },
        ),
        Command::Lock {
            init: None,
            specs,
            accept,
            accept_all,
            verified,
        } => {
            if specs.is_empty() {
                tell!("error: name the spec files to lock");
                return ExitCode::from(2);
            }
            evolve::lock(
                &specs,
                &evolve::LockRequest {
                    baseline: false,
                    accept: &accept,
                    accept_all,
                    verified: &verified,
                },
            )
        }
        Command::Migrate {
            action:
                Migrate::Plan {
                    spec,
                    items,
                    table_items,
                    workers,
                    max_wcu,
                    max_rcu,
                },
        } => evolve::migrate_plan(
            &spec,
            items.map(|items| singletable::evolve::estimate::Volume {
                table_items: table_items.unwrap_or(items).max(items),
                entity_items: items,
                workers,
                max_wcu,
                max_rcu,
            }),
        ),
        Command::Import {
            format: ImportFormat::Workbench,
            model,
            out_dir,
            table,
        } => import(&model, out_dir.as_deref(), table.as_deref()),
        Command::Schema => {
            let schema = singletable::json_schema();
            let text = serde_json::to_string_pretty(&schema).expect("schema serializes");
            print_and_exit(&format!("{text}\n"))
        }
    }
}

/// Prints clap's help, version or usage error. Help and version go to
/// standard output, so a failure to write them is an I/O error.
fn clap_exit(error: &clap::Error) -> ExitCode {
    if let Err(e) = error.print() {
        if !error.use_stderr() {
            tell!("error: cannot write to standard output: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

/// Prints the command's output: exit status 0, or 2 if it cannot be written.
fn print_and_exit(text: &str) -> ExitCode {
    match print_out(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(status) => status,
    }
}

/// Writes `text` to standard output and flushes it. A failure (a full
/// disk, a closed pipe) is reported on standard error as exit status 2.
fn print_out(text: &str) -> Result<(), ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            tell!("error: cannot write to standard output: {e}");
            ExitCode::from(2)
        })
}

fn check(
    specs: &[PathBuf],
    format: Format,
    deny_warnings: bool,
    verbose: bool,
    explain: bool,
) -> ExitCode {
    let mut compiler = Compiler::new();
    for spec in specs {
        compiler.file(spec);
    }
    let compilation = compiler.compile();
    match format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&compilation.report().to_json())
                .expect("diagnostics serialize");
            if let Err(status) = print_out(&format!("{json}\n")) {
                return status;
            }
        }
        Format::Text => print_text_report(&compilation, specs.len(), verbose),
    }
    if explain && format == Format::Text {
        for compiled in &compilation.specs {
            let text = singletable::explain::render_explain(&compiled.spec);
            if let Err(status) = print_out(&text) {
                return status;
            }
        }
    }
    let io_failure = compilation.diagnostics.iter().any(|d| d.code == Code::Io);
    let status = if io_failure {
        ExitCode::from(2)
    } else if compilation.has_errors()
        || (deny_warnings && compilation.diagnostics.count(Severity::Warning) > 0)
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    // The process ends soon after: freeing every node of a large spec one
    // by one would only delay the exit.
    std::mem::forget(compilation);
    status
}

/// Renders the diagnostics, and a summary line, on standard error.
fn print_text_report(compilation: &singletable::Compilation, files: usize, verbose: bool) {
    let handler = miette::GraphicalReportHandler::new();
    let mut stderr = std::io::stderr().lock();
    for diagnostic in compilation.report().miette_diagnostics() {
        let mut out = String::new();
        if handler.render_report(&mut out, &diagnostic).is_ok() {
            let _ = writeln!(stderr, "{out}");
        }
    }
    let errors = compilation.diagnostics.count(Severity::Error);
    let warnings = compilation.diagnostics.count(Severity::Warning);
    if errors + warnings > 0 || verbose {
        let _ = writeln!(
            stderr,
            "{files} file(s) checked: {errors} error(s), {warnings} warning(s)"
        );
    }
}

fn generate(
    specs: &[PathBuf],
    out_dir: Option<&Path>,
    render: impl FnOnce(&Compiler) -> Result<Vec<GeneratedFile>, Report>,
) -> ExitCode {
    match checked_files(specs, render) {
        Ok(files) => write_files(files, out_dir),
        Err(status) => status,
    }
}

/// Writes the files into `out_dir` (each atomically, only when changed), or
/// prints them one after another.
fn write_files(files: Vec<GeneratedFile>, out_dir: Option<&Path>) -> ExitCode {
    let Some(dir) = out_dir else {
        for file in &files {
            if let Err(status) = print_out(&file.contents) {
                return status;
            }
        }
        return ExitCode::SUCCESS;
    };
    if let Some(problem) = singletable::output::not_a_directory(dir) {
        tell!("error: `-o` must be a directory: {problem}");
        return ExitCode::from(2);
    }
    for file in files {
        let path = dir.join(&file.name);
        match singletable::write_if_changed(&path, &file.contents) {
            Ok(true) => tell!("wrote {}", path.display()),
            Ok(false) => tell!("unchanged {}", path.display()),
            Err(e) => {
                tell!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

/// Checks the specs (printing diagnostics), then renders their files.
fn checked_files(
    specs: &[PathBuf],
    render: impl FnOnce(&Compiler) -> Result<Vec<GeneratedFile>, Report>,
) -> Result<Vec<GeneratedFile>, ExitCode> {
    let status = check(specs, Format::Text, false, false, false);
    if status != ExitCode::SUCCESS {
        return Err(status);
    }
    let mut compiler = Compiler::new();
    for spec in specs {
        compiler.file(spec);
    }
    render(&compiler).map_err(|report| {
        let _ = write!(std::io::stderr(), "{report:?}");
        // Two specs whose outputs clash, like an unreadable spec, are a
        // problem of the invocation, not of a design.
        let io = report.diagnostics.iter().any(|d| d.code == Code::Io);
        ExitCode::from(if io { 2 } else { 1 })
    })
}

/// Prints the policies as one JSON object: file name to policy.
fn print_iam(specs: &[PathBuf], options: &IamOptions) -> ExitCode {
    let files = match checked_files(specs, |c| c.generate_iam(options)) {
        Ok(files) => files,
        Err(status) => return status,
    };
    let mut all = serde_json::Map::new();
    for file in files {
        let policy: serde_json::Value =
            serde_json::from_str(&file.contents).expect("generated policies are JSON");
        all.insert(file.name, policy);
    }
    let text = serde_json::to_string_pretty(&all).expect("policies serialize");
    print_and_exit(&format!("{text}\n"))
}

/// The Workbench model date: `--date`, else `$SOURCE_DATE_EPOCH`, else now.
fn workbench_date(date: Option<&str>) -> Result<i64, String> {
    if let Some(date) = date {
        return parse_date(date)
            .ok_or_else(|| format!("--date {date:?}: write YYYY-MM-DD or YYYY-MM-DDTHH:MM"));
    }
    if let Ok(epoch) = std::env::var("SOURCE_DATE_EPOCH") {
        return epoch
            .trim()
            .parse()
            .map_err(|_| format!("SOURCE_DATE_EPOCH={epoch:?} is not a number of seconds"));
    }
    Ok(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64))
}

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM` (UTC) as seconds since the epoch.
fn parse_date(text: &str) -> Option<i64> {
    let (day, time) = text.split_once('T').unwrap_or((text, "00:00"));
    let mut parts = day.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    let (h, min) = time.split_once(':')?;
    let (h, min) = (h.parse::<i64>().ok()?, min.parse::<i64>().ok()?);
    if !(1..=12).contains(&m)
        || !(1..=31).contains(&d)
        || !(0..24).contains(&h)
        || !(0..60).contains(&min)
        || !(0..=9999).contains(&y)
    {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3_600 + min * 60)
}

fn explain(spec: &Path, pattern: Option<&str>) -> ExitCode {
    let status = check(&[spec.to_owned()], Format::Text, false, false, false);
    if status != ExitCode::SUCCESS {
        return status;
    }
    let compilation = Compiler::new().file(spec).compile();
    let Some(compiled) = compilation.specs.first() else {
        return ExitCode::from(1);
    };
    if let Some(name) = pattern {
        if !compiled.spec.access_patterns.contains_key(name) {
            let known: Vec<&str> = compiled
                .spec
                .access_patterns
                .keys()
                .map(String::as_str)
                .collect();
            tell!(
                "error: no access pattern `{name}` (the spec has: {})",
                known.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    let text = singletable::explain::render_requests(&compiled.spec, pattern);
    print_and_exit(&text)
}

fn import(model: &Path, out_dir: Option<&Path>, table: Option<&str>) -> ExitCode {
    let text = match singletable::source::read_input(model) {
        Ok(text) => text,
        Err(e) => {
            tell!("error: cannot read {}: {e}", model.display());
            return ExitCode::from(2);
        }
    };
    let imported = match singletable::import::workbench::import_workbench(&text) {
        Ok(imported) => imported,
        Err(e) => {
            tell!("error: {}: {e}", model.display());
            return ExitCode::from(1);
        }
    };
    let mut specs: Vec<_> = imported
        .specs
        .into_iter()
        .filter(|s| table.is_none_or(|t| s.table == t))
        .collect();
    for note in &imported.notes {
        tell!("{}: {note}", model.display());
    }
    if specs.is_empty() {
        tell!(
            "error: {}: no table{}",
            model.display(),
            table.map_or_else(String::new, |t| format!(" named `{t}`"))
        );
        return ExitCode::from(1);
    }
    for s in &specs {
        for note in &s.notes {
            tell!("{}: table `{}`: {note}", model.display(), s.table);
        }
    }
    match out_dir {
        None if specs.len() > 1 => {
            let names: Vec<&str> = specs.iter().map(|s| s.table.as_str()).collect();
            tell!("error: the model has {} tables ({}): choose one with --table, or write them all with -o DIR", specs.len(), names.join(", "));
            ExitCode::from(2)
        }
        None => print_and_exit(&specs.remove(0).yaml),
        Some(dir) => write_imported(model, specs, dir),
    }
}

/// Writes one spec per table into `dir`, unless two tables would be
/// written to the same file.
fn write_imported(model: &Path, specs: Vec<ImportedSpec>, dir: &Path) -> ExitCode {
    let tables: Vec<String> = specs
        .iter()
        .map(|s| format!("table `{}`", s.table))
        .collect();
    let names = specs.iter().map(|s| s.file_name.as_str());
    if let Some(clash) =
        singletable::output::find_clash(names.zip(tables.iter().map(String::as_str)))
    {
        tell!("error: {}: {clash}: rename one of the tables in the model, or import them one at a time with --table", model.display());
        return ExitCode::from(2);
    }
    let files = specs
        .into_iter()
        .map(|s| GeneratedFile {
            name: s.file_name,
            contents: s.yaml,
        })
        .collect();
    write_files(files, Some(dir))
}

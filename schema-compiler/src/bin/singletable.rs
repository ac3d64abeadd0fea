//! The `singletable` command-line tool.
//!
//! Exit codes: 0 success; 1 the spec has errors (or warnings with
//! `--deny-warnings`); 2 usage or I/O error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use schema_compiler::diagnostics::{Code, Report, Severity};
use schema_compiler::emit::iam::{AwsTarget, IamOptions};
use schema_compiler::emit::GeneratedFile;
use schema_compiler::Compiler;

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
    /// warnings, with --deny-warnings), 2 on usage or I/O errors.
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
    /// Exit status as for `check`; nothing is written when a spec has errors.
    Generate {
        /// What to generate.
        #[command(subcommand)]
        output: Output,
    },
    /// Print the JSON Schema of the spec format.
    Schema,
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Human-readable, with source snippets.
    Text,
    /// A JSON array of diagnostics.
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
                    eprintln!("error: {message}");
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
        Command::Schema => {
            let schema = schema_compiler::json_schema();
            let text = serde_json::to_string_pretty(&schema).expect("schema serializes");
            println!("{text}");
            ExitCode::SUCCESS
        }
    }
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
    let report = compilation.report();
    match format {
        Format::Json => {
            let json =
                serde_json::to_string_pretty(&report.to_json()).expect("diagnostics serialize");
            println!("{json}");
        }
        Format::Text => {
            let handler = miette::GraphicalReportHandler::new();
            let mut stderr = std::io::stderr().lock();
            for diagnostic in report.miette_diagnostics() {
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
                    "{} file(s) checked: {errors} error(s), {warnings} warning(s)",
                    specs.len()
                );
            }
        }
    }
    if explain && format == Format::Text {
        for compiled in &compilation.specs {
            print!(
                "{}",
                schema_compiler::explain::render_explain(&compiled.spec)
            );
        }
    }
    let io_failure = compilation.diagnostics.iter().any(|d| d.code == Code::Io);
    if io_failure {
        ExitCode::from(2)
    } else if compilation.has_errors()
        || (deny_warnings && compilation.diagnostics.count(Severity::Warning) > 0)
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn generate(
    specs: &[PathBuf],
    out_dir: Option<&std::path::Path>,
    render: impl FnOnce(&Compiler) -> Result<Vec<GeneratedFile>, Report>,
) -> ExitCode {
    let files = match checked_files(specs, render) {
        Ok(files) => files,
        Err(status) => return status,
    };
    for file in files {
        match out_dir {
            Some(dir) => {
                let path = dir.join(&file.name);
                match schema_compiler::write_if_changed(&path, &file.contents) {
                    Ok(_) => eprintln!("wrote {}", path.display()),
                    Err(e) => {
                        eprintln!("error: cannot write {}: {e}", path.display());
                        return ExitCode::from(2);
                    }
                }
            }
            None => print!("{}", file.contents),
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
        eprint!("{report:?}");
        ExitCode::from(1)
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
    println!("{text}");
    ExitCode::SUCCESS
}

//! # singletable's compiler
//!
//! A schema compiler for Amazon DynamoDB single-table designs. A team writes
//! its table once as a YAML access-pattern spec — entities, key templates
//! such as `TENANT#<tenant>|TICKET#<id>`, indexes, access patterns — and this
//! crate reads it, resolves it into a typed model and reports every problem
//! with the exact line and column, a stable code and a fix.
//!
//! ```
//! use singletable::Compiler;
//!
//! let spec = r#"
//! version: 1
//! table: { name: SupportTicket, partition_key: pk, sort_key: sk }
//! tenant: { placeholder: tenant, id_pattern: "^[A-Za-z0-9_]{1,64}$", principal_tag: TenantId }
//! entities:
//!   Ticket:
//!     attributes:
//!       id: { type: string, pattern: "^[A-Za-z0-9_-]{1,36}$" }
//!       title: string
//!     key: { pk: "TENANT#<tenant>|TICKET#<id>", sk: "SUMMARY" }
//! access_patterns:
//!   ticket_summary:
//!     query: { pk: "TENANT#<tenant>|TICKET#<id>", sk: SUMMARY }
//! "#;
//! let compilation = Compiler::new().source("support.yaml", spec).compile();
//! assert!(!compilation.has_errors(), "{:?}", compilation.report());
//! let ticket = &compilation.specs[0].spec.entities["Ticket"];
//! assert_eq!(ticket.primary_key.pk.literal_prefix(), "TENANT#");
//! ```
//!
//! A mistake is reported with its position; the report's `Display` is one
//! `path:line:col: severity[code]: message` line per problem:
//!
//! ```
//! # use singletable::Compiler;
//! let spec = "version: 1\ntable: { name: T1x, partition_key: pk }\ntenant: {}\nentities:\n  A:\n    attributes: { id: string }\n    key: { pk: \"T#<tenent>|<id>\" }\n";
//! let report = Compiler::new().source("s.yaml", spec).compile().report();
//! assert_eq!(
//!     report.to_string(),
//!     "s.yaml:7:19: error[singletable::unknown_placeholder]: unknown placeholder `<tenent>`\n"
//! );
//! ```
//!
//! Its `Debug`, which a build script returning `Result<(), Report>` prints,
//! renders each problem whole, as `Report::to_text` does: the source line, a
//! caret under the placeholder and the fix:
//!
//! ```text
//! s.yaml:7:19: error[singletable::unknown_placeholder]: unknown placeholder `<tenent>`
//!   |
//! 7 |     key: { pk: "T#<tenent>|<id>" }
//!   |                   ^^^^^^^^ not an attribute of this entity
//!   = help: did you mean `tenant`?
//! ```
//!
//! The pipeline is `source` → `syntax` → `resolve` → [`ir`] → `check`
//! (see `docs/architecture.md`); the spec
//! format is documented in `docs/spec.md` and every diagnostic code in
//! `docs/diagnostics.md`.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod alphabet;
mod check;
pub mod diagnostics;
pub mod emit;
mod encoding;
pub mod evolve;
pub mod explain;
pub mod import;
pub mod ir;
mod lang;
#[doc(hidden)]
pub mod macro_support;
mod names;
mod naming;
pub mod output;
mod plan;
mod policy;
mod resolve;
pub mod source;
mod syntax;
mod template;

use std::path::{Path, PathBuf};

pub use diagnostics::Report;
use diagnostics::{Code, Diagnostic, Diagnostics};
pub use output::write_if_changed;
use source::{FileId, SourceMap};

/// Parses and resolves one spec without running the checks, for tests that
/// need a design `check` rejects (negative controls of the oracles): the
/// spec, or the parse and resolution errors. Not an API.
#[doc(hidden)]
pub fn resolve_unchecked(name: &str, text: String) -> Result<ir::Spec, Diagnostics> {
    let mut sources = SourceMap::new();
    let file = sources.add(name, text);
    let mut diags = Diagnostics::new();
    let Some(decl) = syntax::parse_spec(&sources, file, &mut diags) else {
        return Err(diags);
    };
    let spec = resolve::resolve_spec(&decl, &sources, &mut diags);
    if diags.has_errors() {
        Err(diags)
    } else {
        Ok(spec)
    }
}

/// Reads specs and resolves them. The one entry point for build scripts,
/// the CLI and the derive macros.
#[derive(Debug, Clone, Default)]
pub struct Compiler {
    inputs: Vec<Input>,
    out_dir: Option<PathBuf>,
    iam: Option<emit::iam::IamOptions>,
    rust: emit::rust::RustOptions,
    /// Whether a spec file is compared with the `singletable.lock` beside it.
    ignore_lock: bool,
    /// Locked mode: a compatible change the lock does not record is an error.
    locked: Option<bool>,
}

#[derive(Debug, Clone)]
enum Input {
    File(PathBuf),
    Text { name: String, text: String },
}

/// The result of [`Compiler::compile`]: every spec that resolved, and every
/// diagnostic (errors, warnings and notes) of every file.
#[derive(Debug, Clone)]
pub struct Compilation {
    /// The files read.
    pub sources: SourceMap,
    /// Specs that resolved without errors, in input order.
    pub specs: Vec<CompiledSpec>,
    /// Everything found.
    pub diagnostics: Diagnostics,
}

/// One resolved spec.
#[derive(Debug, Clone)]
pub struct CompiledSpec {
    /// The file it came from.
    pub file: FileId,
    /// The resolved model.
    pub spec: ir::Spec,
    /// Its entry in the `singletable.lock` beside it, when it has one and
    /// the spec builds on it: the migration jobs still pending.
    pub lock: Option<evolve::lock::LockedSpec>,
}

impl Compilation {
    /// Whether any error was found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.has_errors()
    }

    /// The diagnostics with their sources, for rendering.
    pub fn report(&self) -> Report {
        Report {
            sources: self.sources.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }

    /// The specs, or the report if anything failed.
    pub fn into_result(self) -> Result<Vec<CompiledSpec>, Report> {
        if self.has_errors() {
            Err(self.report())
        } else {
            Ok(self.specs)
        }
    }
}

impl Compiler {
    /// A compiler with no inputs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a spec file to read.
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.inputs.push(Input::File(path.as_ref().to_owned()));
        self
    }

    /// Adds a spec held in memory; `name` is shown in diagnostics.
    pub fn source(&mut self, name: impl Into<String>, text: impl Into<String>) -> &mut Self {
        self.inputs.push(Input::Text {
            name: name.into(),
            text: text.into(),
        });
        self
    }

    /// Reads, parses and resolves every input. Never panics on any input:
    /// every problem is a diagnostic.
    pub fn compile(&self) -> Compilation {
        let mut sources = SourceMap::new();
        let mut diagnostics = Diagnostics::new();
        let mut specs = Vec::new();
        for input in &self.inputs {
            let file = match input {
                Input::Text { name, text } => sources.add(name.clone(), text.clone()),
                Input::File(path) => match sources.load(path) {
                    Ok(file) => file,
                    Err(e) => {
                        diagnostics.push(read_error(path, &e));
                        continue;
                    }
                },
            };
            let mut diags = Diagnostics::new();
            if let Some(spec) = compile_file(&sources, file, &mut diags) {
                let lock = match input {
                    Input::File(path) if !self.ignore_lock && !diags.has_errors() => {
                        evolve::check::check_against_lock(
                            &mut sources,
                            path,
                            &spec,
                            self.is_locked(),
                            &mut diags,
                        )
                    }
                    Input::File(_) | Input::Text { .. } => None,
                };
                if !diags.has_errors() {
                    specs.push(CompiledSpec { file, spec, lock });
                }
            }
            diagnostics.extend(diags);
        }
        check::spec_set::one_spec_per_table(&sources, &specs, &mut diagnostics);
        Compilation {
            sources,
            specs,
            diagnostics,
        }
    }
}

impl Compiler {
    /// Locked mode, as `cargo --locked`: a spec whose design differs from
    /// its `singletable.lock` by a change the lock does not record fails
    /// to compile even when the change is compatible (by default only
    /// changes that need a backfill, break stored items or break clients
    /// do, compatible ones are warnings). Defaults to the environment
    /// variable `SINGLETABLE_LOCKED=1`, which CI sets.
    pub fn locked(&mut self, locked: bool) -> &mut Self {
        self.locked = Some(locked);
        self
    }

    /// Compiles without comparing spec files with their `singletable.lock`
    /// (what `singletable diff` and `singletable lock` do, to look at the
    /// change).
    pub fn ignore_lock(&mut self) -> &mut Self {
        self.ignore_lock = true;
        self
    }

    fn is_locked(&self) -> bool {
        self.locked
            .unwrap_or_else(|| std::env::var_os("SINGLETABLE_LOCKED").is_some_and(|v| v == "1"))
    }

    /// Where [`Compiler::compile_to_out_dir`] writes; `$OUT_DIR` by default.
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// The build-script entry point: compiles `files` (and any input added
    /// before) and writes one Rust module per spec, `<file stem>.rs`, into
    /// the output directory — only when its content changed, so an
    /// unchanged spec does not rebuild the crate, and atomically (see
    /// [`write_if_changed`]). Specs are read up to
    /// [`source::MAX_INPUT_BYTES`] (16 MiB); two specs whose modules would
    /// have the same file name are an error, and nothing is written. Prints
    /// `cargo:rerun-if-changed` for every file read (a failing spec too, so
    /// fixing it reruns the build) and each warning as `cargo:warning`.
    ///
    /// The error's `Debug` prints each diagnostic whole (its
    /// `path:line:col: severity[code]: message` line, the spec's lines with
    /// its labels, its help), so a build script that returns it shows what
    /// `singletable check` shows:
    ///
    /// ```no_run
    /// // build.rs
    /// fn main() -> Result<(), singletable::Report> {
    ///     singletable::Compiler::new().compile_to_out_dir(["schemas/support_ticket.yaml"])?;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// and in the crate, `singletable_runtime::include_generated!(pub support_ticket);`.
    pub fn compile_to_out_dir<I, P>(&mut self, files: I) -> Result<Vec<PathBuf>, Report>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        for file in files {
            self.file(file);
        }
        for input in &self.inputs {
            if let Input::File(path) = input {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        let compilation = self.compile();
        if !compilation.has_errors() {
            for line in compilation.report().to_string().lines() {
                println!("cargo:warning={line}");
            }
        }
        let mut files = match &self.iam {
            Some(options) => generate_iam(compilation.clone(), options)?,
            None => Vec::new(),
        };
        files.extend(generate_rust(compilation, &self.rust)?);
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
            .ok_or_else(|| {
                io_error("OUT_DIR is not set: call out_dir() outside build scripts".into())
            })?;
        if let Some(problem) = output::not_a_directory(&out_dir) {
            return Err(io_error(format!("the output directory {problem}")));
        }
        let mut written = Vec::new();
        for file in files {
            let path = out_dir.join(&file.name);
            write_if_changed(&path, &file.contents)
                .map_err(|e| io_error(format!("cannot write {}: {e}", path.display())))?;
            written.push(path);
        }
        Ok(written)
    }

    /// Compiles every input and renders one Rust module per spec,
    /// `<file stem>.rs`, in memory (what [`Compiler::compile_to_out_dir`] writes).
    pub fn generate_rust(&self) -> Result<Vec<emit::GeneratedFile>, Report> {
        generate_rust(self.compile(), &self.rust)
    }

    /// Derive serde's `Serialize` and `Deserialize` on the generated data
    /// types (entities, keys, partial entities, typed maps, collections,
    /// enums), with fields and enum values named as stored. The crate needs
    /// `singletable-runtime`'s `serde` feature (and no serde dependency of
    /// its own).
    ///
    /// ```
    /// # let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/support_ticket.yaml");
    /// let files = singletable::Compiler::new()
    ///     .file(spec)
    ///     .serde(true)
    ///     .type_attribute("TicketKey", "#[derive(Eq, Hash)]")
    ///     .field_attribute("Ticket.title", "#[doc(alias = \"subject\")]")
    ///     .generate_rust()
    ///     .unwrap();
    /// assert!(files[0].contents.contains("#[derive(Eq, Hash)]\npub struct TicketKey"));
    ///
    /// let refused = singletable::Compiler::new()
    ///     .file(spec)
    ///     .type_attribute(".", "derive(Hash)") // not `#[...]`
    ///     .generate_rust();
    /// assert!(refused.is_err());
    /// ```
    pub fn serde(&mut self, derive: bool) -> &mut Self {
        self.rust.serde = derive;
        self
    }

    /// With [`serde`](Self::serde): serde's `rename_all` rule for the
    /// fields of the generated structs (`camelCase`, `snake_case`, …)
    /// instead of the names as stored. Enum values stay as stored.
    pub fn serde_rename_all(&mut self, rule: impl Into<String>) -> &mut Self {
        self.rust.serde_rename_all = Some(rule.into());
        self
    }

    /// Adds `attribute` (such as `#[derive(Hash)]`, or several) to the
    /// generated data types named `path` — an entity (`Ticket`), its key
    /// (`TicketKey`), a partial entity, a typed map, a collection or an
    /// enum (`Status`) — or to all of them for `"."`. An attribute that is
    /// not `#[…]` fails generation with its text.
    pub fn type_attribute(
        &mut self,
        path: impl Into<String>,
        attribute: impl Into<String>,
    ) -> &mut Self {
        self.rust
            .type_attributes
            .push((path.into(), attribute.into()));
        self
    }

    /// Uses the crate's own struct `path` (`crate::model::Ticket`) for
    /// entity `entity` instead of generating one, as prost-build's
    /// `extern_path` does: the repository and every access-pattern method
    /// take and return it. The struct derives `Entity` bound to the same
    /// entity of the same spec, with the generated module's tenancy:
    ///
    /// ```ignore
    /// #[derive(Debug, Clone, PartialEq, singletable_runtime::Entity)]
    /// #[singletable(spec = "schema/support_ticket.yaml", entity = "Ticket",
    ///               tenancy = "crate::support_ticket::Tenancy")]
    /// pub struct Ticket { /* fields may be renamed or skipped */ }
    /// ```
    ///
    /// The generated code reads its fields through accessors the derive
    /// adds, so renamed fields work; it checks at compile time that the
    /// struct derives this entity with the spec's scope. With
    /// [`serde`](Self::serde), the struct implements serde itself.
    ///
    /// An entity no spec declares, or a type of another crate, fails
    /// generation:
    ///
    /// ```
    /// # let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/support_ticket.yaml");
    /// let refused = |entity: &str, path: &str| {
    ///     let report = singletable::Compiler::new()
    ///         .file(spec)
    ///         .extern_entity(entity, path)
    ///         .generate_rust()
    ///         .unwrap_err();
    ///     format!("{report:?}")
    /// };
    /// assert!(refused("Tickt", "crate::model::Ticket").contains("not an entity of any spec"));
    /// assert!(refused("Ticket", "model_crate::Ticket").contains("must be a type of the crate"));
    /// assert!(refused("Ticket", "crate::model::").contains("is not a path"));
    /// ```
    pub fn extern_entity(
        &mut self,
        entity: impl Into<String>,
        path: impl Into<String>,
    ) -> &mut Self {
        self.rust.extern_entities.push((entity.into(), path.into()));
        self
    }

    /// Adds `attribute` to the fields `path` names: `Type.field` (the
    /// field's name in the spec or in Rust), or every field of every data
    /// type for `"."`.
    pub fn field_attribute(
        &mut self,
        path: impl Into<String>,
        attribute: impl Into<String>,
    ) -> &mut Self {
        self.rust
            .field_attributes
            .push((path.into(), attribute.into()));
        self
    }

    /// Also write each spec's IAM policies (see [`Compiler::generate_iam`])
    /// from [`Compiler::compile_to_out_dir`].
    pub fn iam(&mut self, options: emit::iam::IamOptions) -> &mut Self {
        self.iam = Some(options);
        self
    }

    /// Compiles every input and renders its IAM policies in memory:
    /// `<stem>.iam.json` (what the generated repository does, tenant-isolated
    /// with `dynamodb:LeadingKeys` on the spec's principal tag),
    /// `<stem>.role.<role>.iam.json` per role, and with
    /// [`emit::iam::IamOptions::tenant`], the session policies
    /// `<stem>[.role.<role>].session.iam.json` for that tenant.
    ///
    /// ```
    /// # use singletable::{Compiler, emit::iam::{AwsTarget, IamOptions}};
    /// let options = IamOptions {
    ///     target: AwsTarget::new("aws", "eu-west-1", "123456789012").unwrap(),
    ///     tenant: None,
    /// };
    /// let files = Compiler::new()
    ///     .file(concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/support_ticket.yaml"))
    ///     .generate_iam(&options)
    ///     .unwrap();
    /// assert!(files[0].contents.contains(r#""TENANT#${aws:PrincipalTag/TenantId}|*""#));
    /// ```
    pub fn generate_iam(
        &self,
        options: &emit::iam::IamOptions,
    ) -> Result<Vec<emit::GeneratedFile>, Report> {
        generate_iam(self.compile(), options)
    }

    /// Compiles every input and renders each spec's table definition:
    /// `<stem>.create-table.json`, `<stem>.update-time-to-live.json` (with a
    /// TTL) and `<stem>.cloudformation.json`.
    pub fn generate_table(&self) -> Result<Vec<emit::GeneratedFile>, Report> {
        generate_each(self.compile(), |spec, file| {
            Ok(emit::table::render_table(spec, file.stem))
        })
    }

    /// Compiles every input and renders each spec's Terraform
    /// configuration, `<stem>.tf`: the `aws_dynamodb_table` rendered from
    /// the same table definition as [`generate_table`](Self::generate_table),
    /// the IAM policies of [`generate_iam`](Self::generate_iam) as
    /// `aws_iam_policy` resources naming the table resource's ARN, and the
    /// table's outputs.
    pub fn generate_terraform(&self) -> Result<Vec<emit::GeneratedFile>, Report> {
        generate_each(self.compile(), |spec, file| {
            Ok(vec![emit::terraform::render_terraform(spec, file.stem)])
        })
    }

    /// Compiles every input and renders each spec's NoSQL Workbench model,
    /// `<stem>.workbench.json`. A spec with a multi-attribute index key is
    /// refused: the model format holds one partition and one sort key
    /// attribute per index.
    pub fn generate_workbench(
        &self,
        options: &emit::workbench::Options,
    ) -> Result<Vec<emit::GeneratedFile>, Report> {
        generate_each(self.compile(), |spec, file| {
            if let Some(refusal) = emit::workbench::refusal(spec) {
                return Err(refusal);
            }
            Ok(vec![emit::workbench::render_workbench(
                spec, file.stem, options,
            )])
        })
    }

    /// Compiles every input and renders each spec's design document,
    /// `<stem>.md`, listing the spec's warnings.
    pub fn generate_docs(&self) -> Result<Vec<emit::GeneratedFile>, Report> {
        generate_each(self.compile(), |spec, file| {
            Ok(vec![emit::docs::render_docs(
                spec,
                file.stem,
                &file.diagnostics,
            )])
        })
    }
}

fn generate_iam(
    compilation: Compilation,
    options: &emit::iam::IamOptions,
) -> Result<Vec<emit::GeneratedFile>, Report> {
    let sources = compilation.sources.clone();
    let mut any_tenant = false;
    let files = generate_each(compilation, |spec, file| {
        any_tenant |= spec.tenant.is_some();
        let jobs: Vec<evolve::Job> = file
            .lock
            .map(|lock| lock.pending().map(|(job, _)| job.job.clone()).collect())
            .unwrap_or_default();
        emit::iam::render_iam_with(spec, &naming::snake(file.stem), options, &jobs)
    })?;
    match &options.tenant {
        Some(id) if !any_tenant => {
            let mut diagnostics = Diagnostics::new();
            diagnostics.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("session policies for tenant `{id}` asked for, but no spec declares a tenant"),
                )
                .help("leave out the tenant id, or add a `tenant` section to the spec"),
            );
            Err(Report {
                sources,
                diagnostics,
            })
        }
        _ => Ok(files),
    }
}

fn generate_rust(
    compilation: Compilation,
    options: &emit::rust::RustOptions,
) -> Result<Vec<emit::GeneratedFile>, Report> {
    // Each extern entity is an entity of exactly one spec compiled: the
    // type gets that spec's field constants and key.
    let misplaced = options.extern_entities.iter().find_map(|(name, _)| {
        let specs = compilation
            .specs
            .iter()
            .filter(|s| s.spec.entities.contains_key(name.as_str()))
            .count();
        match specs {
            1 => None,
            0 => Some(format!(
                "extern entity `{name}` is not an entity of any spec compiled"
            )),
            n => Some(format!(
                "extern entity `{name}` is an entity of {n} of the specs compiled: compile the spec it belongs to on its own"
            )),
        }
    });
    let problem = match misplaced {
        Some(problem) if !compilation.has_errors() => Some(problem),
        _ => options.problem(),
    };
    if let Some(problem) = problem {
        return Err(io_report(
            format!("invalid compiler option: {problem}"),
            "check the build script's `type_attribute`, `field_attribute`, `serde_rename_all` and `extern_entity` calls",
        ));
    }
    generate_each(compilation, |spec, file| {
        let mut options = options.clone();
        options.migrations = file.lock.map(pending_migrations).unwrap_or_default();
        Ok(vec![emit::GeneratedFile {
            name: format!("{}.rs", naming::snake(file.stem)),
            contents: emit::rust::render_rust_with(spec, file.name, &options),
        }])
    })
}

/// The jobs a lock holds pending, each with the spec its change set moved
/// from, resolved (what a re-key reads old keys with).
fn pending_migrations(lock: &evolve::lock::LockedSpec) -> Vec<emit::rust::PendingJob> {
    // The jobs of one change set share its previous spec: compiled once.
    let mut compiled: Vec<(&str, Option<std::sync::Arc<ir::Spec>>)> = Vec::new();
    lock.pending()
        .map(|(job, previous)| {
            let previous = previous.and_then(|text| {
                if let Some((_, spec)) = compiled.iter().find(|(t, _)| *t == text) {
                    return spec.clone();
                }
                let mut sources = SourceMap::new();
                let file = sources.add("previous.yaml", text);
                let mut diags = Diagnostics::new();
                let spec = compile_file(&sources, file, &mut diags)
                    .filter(|_| !diags.has_errors())
                    .map(std::sync::Arc::new);
                compiled.push((text, spec.clone()));
                spec
            });
            emit::rust::PendingJob {
                id: job.id.clone(),
                job: job.job.clone(),
                previous,
            }
        })
        .collect()
}

/// The spec file an output is rendered for.
struct SpecFile<'a> {
    /// The file name (`support_ticket.yaml`).
    name: &'a str,
    /// Its stem (`support_ticket`), which output file names start with.
    stem: &'a str,
    /// The spec's warnings and notes.
    diagnostics: Vec<&'a Diagnostic>,
    /// Its lock entry.
    lock: Option<&'a evolve::lock::LockedSpec>,
}

/// Renders every spec that compiled; the report when anything failed (a
/// spec, a rendering that returns a diagnostic, or two specs whose outputs
/// would be written to the same file).
fn generate_each(
    compilation: Compilation,
    mut render: impl FnMut(&ir::Spec, &SpecFile<'_>) -> Result<Vec<emit::GeneratedFile>, Diagnostic>,
) -> Result<Vec<emit::GeneratedFile>, Report> {
    let report = compilation.report();
    let diagnostics = compilation.diagnostics.clone();
    let specs = compilation.into_result()?;
    let mut files = Vec::new();
    let mut origins = Vec::new();
    for compiled in &specs {
        let path = report
            .sources
            .get(compiled.file)
            .map_or("spec.yaml", |f| f.name.as_str());
        let name = Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(path);
        let stem = Path::new(name)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("spec");
        let diagnostics = diagnostics
            .iter()
            .filter(|d| d.primary_span().is_some_and(|s| s.file == compiled.file))
            .collect();
        let file = SpecFile {
            name,
            stem,
            diagnostics,
            lock: compiled.lock.as_ref(),
        };
        match render(&compiled.spec, &file) {
            Ok(more) => {
                origins.resize(files.len() + more.len(), path);
                files.extend(more);
            }
            Err(diagnostic) => return Err(one_diagnostic(&report, diagnostic)),
        }
    }
    let names = files.iter().map(|f| f.name.as_str());
    match output::find_clash(names.zip(origins)) {
        Some(clash) => Err(one_diagnostic(
            &report,
            Diagnostic::new(Code::Io, clash.to_string())
                .help("rename one of the specs, or generate them in separate runs into different directories"),
        )),
        None => Ok(files),
    }
}

/// A report of one diagnostic about the compilation's files.
fn one_diagnostic(report: &Report, diagnostic: Diagnostic) -> Report {
    let mut diagnostics = Diagnostics::new();
    diagnostics.push(diagnostic);
    Report {
        sources: report.sources.clone(),
        diagnostics,
    }
}

/// The diagnostic for a spec file that could not be read.
fn read_error(path: &Path, error: &std::io::Error) -> Diagnostic {
    let help = match error.kind() {
        std::io::ErrorKind::FileTooLarge => {
            "check that the path names a spec; specs larger than this are not read"
        }
        _ => "check the path and permissions",
    };
    Diagnostic::new(Code::Io, format!("cannot read {}: {error}", path.display())).help(help)
}

/// A report of one output error (no spec file to point into).
fn io_error(message: String) -> Report {
    io_report(message, "check the output directory and its permissions")
}

/// A report of one `singletable::io` problem, which has no position.
fn io_report(message: String, help: &str) -> Report {
    let mut diagnostics = Diagnostics::new();
    diagnostics.push(Diagnostic::new(Code::Io, message).help(help.to_owned()));
    Report {
        sources: SourceMap::new(),
        diagnostics,
    }
}

fn compile_file(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<ir::Spec> {
    let decl = syntax::parse_spec(sources, file, diags)?;
    let spec = resolve::resolve_spec(&decl, sources, diags);
    // After resolution errors, the checks still judge the entities, access
    // patterns and roles the errors do not touch, so that one mistake does
    // not hide the findings about the rest.
    let part = diags
        .has_errors()
        .then(|| resolve::healthy_part(&decl, &spec, diags))
        .flatten();
    // The checks allocate into the memory the syntax tree held.
    drop(decl);
    match part {
        None if !diags.has_errors() => check::check_spec(&spec, diags),
        None => {}
        Some(part) => check::check_part(&part, diags),
    }
    Some(spec)
}

/// The JSON Schema of the spec format (draft-07, which editors' YAML
/// language servers understand). Checked in as `schemas/singletable.schema.json`.
pub fn json_schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<syntax::SpecDecl>();
    serde_json::to_value(schema).expect("a JSON Schema serializes to JSON")
}

//! Compiles every spec in `schemas/` into a repository module, and the
//! soundness harness's generated specs (`soundness/gen.rs`) that `check`
//! accepts into one module each, with a driver per spec.

#[path = "soundness/gen.rs"]
#[allow(dead_code, clippy::all)]
mod gen;
// The generator writes filters with `FilterOp::yaml`; the oracle in the
// test library evaluates them with `FilterOp::holds`.
#[path = "soundness/semantics.rs"]
#[allow(dead_code)]
mod semantics;

use std::fmt::Write as _;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut specs: Vec<_> = std::fs::read_dir(&dir)
        .expect("schemas/ exists in the workspace")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    specs.sort();
    // Fixtures whose classes have focused end-to-end tests, and two whose
    // names are generated code's locals and helpers (they must compile).
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pass");
    specs.extend(
        [
            "range_returns_what_sorts_between.yaml",
            "index_membership_by_attributes.yaml",
            "user_names_like_generated_locals.yaml",
            "private_helpers_cannot_clash.yaml",
            "existing_table_natural_keys.yaml",
            "existing_table_key_shapes.yaml",
            "existing_table_discriminator.yaml",
            "existing_table_binary_keys.yaml",
            "index_key_of_two_attributes.yaml",
            "typed_maps.yaml",
            "declared_bounds.yaml",
            "sequence_numbers.yaml",
            "partial_reads.yaml",
            "filtered_queries.yaml",
            "scans.yaml",
            "attribute_named_like_update_internals.yaml",
            "patterns_named_like_repository_internals.yaml",
            "range_over_decimal_number_key.yaml",
            "global_reads_refuse_forged_items.yaml",
            "global_roles.yaml",
            "names_like_entity_conveniences.yaml",
            "delimiters_that_forge_nothing.yaml",
            "attribute_defaults.yaml",
            "input_types.yaml",
            "read_transactions.yaml",
            "electrodb_task_app.yaml",
            "index_membership_by_flag.yaml",
            "derived_attributes.yaml",
        ]
        .map(|f| fixtures.join(f)),
    );
    // With serde on every data type: the end-to-end tests round-trip the
    // entities of every spec through JSON.
    singletable::Compiler::new()
        .serde(true)
        .compile_to_out_dir(&specs)
        .unwrap();
    // The support-ticket repository again, on the crate's own `Ticket`
    // (src/extern_entities.rs), in a directory of its own.
    let extern_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("extern");
    std::fs::create_dir_all(&extern_dir).unwrap();
    singletable::Compiler::new()
        .extern_entity("Ticket", "crate::extern_entities::model::Ticket")
        .out_dir(&extern_dir)
        .compile_to_out_dir([dir.join("support_ticket.yaml")])
        .unwrap();
    // The two designs of the evolution test, the second beside the lock
    // that accepts it with its jobs pending (`migrations`).
    let evolution = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("evolution");
    println!("cargo:rerun-if-changed={}", evolution.display());
    let evolution_dir =
        std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("evolution");
    std::fs::create_dir_all(&evolution_dir).unwrap();
    singletable::Compiler::new()
        .serde(true)
        .out_dir(&evolution_dir)
        .compile_to_out_dir([evolution.join("v1.yaml"), evolution.join("v2.yaml")])
        .unwrap();
    // The rewrite test's designs: copy, move, fill, re-mark and purge jobs.
    let rewrite = evolution.join("rewrite");
    println!("cargo:rerun-if-changed={}", rewrite.display());
    let rewrite_dir = evolution_dir.join("rewrite");
    std::fs::create_dir_all(&rewrite_dir).unwrap();
    singletable::Compiler::new()
        .out_dir(&rewrite_dir)
        .compile_to_out_dir([rewrite.join("v1.yaml"), rewrite.join("v2.yaml")])
        .unwrap();
    // The derive test's designs: a derived attribute added, a constant changed.
    let derived = evolution.join("derived");
    println!("cargo:rerun-if-changed={}", derived.display());
    let derived_dir = evolution_dir.join("derived");
    std::fs::create_dir_all(&derived_dir).unwrap();
    singletable::Compiler::new()
        .out_dir(&derived_dir)
        .compile_to_out_dir([derived.join("v1.yaml"), derived.join("v2.yaml")])
        .unwrap();
    // The re-keyed copy test's designs: a renamed table with new key attributes.
    let rekeyed = evolution.join("rekeyed");
    println!("cargo:rerun-if-changed={}", rekeyed.display());
    let rekeyed_dir = evolution_dir.join("rekeyed");
    std::fs::create_dir_all(&rekeyed_dir).unwrap();
    singletable::Compiler::new()
        .out_dir(&rekeyed_dir)
        .compile_to_out_dir([rekeyed.join("v1.yaml"), rekeyed.join("v2.yaml")])
        .unwrap();
    // The recount test's designs: aggregates added over stored items.
    let recount = evolution.join("recount");
    println!("cargo:rerun-if-changed={}", recount.display());
    let recount_dir = evolution_dir.join("recount");
    std::fs::create_dir_all(&recount_dir).unwrap();
    singletable::Compiler::new()
        .out_dir(&recount_dir)
        .compile_to_out_dir([recount.join("v1.yaml"), recount.join("v2.yaml")])
        .unwrap();
    // The regroup test's designs: an aggregate counted per other groups.
    let regroup = evolution.join("regroup");
    println!("cargo:rerun-if-changed={}", regroup.display());
    let regroup_dir = evolution_dir.join("regroup");
    std::fs::create_dir_all(&regroup_dir).unwrap();
    singletable::Compiler::new()
        .out_dir(&regroup_dir)
        .compile_to_out_dir([regroup.join("v1.yaml"), regroup.join("v2.yaml")])
        .unwrap();
    imported();
    soundness();
}

/// Imports the real NoSQL Workbench exports
/// (`schema-compiler/tests/data/workbench-exports`) and the examples of real
/// export shapes (`schema-compiler/tests/data/workbench`), and compiles
/// every spec: `imported_modules.rs` (the modules, for the library) and
/// `imported_checks.rs` (one `imported!(module, partition key, [entities])`
/// per spec, for `tests/imported_models.rs`).
fn imported() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let mut models: Vec<std::path::PathBuf> = Vec::new();
    for dir in [
        root.join("schema-compiler/tests/data/workbench-exports"),
        root.join("schema-compiler/tests/data/workbench"),
    ] {
        println!("cargo:rerun-if-changed={}", dir.display());
        // Both folders are part of the repository: a missing one is a broken
        // checkout, which fails the build rather than testing less.
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        models.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json")),
        );
    }
    models.sort();
    let (mut modules, mut checks, mut paths) = (String::new(), String::new(), Vec::new());
    for model in &models {
        let stem: String = model
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let json = std::fs::read_to_string(model).unwrap();
        let imported = singletable::import::workbench::import_workbench(&json)
            .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
        for spec in imported.specs {
            let module = format!(
                "imported_{stem}_{}",
                spec.file_name.trim_end_matches(".yaml")
            );
            let path = out.join(format!("{module}.yaml"));
            std::fs::write(&path, &spec.yaml).unwrap();
            let compilation = singletable::Compiler::new().file(&path).compile();
            assert!(
                !compilation.has_errors(),
                "{}: {}\n{}",
                model.display(),
                spec.file_name,
                compilation.report()
            );
            let ir = &compilation.specs[0].spec;
            let names = singletable::emit::rust::RustNames::of(ir);
            let type_of = |entity: &str| {
                names
                    .entity_types(ir, entity)
                    .expect("an entity of the spec")[0]
                    .clone()
            };
            let entities: Vec<String> = ir.entities.keys().map(|e| type_of(e)).collect();
            // Each inferred query, called with the values of each sample
            // item of the entity it returns.
            let rust_path = format!("singletable_tests::imported::{module}");
            let mut queries = Vec::new();
            for pattern in ir.access_patterns.values() {
                let singletable::ir::Operation::Query(q) = &pattern.operation else {
                    continue;
                };
                let ([returned], None) = (q.returns.as_slice(), &ir.tenant) else {
                    continue;
                };
                let entity = &ir.entities[returned];
                let args: Option<Vec<String>> = q
                    .params
                    .values()
                    .map(|p| {
                        let (_, attribute) = p.binds.iter().find(|(e, _)| e == returned)?;
                        let a = &entity.attributes[attribute];
                        let field = names.field(ir, returned, attribute)?;
                        Some(match a.r#type {
                            singletable::ir::AttributeType::Integer { .. }
                            | singletable::ir::AttributeType::Boolean
                            | singletable::ir::AttributeType::Datetime { .. }
                            | singletable::ir::AttributeType::Enum { .. } => {
                                format!("e.{field}")
                            }
                            singletable::ir::AttributeType::Decimal { .. }
                            | singletable::ir::AttributeType::Binary { .. } => {
                                format!("&e.{field}")
                            }
                            _ => format!("e.{field}.as_str()"),
                        })
                    })
                    .collect();
                let Some(args) = args else { continue };
                // What the query returns of the item: the entity, or the
                // part of it the index carries.
                let ty = type_of(returned);
                let view = match names.partial(ir, &pattern.name, returned) {
                    Some(partial) => {
                        format!("|e: &{rust_path}::{ty}| {rust_path}::{partial}::from(e)")
                    }
                    None => format!("|e: &{rust_path}::{ty}| e.clone()"),
                };
                queries.push(format!(
                    "({ty}, |repo: &{rust_path}::Repository, e: &{rust_path}::{ty}| repo.{method}({args}), {view})",
                    method = names.pattern(ir, &pattern.name).expect("a pattern of the spec"),
                    args = args.join(", ")
                ));
            }
            let _ = writeln!(modules, "generated!({module});");
            let _ = writeln!(
                checks,
                "imported!({module}, {:?}, [{}], [{}]);",
                ir.table.partition_key.name.value,
                entities.join(", "),
                queries.join(", ")
            );
            paths.push(path);
        }
    }
    singletable::Compiler::new()
        .compile_to_out_dir(&paths)
        .unwrap();
    std::fs::write(out.join("imported_modules.rs"), modules).unwrap();
    std::fs::write(out.join("imported_checks.rs"), checks).unwrap();
}

/// The names the driver of an accepted spec calls, as the compiler gives them.
fn driver_names(
    ir: &singletable::ir::Spec,
    names: &singletable::emit::rust::RustNames<'_>,
) -> gen::Names {
    let mut out = gen::Names::default();
    for (e, entity) in &ir.entities {
        out.types.insert(
            e.clone(),
            names.entity_types(ir, e).expect("an entity of the spec"),
        );
        for verb in ["get", "put", "create", "update", "delete", "replace"] {
            let op = names.entity_op(ir, e, verb).expect("an entity operation");
            out.ops.insert((e.clone(), verb.to_owned()), op);
        }
        for a in entity.attributes.keys() {
            let key = (e.clone(), a.clone());
            out.fields
                .insert(key.clone(), names.field(ir, e, a).expect("an attribute"));
            if let Some(c) = names.field_const(ir, e, a) {
                out.consts.insert(key, c);
            }
        }
    }
    for p in ir.access_patterns.keys() {
        out.methods.insert(
            p.clone(),
            names.pattern(ir, p).expect("a pattern of the spec"),
        );
        if let Some(ty) = names.item_enum(ir, p) {
            out.item_enums.insert(p.clone(), ty);
        }
    }
    out
}

/// `SOUNDNESS_SPECS` specs (default 48) from seed `SOUNDNESS_SEED` (default 0) on.
fn soundness() {
    println!("cargo:rerun-if-changed=soundness/gen.rs");
    println!("cargo:rerun-if-changed=soundness/gen");
    println!("cargo:rerun-if-changed=soundness/semantics.rs");
    println!("cargo:rerun-if-env-changed=SOUNDNESS_SPECS");
    println!("cargo:rerun-if-env-changed=SOUNDNESS_SEED");
    let number = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (count, first) = (number("SOUNDNESS_SPECS", 48), number("SOUNDNESS_SEED", 0));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let mut drivers = String::new();
    let mut accepted = Vec::new();
    let mut rejected: std::collections::BTreeMap<String, u64> = Default::default();
    let (mut confirmed, mut unconfirmed) = (0u64, Vec::new());
    let vocabulary = singletable::emit::rust::RustNames::vocabulary();
    for seed in first..first + count {
        let spec = gen::generate(seed, &vocabulary);
        let yaml = spec.yaml();
        let module = format!("soundness_{seed}");
        std::fs::write(out.join(format!("{module}.yaml")), &yaml).unwrap();
        let mut compiler = singletable::Compiler::new();
        compiler.source(format!("{module}.yaml"), yaml.clone());
        let compilation = compiler.compile();
        if compilation.has_errors() {
            let codes: std::collections::BTreeSet<_> = compilation
                .diagnostics
                .iter()
                .filter(|d| d.severity == singletable::diagnostics::Severity::Error)
                .map(|d| d.code.name())
                .collect();
            // Where a witness can be searched for, confirm the rejection.
            for code in &codes {
                let witness = match *code {
                    "key_collision" => Some(gen::collision_witness(&spec)),
                    "key_space_overlap" => Some(gen::overlap_witness(&spec)),
                    _ => None,
                };
                match witness {
                    Some(Some(_)) => confirmed += 1,
                    Some(None) => unconfirmed.push((seed, *code)),
                    None => {}
                }
            }
            for code in codes {
                *rejected.entry(code.to_owned()).or_default() += 1;
            }
            continue;
        }
        let ir = &compilation.specs[0].spec;
        let names = singletable::emit::rust::RustNames::of(ir);
        let calls: Vec<gen::Call> = ir
            .access_patterns
            .values()
            .filter_map(|p| match &p.operation {
                singletable::ir::Operation::Query(q) => Some(gen::Call {
                    pattern: p.name.value.clone(),
                    params: q
                        .params
                        .values()
                        .map(|param| {
                            let (entity, attribute) = param.binds[0].clone();
                            (param.name.value.clone(), entity, attribute)
                        })
                        .collect(),
                    returns: q.returns.clone(),
                    partials: p
                        .partials
                        .keys()
                        .filter_map(|e| Some((e.clone(), names.partial(ir, &p.name, e)?)))
                        .collect(),
                }),
                _ => None,
            })
            .collect();
        let files = compiler
            .generate_rust()
            .expect("an accepted spec generates");
        for file in files {
            std::fs::write(out.join(format!("{module}.rs")), file.contents).unwrap();
        }
        drivers.push_str(&gen::render_driver(
            &spec,
            &module,
            &calls,
            &driver_names(ir, &names),
        ));
        accepted.push(seed);
    }
    let _ = writeln!(
        drivers,
        "/// Seeds of the generated specs `check` accepted.\npub const ACCEPTED: &[u64] = &{accepted:?};"
    );
    let _ = writeln!(
        drivers,
        "/// How many generated specs `check` rejected, by error code (a spec counts once per code).\npub const REJECTED: &[(&str, u64)] = &{:?};",
        rejected.into_iter().collect::<Vec<_>>()
    );
    let _ = writeln!(
        drivers,
        "/// Rejections (`key_collision`, `key_space_overlap`) a witness over the value pools confirmed.\npub const CONFIRMED: u64 = {confirmed};\n/// Rejections of those codes no witness was found for: possible false positives, `(seed, code)`.\npub const UNCONFIRMED: &[(u64, &str)] = &{unconfirmed:?};"
    );
    let _ = writeln!(drivers, "/// Every accepted spec's driver.\npub fn drivers() -> Vec<(u64, fn(singletable_runtime::sdk::Client, String) -> futures_util::future::BoxFuture<'static, crate::soundness::Run>)> {{\n    vec![");
    for seed in &accepted {
        let _ = writeln!(
            drivers,
            "        ({seed}, |c, t| Box::pin(soundness_{seed}::run(c, t))),"
        );
    }
    drivers.push_str("    ]\n}\n");
    std::fs::write(out.join("soundness_drivers.rs"), drivers).unwrap();
}

//! Specs from the grammar-aware generator (`support/grammar.rs`, which the
//! `spec_grammar` fuzz target shares), compiled, and when they compile
//! without errors, rendered by every emitter and explained: no panic, every
//! label inside the text, no spec slower than 10 seconds.

#[path = "support/grammar.rs"]
mod grammar;
#[path = "support/outputs.rs"]
mod outputs;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};
use singletable::diagnostics::Severity;
use singletable::{Compilation, Compiler};

/// Random specs per run: about 40 seconds in a debug build on two cores
/// (`PROPTEST_CASES` overrides it).
const CASES: u32 = 1000;
/// The slowest a spec may be, compile and every output together.
const LIMIT: Duration = Duration::from_secs(10);

/// What one spec did.
struct Outcome {
    clean: bool,
    /// The first error's code, for the summary.
    first_error: Option<String>,
    elapsed: Duration,
}

/// Compiles `text`, checks the labels, and renders every output of a clean spec.
fn run(text: &str) -> Outcome {
    let start = Instant::now();
    let mut compiler = Compiler::new();
    compiler.source("grammar.yaml", text);
    let compilation = compiler.compile();
    check_labels(&compilation, text);
    let report = compilation.report();
    let _ = report.to_text();
    let _ = report.to_json();
    let clean = !compilation.has_errors();
    if clean {
        outputs::every_output(&compiler, &compilation);
    }
    let first_error = compilation
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| format!("{:?}", d.code));
    Outcome {
        clean,
        first_error,
        elapsed: start.elapsed(),
    }
}

fn check_labels(compilation: &Compilation, text: &str) {
    assert!(compilation.specs.len() == 1 || compilation.has_errors());
    for d in compilation.diagnostics.iter() {
        assert!(!d.message.is_empty(), "empty message: {d:?}");
        for label in d.labels.iter().filter(|l| !l.span.is_dummy()) {
            let (start, end) = (label.span.start as usize, label.span.end as usize);
            assert!(
                start <= end && text.get(start..end).is_some(),
                "label {start}..{end} outside the text ({} bytes) or inside a character: {d:?}",
                text.len()
            );
        }
    }
}

/// Runs `f` on a thread with the stack of a process's main thread (8 MiB),
/// where build scripts and the CLI compile specs. Test threads get 2 MiB,
/// which a debug build overflows on lists nested 30 levels deep (see
/// `nested_lists_fit_the_main_thread_stack`).
fn on_main_thread_stack(f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .expect("spawn a test thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn the_empty_input_is_a_clean_spec() {
    let text = grammar::spec_from_bytes(&[]);
    let outcome = run(&text);
    assert!(outcome.clean, "{text}\n{:?}", outcome.first_error);
}

/// Found by the generator: parsing recurses once per list level, about
/// 70 KB of stack each in a debug build, so lists nested 30 deep (31 are
/// allowed) overflow a 2 MiB thread. YAML's nesting budget (64 levels)
/// bounds the recursion, which must fit a main thread's 8 MiB.
#[test]
fn nested_lists_fit_the_main_thread_stack() {
    on_main_thread_stack(|| {
        for depth in [1, 29, 30, 31, 32, 59, 60, 70, 200, 1000] {
            let mut items = "string".to_owned();
            for _ in 0..depth {
                items = format!("{{ type: list, items: {items} }}");
            }
            let text = format!(
                "version: 1\ntable: {{ name: T1x, partition_key: pk }}\nentities:\n  A:\n    attributes:\n      id: {{ type: string, pattern: \"^[a-z]{{1,5}}$\" }}\n      l: {items}\n    key: {{ pk: \"A#<id>\" }}\naccess_patterns:\n  a: {{ get: A }}\n"
            );
            let outcome = run(&text);
            assert_eq!(outcome.clean, depth < 32, "lists nested {depth} deep");
        }
    });
}

#[test]
fn generated_specs_compile_and_render() {
    on_main_thread_stack(generated_specs);
}

fn generated_specs() {
    let mut runner = TestRunner::new(Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        failure_persistence: None,
        ..Config::default()
    });
    let stats = RefCell::new(Stats::default());
    let bytes = prop::collection::vec(any::<u8>(), 0..2048);
    let result = runner.run(&bytes, |bytes| {
        let text = grammar::spec_from_bytes(&bytes);
        let outcome = run(&text);
        prop_assert!(outcome.elapsed < LIMIT, "took {:?}", outcome.elapsed);
        stats.borrow_mut().add(&outcome);
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, bytes)) => panic!(
            "{reason}\nminimal input: {bytes:?}\nspec:\n{}",
            grammar::spec_from_bytes(&bytes)
        ),
        Err(e) => panic!("{e}"),
    }
    let stats = stats.into_inner();
    stats.print();
    // The generator is meant to reach the checker and emitters: a share
    // far below its measured ~70% means it has drifted from the format.
    assert!(
        stats.clean * 5 >= stats.specs,
        "only {} of {} generated specs compiled without errors",
        stats.clean,
        stats.specs
    );
}

#[derive(Default)]
struct Stats {
    specs: usize,
    clean: usize,
    slowest: Duration,
    first_errors: BTreeMap<String, usize>,
}

impl Stats {
    fn add(&mut self, outcome: &Outcome) {
        self.specs += 1;
        self.clean += usize::from(outcome.clean);
        self.slowest = self.slowest.max(outcome.elapsed);
        if let Some(code) = &outcome.first_error {
            *self.first_errors.entry(code.clone()).or_default() += 1;
        }
    }

    fn print(&self) {
        println!(
            "{} specs, {} without errors ({}%), slowest {:?}",
            self.specs,
            self.clean,
            self.clean * 100 / self.specs.max(1),
            self.slowest
        );
        let mut errors: Vec<_> = self.first_errors.iter().collect();
        errors.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let errors: Vec<String> = errors.iter().map(|(c, n)| format!("{c} {n}")).collect();
        println!("first errors: {}", errors.join(", "));
    }
}

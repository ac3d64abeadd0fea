//! The compiler returns a result or diagnostics for any input and never
//! panics: random bytes, and specs from `schemas/` mutated at random.

mod support;

use proptest::prelude::*;
use singletable::Compiler;

fn specs() -> Vec<String> {
    support::spec_paths()
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("read spec"))
        .collect()
}

/// Compiles and checks the invariants every outcome must hold.
fn compile_and_check(text: &str) {
    let compilation = Compiler::new().source("fuzz.yaml", text).compile();
    // Either a spec or at least one error: never silence.
    assert!(compilation.specs.len() == 1 || compilation.has_errors());
    for d in compilation.diagnostics.iter() {
        assert!(!d.message.is_empty());
        for label in &d.labels {
            assert!(
                label.span.end as usize <= text.len(),
                "label beyond the end: {d:?}"
            );
        }
    }
    // Every renderer copes with every diagnostic.
    let report = compilation.report();
    let _ = report.to_text();
    let _ = report.to_json();
    let _ = format!("{report:?}");
}

#[derive(Debug, Clone)]
enum Mutation {
    DeleteRange(usize, usize),
    Insert(usize, String),
    SwapLines(usize, usize),
    DuplicateLine(usize),
    ReplaceWord(usize, usize),
}

fn apply(text: &str, m: &Mutation) -> String {
    let clamp = |i: usize| {
        let mut i = i % (text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match m {
        Mutation::DeleteRange(a, len) => {
            let a = clamp(*a);
            let b = clamp(a + len % 40);
            format!("{}{}", &text[..a], &text[b.max(a)..])
        }
        Mutation::Insert(at, s) => {
            let at = clamp(*at);
            format!("{}{s}{}", &text[..at], &text[at..])
        }
        Mutation::SwapLines(a, b) => {
            let mut lines: Vec<&str> = text.lines().collect();
            let n = lines.len().max(1);
            lines.swap(a % n, b % n);
            lines.join("\n")
        }
        Mutation::DuplicateLine(a) => {
            let mut lines: Vec<&str> = text.lines().collect();
            let n = lines.len().max(1);
            let line = lines.get(a % n).copied().unwrap_or("");
            lines.insert(a % n, line);
            lines.join("\n")
        }
        Mutation::ReplaceWord(a, b) => {
            let words: Vec<&str> = text
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|w| !w.is_empty())
                .collect();
            if words.is_empty() {
                return text.to_owned();
            }
            let from = words[a % words.len()];
            let to = words[b % words.len()];
            text.replacen(from, to, 1)
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let yamlish = prop::sample::select(vec![
        "<",
        ">",
        "<<",
        "{",
        "}",
        "[",
        "]",
        ":",
        ": ",
        "#",
        "|",
        "-",
        "- ",
        "\"",
        "'",
        "\n",
        "  ",
        "\t",
        "*a",
        "&a ",
        "!!binary ",
        "~",
        "null",
        "-1",
        "99999999999999999999",
        "1e400",
        "é",
        "\u{0}",
        "<tenant>",
        "<shard>",
        "? ",
        "<<: *a",
    ]);
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(a, l)| Mutation::DeleteRange(a, l)),
        (any::<usize>(), prop::collection::vec(yamlish, 1..4))
            .prop_map(|(a, s)| Mutation::Insert(a, s.concat())),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::ReplaceWord(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_specs_never_panic(which in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let specs = specs();
        let mut text = specs[which % specs.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        compile_and_check(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        compile_and_check(&text);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        compile_and_check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn alias_bombs_are_rejected_not_expanded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
            p = i - 1
        ));
    }
    text.push_str("version: 1\n");
    let compilation = Compiler::new().source("bomb.yaml", text).compile();
    assert!(compilation.has_errors());
}

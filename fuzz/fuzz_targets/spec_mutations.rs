//! Structure-aware: the specs of `schemas/` with lines deleted, duplicated,
//! swapped, cut or edited, so the inputs stay close to real specs and reach
//! the resolver, the checker and the emitters.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

const SPECS: &[&str] = &[
    include_str!("../../schemas/support_ticket.yaml"),
    include_str!("../../schemas/contest_votes.yaml"),
    include_str!("../../schemas/inverted_role_index.yaml"),
    include_str!("../../schemas/iot_device_reports.yaml"),
    include_str!("../../schemas/monthly_activity.yaml"),
    include_str!("../../schemas/photo_site.yaml"),
    include_str!("../../schemas/pooled_product_catalog.yaml"),
    include_str!("../../schemas/project_task_comment.yaml"),
    include_str!("../../schemas/saas_tenant_users_orders.yaml"),
    include_str!("../../schemas/shopping_cart.yaml"),
    include_str!("../../schemas/short_lived_messages.yaml"),
    include_str!("../../schemas/vertical_partitioning.yaml"),
];

#[derive(Debug, Arbitrary)]
enum Mutation {
    DeleteLine(u16),
    DuplicateLine(u16),
    SwapLines(u16, u16),
    /// Replaces a word of one line with a word of another.
    ReplaceWord {
        line: u16,
        word: u8,
        from: u16,
        other: u8,
    },
    InsertText {
        line: u16,
        text: String,
    },
    TruncateLine {
        line: u16,
        at: u8,
    },
}

#[derive(Debug, Arbitrary)]
struct Input {
    spec: u8,
    mutations: Vec<Mutation>,
}

fn apply(lines: &mut Vec<String>, m: &Mutation) {
    if lines.is_empty() {
        return;
    }
    let at = |i: u16| i as usize % lines.len();
    match m {
        Mutation::DeleteLine(i) => {
            let i = at(*i);
            lines.remove(i);
        }
        Mutation::DuplicateLine(i) => {
            let i = at(*i);
            let line = lines[i].clone();
            lines.insert(i, line);
        }
        Mutation::SwapLines(a, b) => {
            let (a, b) = (at(*a), at(*b));
            lines.swap(a, b);
        }
        Mutation::ReplaceWord {
            line,
            word,
            from,
            other,
        } => {
            let donor: Vec<String> = lines[at(*from)].split(' ').map(str::to_owned).collect();
            let i = at(*line);
            let mut words: Vec<String> = lines[i].split(' ').map(str::to_owned).collect();
            if !words.is_empty() && !donor.is_empty() {
                let w = *word as usize % words.len();
                words[w] = donor[*other as usize % donor.len()].clone();
                lines[i] = words.join(" ");
            }
        }
        Mutation::InsertText { line, text } => {
            let i = at(*line);
            lines.insert(i, text.clone());
        }
        Mutation::TruncateLine { line, at: cut } => {
            let i = at(*line);
            let chars: Vec<char> = lines[i].chars().collect();
            let keep = (*cut as usize).min(chars.len());
            lines[i] = chars[..keep].iter().collect();
        }
    }
}

fuzz_target!(|input: Input| {
    let spec = SPECS[input.spec as usize % SPECS.len()];
    let mut lines: Vec<String> = spec.lines().map(str::to_owned).collect();
    for m in input.mutations.iter().take(16) {
        apply(&mut lines, m);
    }
    let text = lines.join("\n");
    let compilation = singletable::Compiler::new()
        .source("fuzz.yaml", text.as_str())
        .compile();
    assert!(compilation.specs.len() == 1 || compilation.has_errors());
    let report = compilation.report();
    let _ = report.to_text();
    let _ = report.to_json();
    if !compilation.has_errors() {
        for compiled in &compilation.specs {
            let _ = singletable::emit::rust::render_rust(&compiled.spec, "fuzz.yaml");
        }
    }
});

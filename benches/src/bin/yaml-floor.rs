//! The YAML floor of `singletable check`: a whole process that reads a spec
//! and runs one YAML parser's event stream over it, building nothing. No
//! checker that parses the spec with that parser can finish sooner, so the
//! peer comparison times it beside `check` (see `peer`).
//!
//! ```sh
//! yaml-floor <granit-parser|yaml-rust2> <spec.yaml>
//! ```
//!
//! `granit-parser` is the event parser under serde-saphyr, the one `check`
//! uses; `yaml-rust2` is the fastest of the maintained Rust YAML parsers
//! that report where every event is (it, saphyr-parser and libyaml-safer
//! were measured against granit-parser on the 200-entity design).

use std::process::ExitCode;

/// The number of events in `text`, by granit-parser.
fn granit(text: &str) -> Result<usize, String> {
    let mut events = 0;
    for event in granit_parser::Parser::new_from_str(text) {
        let (event, _span) = event.map_err(|e| e.to_string())?;
        events += 1;
        if matches!(event, granit_parser::Event::StreamEnd) {
            break;
        }
    }
    Ok(events)
}

/// The number of events in `text`, by yaml-rust2.
fn yaml_rust2(text: &str) -> Result<usize, String> {
    let mut parser = yaml_rust2::parser::Parser::new_from_str(text);
    let mut events = 0;
    loop {
        let (event, _marker) = parser.next_token().map_err(|e| e.to_string())?;
        events += 1;
        if matches!(event, yaml_rust2::Event::StreamEnd) {
            return Ok(events);
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [parser, path] = args.as_slice() else {
        eprintln!("usage: yaml-floor <granit-parser|yaml-rust2> <spec.yaml>");
        return ExitCode::from(2);
    };
    let [granit_name, yaml_rust2_name] = singletable_benches::YAML_FLOOR_PARSERS;
    let parse = match parser.as_str() {
        name if name == granit_name => granit,
        name if name == yaml_rust2_name => yaml_rust2,
        other => {
            eprintln!("yaml-floor: unknown parser `{other}`");
            return ExitCode::from(2);
        }
    };
    let counted = std::fs::read_to_string(path)
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|text| parse(&text));
    match counted {
        Ok(events) => {
            println!("{events} events");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("yaml-floor: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

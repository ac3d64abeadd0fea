//! Reading a spec file into [`SpecDecl`].
//!
//! The parser is `serde-saphyr`: it is maintained, deserializes straight into
//! serde types (no intermediate tree), reports the location of every error and
//! gives byte spans for every value through its `Spanned` wrapper, which our
//! own [`Spanned`](crate::source::Spanned) wraps. It also rejects duplicate
//! keys and bounds alias expansion ("billion laughs") by default. Booleans
//! follow YAML 1.2 (`true`/`false` only), so `no` and `on` stay words.

use crate::diagnostics::{did_you_mean, Code, Diagnostic, Diagnostics};
use crate::source::{span_of_location, with_current_file, FileId, SourceMap, Span};

use super::SpecDecl;

/// The deepest YAML a spec may nest: DynamoDB's 32 levels of nested values,
/// two YAML levels each, with room for the levels around them.
const MAX_DEPTH: usize = 96;

/// The parser thread's stack: the deepest spec (96 levels) in a debug build
/// needs about 12 MiB; only the pages touched are committed.
const PARSE_STACK: usize = 64 * 1024 * 1024;

/// Parses one spec file. On failure the YAML error is recorded as a
/// diagnostic and `None` is returned.
pub fn parse_spec(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<SpecDecl> {
    let text = &sources.get(file)?.text;
    let parse = || {
        // YAML 1.2 booleans: `no`, `on`, `y` are words (enum values, names), not booleans.
        // Depth: DynamoDB nests values 32 levels deep, and a spec writes a
        // nested map's declaration and its examples two YAML levels per
        // level, inside a few levels of its own.
        let options = serde_saphyr::options! {
            strict_booleans: true,
            budget: serde_saphyr::budget! { max_depth: MAX_DEPTH },
        };
        with_current_file(file, || {
            serde_saphyr::from_str_with_options::<SpecDecl>(text, options)
        })
    };
    // The deserializer recurses per level of YAML nesting (at most
    // `MAX_DEPTH`) through many generic frames: on its own thread
    // with a stack that holds the deepest spec in a debug build (a build
    // script, a test thread's 2 MiB would not), or here if no thread starts.
    let result = std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("singletable-parse".to_owned())
            .stack_size(PARSE_STACK)
            .spawn_scoped(scope, parse)
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => parse(),
        }
    });
    match result {
        Ok(spec) => Some(spec),
        Err(error) => {
            let span = error_span(sources, file, &error);
            let message = clean_message(&error.without_snippet().to_string());
            diags.push(diagnostic_for(&message, span));
            None
        }
    }
}

/// Where a YAML error is: the byte span when the parser knows it, else its
/// line and column (some syntax errors carry only those).
fn error_span(sources: &SourceMap, file: FileId, error: &serde_saphyr::Error) -> Span {
    let Some(location) = error.location() else {
        return Span::new(file, 0, 0);
    };
    let span = with_current_file(file, || span_of_location(&location));
    if span.start > 0 || location.line() <= 1 && location.column() <= 1 {
        return span;
    }
    let Some(source) = sources.get(file) else {
        return span;
    };
    let offset = source.offset_of(location.line() as usize, location.column() as usize);
    Span::new(file, offset, 1.min(source.text.len() - offset))
}

/// Strips the location the YAML library writes into its messages; ours are
/// carried by the label.
fn clean_message(raw: &str) -> String {
    let mut message = raw.trim();
    message = message.strip_prefix("error: ").unwrap_or(message);
    if let Some(rest) = message.strip_prefix("line ") {
        if let Some((_, after)) = rest.split_once(": ") {
            message = after;
        }
    }
    if let Some(idx) = message.find(" at line ") {
        message = &message[..idx];
    }
    message.lines().next().unwrap_or(message).trim().to_owned()
}

fn diagnostic_for(message: &str, span: Span) -> Diagnostic {
    if let Some((name, expected)) = unknown_word(message, "unknown field `") {
        let mut d = Diagnostic::new(Code::UnknownField, format!("unknown field `{name}`"))
            .label(span, "not a field here");
        d = d.help(
            match did_you_mean(&name, expected.iter().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`?"),
                None if expected.is_empty() => "remove this field".to_owned(),
                None => format!("expected one of: {}", expected.join(", ")),
            },
        );
        return d;
    }
    if let Some((name, expected)) = unknown_word(message, "unknown variant `") {
        let d = Diagnostic::new(Code::InvalidValue, format!("unknown value `{name}`"))
            .label(span, "not an allowed value");
        return d.help(
            match did_you_mean(&name, expected.iter().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("expected one of: {}", expected.join(", ")),
            },
        );
    }
    if message.starts_with("duplicate mapping key") {
        let name = message
            .trim_start_matches("duplicate mapping key: ")
            .split(',')
            .next()
            .unwrap_or("");
        return Diagnostic::new(Code::DuplicateKey, format!("`{name}` is written twice"))
            .label(span, "second definition")
            .help("each name may appear once in a mapping: rename or merge the two entries");
    }
    let wrong_scalar = [
        "invalid type",
        "invalid value",
        "invalid u",
        "invalid i",
        "invalid f",
        "invalid boolean",
        "expected mapping",
        "expected sequence",
        "expected string",
    ];
    if wrong_scalar.iter().any(|p| message.starts_with(p)) {
        return Diagnostic::new(Code::InvalidValue, message.to_owned())
            .label(span, "this value")
            .help("see docs/spec.md for the shape this field takes");
    }
    if message.starts_with("missing field") {
        return Diagnostic::new(Code::YamlSyntax, message.to_owned())
            .label(span, "in this mapping")
            .help("add the field; see docs/spec.md");
    }
    Diagnostic::new(Code::YamlSyntax, message.to_owned())
        .label(span, "here")
        .help("fix the YAML syntax at this position")
}

/// Splits "unknown field `x`, expected one of `a`, `b`" into `x` and `[a, b]`.
fn unknown_word(message: &str, prefix: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix(prefix)?;
    let (name, rest) = rest.split_once('`')?;
    let expected = rest
        .split_once("expected one of ")
        .or_else(|| rest.split_once("expected "))
        .map(|(_, list)| {
            list.split(',')
                .map(|w| w.trim().trim_matches('`').to_owned())
                .filter(|w| !w.is_empty() && !w.contains(' '))
                .collect()
        })
        .unwrap_or_default();
    Some((name.to_owned(), expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_field_messages_are_split() {
        let (name, expected) = unknown_word(
            "unknown field `max_lenght`, expected one of type, max_length",
            "unknown field `",
        )
        .unwrap();
        assert_eq!(name, "max_lenght");
        assert_eq!(expected, ["type", "max_length"]);
    }

    #[test]
    fn library_locations_are_stripped() {
        assert_eq!(
            clean_message("line 3 column 26: unknown field `x`"),
            "unknown field `x`"
        );
        assert_eq!(
            clean_message("expected string scalar at line 1, column 4"),
            "expected string scalar"
        );
    }
}

//! Key template syntax: literals and `<placeholders>`.
//!
//! `TENANT#<tenant>|TICKET#<id>` is the literal `TENANT#`, the placeholder
//! `tenant`, the literal `|TICKET#` and the placeholder `id`. A literal `<` is
//! written `<<`. Placeholder names are identifiers: a letter or `_`, then
//! letters, digits or `_`.

use crate::source::{SourceMap, Span, Spanned};

/// A parsed piece, before names are resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawSegment {
    /// Fixed text.
    Literal(String),
    /// `<name>`, with the span of the whole `<name>`.
    Placeholder(Spanned<String>),
}

/// A template syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

/// Maps offsets in a template's value to spans in the file. YAML quoting and
/// escapes make the two differ; where they do in ways we cannot follow, every
/// offset maps to the whole scalar.
#[derive(Debug, Clone, Copy)]
pub struct TemplateSpans {
    whole: Span,
    /// Byte offset of the value's first byte in the file, when the value
    /// stands in the file verbatim.
    start: Option<u32>,
}

impl TemplateSpans {
    /// Works out where the characters of `value` sit in the file.
    pub fn new(sources: &SourceMap, value: &Spanned<String>) -> Self {
        let whole = value.span;
        let raw = sources.get(whole.file).and_then(|f| f.slice(whole));
        let start = raw.and_then(|raw| {
            if raw == value.value {
                Some(whole.start)
            } else if raw.len() >= 2
                && (raw.starts_with('"') || raw.starts_with('\''))
                && raw.get(1..raw.len() - 1) == Some(value.value.as_str())
            {
                Some(whole.start + 1)
            } else {
                None
            }
        });
        TemplateSpans { whole, start }
    }

    /// The span of `len` bytes at `offset` in the value.
    pub fn at(&self, offset: usize, len: usize) -> Span {
        match self.start {
            Some(start) => Span {
                file: self.whole.file,
                start: start + offset as u32,
                end: start + (offset + len) as u32,
            },
            None => self.whole,
        }
    }
}

/// Parses a template. Every error is returned, not only the first.
pub fn parse_template(
    text: &str,
    spans: TemplateSpans,
) -> Result<Vec<RawSegment>, Vec<TemplateError>> {
    let mut segments = Vec::new();
    let mut errors = Vec::new();
    let mut literal = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '<' {
            literal.push(c);
            continue;
        }
        if chars.peek().map(|&(_, c)| c) == Some('<') {
            chars.next();
            literal.push('<');
            continue;
        }
        let Some(close) = text[i..].find('>').map(|j| i + j) else {
            errors.push(TemplateError {
                message: "`<` opens a placeholder that is never closed".into(),
                span: spans.at(i, text.len() - i),
            });
            break;
        };
        let name = &text[i + 1..close];
        let span = spans.at(i, close + 1 - i);
        if let Some(message) = name_error(name) {
            errors.push(TemplateError { message, span });
        } else {
            if !literal.is_empty() {
                segments.push(RawSegment::Literal(std::mem::take(&mut literal)));
            }
            segments.push(RawSegment::Placeholder(Spanned::new(name.to_owned(), span)));
        }
        while chars.peek().is_some_and(|&(j, _)| j <= close) {
            chars.next();
        }
    }
    if !literal.is_empty() {
        segments.push(RawSegment::Literal(literal));
    }
    if segments.is_empty() && errors.is_empty() {
        errors.push(TemplateError {
            message: "a key template cannot be empty".into(),
            span: spans.at(0, 0),
        });
    }
    if errors.is_empty() {
        Ok(segments)
    } else {
        Err(errors)
    }
}

fn name_error(name: &str) -> Option<String> {
    let mut chars = name.chars();
    match chars.next() {
        None => Some("empty placeholder `<>`: write an attribute name between the brackets, or `<<` for a literal `<`".into()),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => Some(format!(
            "placeholder `<{name}>` must start with a letter or `_`"
        )),
        _ if chars.any(|c| !(c.is_ascii_alphanumeric() || c == '_')) => Some(format!(
            "placeholder `<{name}>` may only contain letters, digits and `_`"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn spans() -> TemplateSpans {
        TemplateSpans {
            whole: Span::new(FileId(0), 10, 30),
            start: Some(10),
        }
    }

    #[test]
    fn parses_literals_and_placeholders() {
        let segs = parse_template("TENANT#<tenant>|TICKET#<id>", spans()).unwrap();
        assert_eq!(segs.len(), 4);
        assert_eq!(segs[0], RawSegment::Literal("TENANT#".into()));
        match &segs[1] {
            RawSegment::Placeholder(p) => {
                assert_eq!(p.value, "tenant");
                assert_eq!((p.span.start, p.span.end), (17, 25));
            }
            other => panic!("expected placeholder, got {other:?}"),
        }
    }

    #[test]
    fn double_angle_is_a_literal() {
        let segs = parse_template("A<<B", spans()).unwrap();
        assert_eq!(segs, vec![RawSegment::Literal("A<B".into())]);
    }

    #[test]
    fn reports_every_error() {
        let errs = parse_template("<> <1a> <ok> <open", spans()).unwrap_err();
        assert_eq!(errs.len(), 3, "{errs:?}");
    }

    #[test]
    fn empty_is_an_error() {
        assert!(parse_template("", spans()).is_err());
    }
}

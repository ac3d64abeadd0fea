//! Rust names for spec names: case conversion and keywords. A leaf: the
//! name table (`names`) decides which name each generated item gets.

use proc_macro2::Ident;

/// Rust's keywords, strict and reserved.
pub const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// The hidden accessors `#[derive(Entity)]` gives a struct for attribute
/// `attribute` (reading, then setting it), which the repository of an
/// extern entity goes through. Their prefixes differ, so no attribute's
/// getter is another's setter.
pub fn field_accessors(attribute: &str) -> (String, String) {
    let name = snake(attribute);
    let name = name.trim_start_matches("r#");
    (
        format!("__singletable_get_{name}"),
        format!("__singletable_set_{name}"),
    )
}

/// `ticketCount`, `TicketCount`, `ShardID` → `ticket_count`, `ticket_count`, `shard_id`.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    let mut chars = name.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        let before = prev.replace(c);
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        if let (true, Some(prev)) = (c.is_ascii_uppercase(), before) {
            let next_lower = chars.peek().is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out.truncate(out.trim_end_matches('_').len());
    match out.chars().next() {
        None => "value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{out}"),
        Some(_) => out,
    }
}

/// `ticket_with_comments`, `OPEN`, `in-progress` → `TicketWithComments`, `Open`, `InProgress`.
pub fn pascal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for word in snake(name).split('_').filter(|w| !w.is_empty()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    match out.chars().next() {
        None => "Value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("V{out}"),
        Some(_) => out,
    }
}

/// `SCREAMING_SNAKE` for constants.
pub fn screaming(name: &str) -> String {
    snake(name).trim_start_matches('_').to_ascii_uppercase()
}

/// An identifier, raw when it is a keyword.
pub fn ident(name: &str) -> Ident {
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") {
        Ident::new(&format!("{name}_"), proc_macro2::Span::call_site())
    } else if KEYWORDS.contains(&name) {
        Ident::new_raw(name, proc_macro2::Span::call_site())
    } else {
        Ident::new(name, proc_macro2::Span::call_site())
    }
}

/// Names from Rust's standard prelude that generated code uses unqualified,
/// with their paths: a generated item with one of these names would shadow
/// it, and the derive imports them by path into the block it expands to.
pub const STD_NAMES: &[(&str, &str)] = &[
    ("Option", "::core::option::Option"),
    ("Some", "::core::option::Option::Some"),
    ("None", "::core::option::Option::None"),
    ("Result", "::core::result::Result"),
    ("Ok", "::core::result::Result::Ok"),
    ("Err", "::core::result::Result::Err"),
    ("String", "::std::string::String"),
    ("Vec", "::std::vec::Vec"),
    ("Clone", "::core::clone::Clone"),
    ("Default", "::core::default::Default"),
    ("From", "::core::convert::From"),
    ("Into", "::core::convert::Into"),
    ("Box", "::std::boxed::Box"),
    ("Send", "::core::marker::Send"),
    ("IntoIterator", "::core::iter::IntoIterator"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_names_are_paths_to_themselves() {
        for (name, path) in STD_NAMES {
            let path: syn::Path = syn::parse_str(path).unwrap();
            assert_eq!(path.segments.last().unwrap().ident, name);
        }
    }

    #[test]
    fn cases() {
        assert_eq!(snake("TicketCount"), "ticket_count");
        assert_eq!(snake("ShardID"), "shard_id");
        assert_eq!(snake("created_at"), "created_at");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("9lives"), "_9lives");
        assert_eq!(pascal("OPEN"), "Open");
        assert_eq!(pascal("in-progress"), "InProgress");
        assert_eq!(pascal("ticket_with_comments"), "TicketWithComments");
        assert_eq!(pascal("TicketCount"), "TicketCount");
        assert_eq!(pascal("3d"), "V3d");
        assert_eq!(screaming("TicketCount"), "TICKET_COUNT");
        assert_eq!(ident("type").to_string(), "r#type");
    }
}

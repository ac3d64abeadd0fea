//! Rust names for spec names.

use proc_macro2::{Ident, Span};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// `ticketCount`, `TicketCount`, `ShardID` → `ticket_count`, `ticket_count`, `shard_id`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    let out = out.trim_end_matches('_').to_owned();
    match out.chars().next() {
        None => "value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{out}"),
        Some(_) => out,
    }
}

/// `ticket_with_comments`, `OPEN`, `in-progress` → `TicketWithComments`, `Open`, `InProgress`.
pub fn pascal(name: &str) -> String {
    let mut out = String::new();
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
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// The snake_case identifier of a spec name.
pub fn snake_ident(name: &str) -> Ident {
    ident(&snake(name))
}

/// The PascalCase identifier of a spec name.
pub fn pascal_ident(name: &str) -> Ident {
    ident(&pascal(name))
}

#[cfg(test)]
mod tests {
    use super::*;

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

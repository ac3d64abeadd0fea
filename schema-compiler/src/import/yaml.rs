//! Just enough YAML writing for imported specs: every string quoted the
//! JSON way (a JSON string is a valid YAML double-quoted scalar), names
//! left bare when they are plain identifiers.

use serde_json::Value;

/// A scalar or flow value as YAML.
pub fn value(v: &Value) -> String {
    match v {
        Value::String(s) => string(s),
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), value(v)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(value).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// A quoted string.
pub fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A mapping key: bare when it is an identifier that YAML reads as a string.
pub fn key(k: &str) -> String {
    let identifier = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let reserved = matches!(
        k.to_ascii_lowercase().as_str(),
        "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
    );
    if identifier && !reserved {
        k.to_owned()
    } else {
        string(k)
    }
}

//! Which Rust field types hold which attribute types.

use crate::ir::AttributeType;

/// The last path segment's name of a type (`String` for
/// `::std::string::String`), and the type inside its angle brackets.
pub(super) fn last_segment(ty: &syn::Type) -> Option<(String, Option<&syn::Type>)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    let inner = match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    Some((segment.ident.to_string(), inner))
}

/// `T` of `Option<T>`.
pub(super) fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    match last_segment(ty) {
        Some((name, inner)) if name == "Option" => inner,
        _ => None,
    }
}

/// The names of the types every attribute type but enums maps to.
const KNOWN: &[&str] = &[
    "String", "i64", "Decimal", "bool", "DateTime", "Vec", "Item", "HashMap", "Blob", "Option",
];

/// Whether `ty` can hold a value of `attribute`, or the type it should be.
pub(super) fn check_type(attribute: &AttributeType, ty: &syn::Type) -> Result<(), String> {
    let name = last_segment(ty).map(|(n, _)| n);
    let expected: &[&str] = match attribute {
        AttributeType::String { .. } => &["String"],
        AttributeType::Integer { .. } => &["i64"],
        AttributeType::Decimal { .. } => &["Decimal"],
        AttributeType::Boolean => &["bool"],
        AttributeType::Datetime { .. } => &["DateTime"],
        AttributeType::List { .. } => &["Vec"],
        AttributeType::Map { fields: None } => &["Item", "HashMap"],
        AttributeType::Set { .. } => &["BTreeSet"],
        AttributeType::Binary { .. } => &["Blob"],
        AttributeType::Enum { .. } | AttributeType::Map { fields: Some(_) } => {
            return match name {
                Some(n) if !KNOWN.contains(&n.as_str()) => Ok(()),
                _ => Err(expected_type(attribute).to_owned()),
            };
        }
    };
    match name {
        Some(n) if expected.contains(&n.as_str()) => Ok(()),
        _ => Err(expected_type(attribute).to_owned()),
    }
}

/// The field type an attribute type asks for, as shown in errors.
pub(super) fn expected_type(attribute: &AttributeType) -> &'static str {
    match attribute {
        AttributeType::String { .. } => "`String`",
        AttributeType::Integer { .. } => "`i64`",
        AttributeType::Decimal { .. } => "`singletable_runtime::Decimal`",
        AttributeType::Boolean => "`bool`",
        AttributeType::Datetime { .. } => "`singletable_runtime::DateTime`",
        AttributeType::List { .. } => "a `Vec<_>`",
        AttributeType::Map { fields: None } => "`singletable_runtime::Item`",
        AttributeType::Map { fields: Some(_) } => {
            "a struct of the map's fields implementing `singletable_runtime::Attr` (like the generated ones)"
        }
        AttributeType::Set { of } => match of {
            crate::ir::SetOf::String => "`BTreeSet<String>`",
            crate::ir::SetOf::Integer => "`BTreeSet<i64>`",
            crate::ir::SetOf::Decimal => "`BTreeSet<singletable_runtime::Decimal>`",
            crate::ir::SetOf::Binary => "`BTreeSet<Vec<u8>>`",
        },
        AttributeType::Binary { .. } => "`singletable_runtime::Blob`",
        AttributeType::Enum { .. } => {
            "an enum type (`Copy`, with `as_str`, `FromStr` and `singletable_runtime::Attr`, like the generated ones)"
        }
    }
}

/// The spec type of a field type, for inline mode: `string`, `integer`, …
pub(super) fn spec_type(ty: &syn::Type) -> Option<&'static str> {
    let (name, _) = last_segment(ty)?;
    Some(match name.as_str() {
        "String" => "string",
        "i64" => "integer",
        "Decimal" => "decimal",
        "bool" => "boolean",
        "DateTime" => "datetime",
        "Vec" => "list",
        "Item" | "HashMap" => "map",
        "Blob" => "binary",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> syn::Type {
        syn::parse_str(text).unwrap()
    }

    #[test]
    fn types_match_by_their_last_segment() {
        let string = AttributeType::String {
            min_length: None,
            max_length: None,
            pattern: None,
            alphabet: crate::ir::CharSet::any(),
        };
        assert!(check_type(&string, &ty("::std::string::String")).is_ok());
        assert!(check_type(&string, &ty("String")).is_ok());
        assert_eq!(check_type(&string, &ty("i64")).unwrap_err(), "`String`");
        let integer = AttributeType::Integer { min: 0, max: 9 };
        assert!(check_type(&integer, &ty("i32")).is_err());
        let status = AttributeType::Enum {
            values: vec!["OPEN".into()],
        };
        assert!(check_type(&status, &ty("Status")).is_ok());
        assert!(check_type(&status, &ty("String")).is_err());
        let inner = option_inner(&ty("Option<String>")).map(|t| quote::quote!(#t).to_string());
        assert_eq!(inner.as_deref(), Some("String"));
        assert!(option_inner(&ty("String")).is_none());
        assert_eq!(
            spec_type(&ty("singletable_runtime::DateTime")),
            Some("datetime")
        );
        assert_eq!(spec_type(&ty("Status")), None);
    }
}

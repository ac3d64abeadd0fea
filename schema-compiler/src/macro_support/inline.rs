//! Inline mode: the struct declares its keys; a one-entity spec is written
//! from them and compiled like any spec, so the same checks apply.

use proc_macro2::{Span, TokenStream};
use syn::LitStr;

use super::attrs::StructAttrs;
use super::bind::{BindContext, Field};
use super::types::spec_type;
use super::{compilation_errors, wrap, Errors};

/// The tenant id pattern when `tenant_pattern` is not given.
pub const DEFAULT_TENANT_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";

/// The spec text being written, with the Rust span of every value taken
/// from the struct, so a diagnostic in the text points back at it.
#[derive(Default)]
struct Writer {
    text: String,
    origins: Vec<(std::ops::Range<usize>, Span)>,
}

impl Writer {
    fn raw(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// A quoted string (JSON strings are YAML strings).
    fn string(&mut self, value: &str) {
        let quoted = serde_json::to_string(value).expect("a string serializes to JSON");
        self.text.push_str(&quoted);
    }

    /// A quoted string taken from a literal of the struct.
    fn lit(&mut self, lit: &LitStr) {
        let start = self.text.len();
        self.string(&lit.value());
        self.origins.push((start..self.text.len(), lit.span()));
    }

    /// The span of the struct value at `offset` of the text.
    fn origin(&self, offset: usize) -> Option<Span> {
        self.origins
            .iter()
            .find(|(range, _)| range.contains(&offset))
            .map(|(_, span)| *span)
    }
}

/// The key attribute names of index `name`: `gsi1_pk`, `gsi1_sk`.
pub fn index_key_names(name: &str) -> (String, String) {
    let base = crate::naming::snake(name);
    (format!("{base}_pk"), format!("{base}_sk"))
}

/// The table and tenant sections.
fn write_table(w: &mut Writer, attrs: &StructAttrs, table: &LitStr) {
    w.raw("version: 1\ntable: {name: ");
    w.lit(table);
    w.raw(", partition_key: pk");
    if attrs.sk.is_some() {
        w.raw(", sort_key: sk");
    }
    w.raw("}\n");
    if let Some(tenant) = &attrs.tenant {
        w.raw("tenant: {placeholder: ");
        w.lit(tenant);
        w.raw(", id_pattern: ");
        match &attrs.tenant_pattern {
            Some(pattern) => w.lit(pattern),
            None => w.string(DEFAULT_TENANT_PATTERN),
        }
        w.raw(", principal_tag: TenantId}\n");
    }
    if !attrs.indexes.is_empty() {
        w.raw("indexes:\n");
        for index in &attrs.indexes {
            let (pk, sk) = index_key_names(&index.name.value());
            w.raw("  ");
            w.lit(&index.name);
            w.raw(": {partition_key: ");
            w.string(&pk);
            if index.sk.is_some() {
                w.raw(", sort_key: ");
                w.string(&sk);
            }
            w.raw("}\n");
        }
    }
}

/// A `{pk: …, sk: …}` of templates.
fn write_keys(w: &mut Writer, pk: &LitStr, sk: Option<&LitStr>) {
    w.raw("{pk: ");
    w.lit(pk);
    if let Some(sk) = sk {
        w.raw(", sk: ");
        w.lit(sk);
    }
    w.raw("}\n");
}

/// The one entity: an attribute per field, its keys.
fn write_entity(
    w: &mut Writer,
    input: &syn::DeriveInput,
    attrs: &StructAttrs,
    pk: &LitStr,
    fields: &[Field<'_>],
    errors: &mut Errors,
) {
    w.raw("entities:\n  ");
    w.string(&input.ident.to_string());
    w.raw(":\n    attributes:\n");
    let random = attrs.shards.is_some()
        && attrs
            .shard_by
            .as_ref()
            .is_none_or(|by| by.value() == "random");
    // The write shard of a randomly sharded entity is no attribute.
    let attributes = fields
        .iter()
        .filter(|f| !(f.attrs.skip || (random && f.name == "shard")));
    for field in attributes {
        let (ty, optional) = field.value_type();
        if !field.attrs.values.is_empty() {
            w.raw("      ");
            match &field.attrs.rename {
                Some(rename) => w.lit(rename),
                None => w.string(&field.name),
            }
            w.raw(": {type: enum, values: [");
            for (i, value) in field.attrs.values.iter().enumerate() {
                if i > 0 {
                    w.raw(", ");
                }
                w.lit(value);
            }
            w.raw("]");
            if optional {
                w.raw(", optional: true");
            }
            w.raw("}\n");
            continue;
        }
        let Some(kind) = spec_type(ty) else {
            errors.push(syn::Error::new_spanned(
                ty,
                format!(
                    "inline mode cannot tell the attribute type of field `{}`: use `String`, `i64`, `bool`, `singletable_runtime::{{Decimal, DateTime, Blob, Item}}` or a `Vec`, optionally in an `Option`; for an enum list its values (`#[singletable(values(\"OPEN\", \"CLOSED\"))]`), or mark the field `#[singletable(skip)]`",
                    field.ident
                ),
            ));
            continue;
        };
        w.raw("      ");
        match &field.attrs.rename {
            Some(rename) => w.lit(rename),
            None => w.string(&field.name),
        }
        w.raw(&format!(": {{type: {kind}"));
        if optional {
            w.raw(", optional: true");
        }
        if let Some(pattern) = &field.attrs.pattern {
            w.raw(", pattern: ");
            w.lit(pattern);
        }
        if field.attrs.escape {
            w.raw(", escape: true");
        }
        w.raw("}\n");
    }
    w.raw("    key: ");
    write_keys(w, pk, attrs.sk.as_ref());
    if let Some(count) = &attrs.shards {
        w.raw("    shards: {count: ");
        let start = w.text.len();
        // The value, not the literal's spelling (`8u32`, `0x8`).
        let value = count
            .base10_parse::<u32>()
            .map_or_else(|_| count.to_string(), |n| n.to_string());
        w.raw(&value);
        w.origins.push((start..w.text.len(), count.span()));
        w.raw(", by: ");
        match &attrs.shard_by {
            Some(by) => w.lit(by),
            None => w.raw("random"),
        }
        w.raw("}\n");
    }
    if !attrs.indexes.is_empty() {
        w.raw("    indexes:\n");
        for index in &attrs.indexes {
            w.raw("      ");
            w.lit(&index.name);
            w.raw(": ");
            write_keys(w, &index.pk, index.sk.as_ref());
        }
    }
}

/// The spec written for an inline struct, and where its values came from.
fn write_spec(
    input: &syn::DeriveInput,
    attrs: &StructAttrs,
    table: &LitStr,
    pk: &LitStr,
    fields: &[Field<'_>],
    errors: &mut Errors,
) -> Writer {
    let mut w = Writer::default();
    write_table(&mut w, attrs, table);
    write_entity(&mut w, input, attrs, pk, fields, errors);
    w
}

/// Inline mode: writes and compiles the one-entity spec, binds the struct to it.
pub(super) fn inline(
    input: &syn::DeriveInput,
    attrs: &StructAttrs,
    table: &LitStr,
    fields: &[Field<'_>],
    errors: &mut Errors,
) -> Option<TokenStream> {
    if let Some(entity) = &attrs.entity {
        errors.push(syn::Error::new(
            entity.span(),
            "`entity` names an entity of a spec file: give `spec = \"…\"` too, or leave it out (inline mode's entity is the struct)",
        ));
    }
    let Some(pk) = &attrs.pk else {
        errors.push(syn::Error::new(
            table.span(),
            "inline mode needs a partition-key template: `pk = \"…\"`",
        ));
        return None;
    };
    if let (Some(by), None) = (&attrs.shard_by, &attrs.shards) {
        errors.push(syn::Error::new(
            by.span(),
            "`shard_by` needs `shards = N`, the number of write shards",
        ));
    }
    if attrs.tenant_pattern.is_some() && attrs.tenant.is_none() {
        if let Some(pattern) = &attrs.tenant_pattern {
            errors.push(syn::Error::new(
                pattern.span(),
                "`tenant_pattern` needs `tenant = \"…\"`, the tenant placeholder",
            ));
        }
    }
    let writer = write_spec(input, attrs, table, pk, fields, errors);
    if !errors.is_empty() {
        return None;
    }
    let name = format!("#[derive(Entity)] on {}", input.ident);
    let compilation = crate::Compiler::new()
        .source(name, writer.text.clone())
        .compile();
    if compilation.has_errors() {
        for error in compilation_errors(&compilation) {
            // The written spec's positions mean nothing to the user: the
            // span of the struct's literal says where.
            let span = error
                .offset
                .and_then(|o| writer.origin(o))
                .unwrap_or_else(|| input.ident.span());
            errors.push(syn::Error::new(span, error.text));
        }
        return None;
    }
    let spec = &compilation.specs.first()?.spec;
    let entity = spec.entities.first()?.1;
    let context = BindContext {
        input,
        spec,
        entity,
        sources: &compilation.sources,
        tenancy: attrs.tenancy.as_ref(),
    };
    let tokens = context.bind(fields, errors)?;
    Some(wrap(tokens, None))
}

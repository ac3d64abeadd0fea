//! The `#[singletable(...)]` attributes of a derived struct and its fields.

use syn::spanned::Spanned as _;
use syn::LitStr;

use super::Errors;

/// The attribute's name.
const ATTR: &str = "singletable";

/// The struct's `#[singletable(...)]` settings.
#[derive(Default)]
pub(super) struct StructAttrs {
    /// `spec = "schemas/x.yaml"`: the spec file, relative to the crate.
    pub spec: Option<LitStr>,
    /// `entity = "Ticket"`: the spec's entity (the struct's name by default).
    pub entity: Option<LitStr>,
    /// `tenancy = "path::Tenancy"`: the tenant rules type of `Scope`.
    pub tenancy: Option<LitStr>,
    /// `table = "Tickets"`: inline mode's table.
    pub table: Option<LitStr>,
    /// `pk = "..."`: inline mode's partition-key template.
    pub pk: Option<LitStr>,
    /// `sk = "..."`: inline mode's sort-key template.
    pub sk: Option<LitStr>,
    /// `tenant = "tenant"`: inline mode's tenant placeholder.
    pub tenant: Option<LitStr>,
    /// `tenant_pattern = "^...$"`: inline mode's tenant id pattern.
    pub tenant_pattern: Option<LitStr>,
    /// `index(name = "GSI1", pk = "...", sk = "...")`: inline mode's indexes.
    pub indexes: Vec<IndexAttr>,
    /// `shards = 10`: inline mode's write shards (the keys hold `<shard>`).
    pub shards: Option<syn::LitInt>,
    /// `shard_by = "random"` (the default; the struct has a `shard: u32`)
    /// or `shard_by = "hash(id)"`: how inline mode picks a shard.
    pub shard_by: Option<LitStr>,
}

/// One `index(...)` of inline mode.
pub(super) struct IndexAttr {
    /// The index name.
    pub name: LitStr,
    /// Its partition-key template.
    pub pk: LitStr,
    /// Its sort-key template.
    pub sk: Option<LitStr>,
}

/// A field's `#[singletable(...)]` settings.
#[derive(Default)]
pub(super) struct FieldAttrs {
    /// `rename = "created_at"`: the attribute the field holds.
    pub rename: Option<LitStr>,
    /// `skip`: not an attribute; `Default::default()` when an item is read.
    pub skip: bool,
    /// `pattern = "^...$"`: inline mode's string pattern.
    pub pattern: Option<LitStr>,
    /// `escape`: inline mode's key escaping of the string.
    pub escape: bool,
    /// `values("OPEN", "CLOSED")`: inline mode's enum values (the field's
    /// type is an enum of the crate, as a spec's enum would need).
    pub values: Vec<LitStr>,
}

/// Sets `slot` once; a second value is an error at the second.
fn set_once(slot: &mut Option<LitStr>, value: LitStr, key: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(syn::Error::new(
            value.span(),
            format!("`{key}` is given twice"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

/// Reads the struct's `#[singletable(...)]` attributes; problems go to `errors`.
pub(super) fn struct_attrs(attrs: &[syn::Attribute], errors: &mut Errors) -> StructAttrs {
    let mut out = StructAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(ATTR)) {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let slot = match key.as_str() {
                "spec" => &mut out.spec,
                "entity" => &mut out.entity,
                "tenancy" => &mut out.tenancy,
                "table" => &mut out.table,
                "pk" => &mut out.pk,
                "sk" => &mut out.sk,
                "tenant" => &mut out.tenant,
                "tenant_pattern" => &mut out.tenant_pattern,
                "shard_by" => &mut out.shard_by,
                "shards" => {
                    if out.shards.is_some() {
                        return Err(meta.error("`shards` is given twice"));
                    }
                    out.shards = Some(meta.value()?.parse()?);
                    return Ok(());
                }
                "index" => {
                    out.indexes.push(index_attr(&meta)?);
                    return Ok(());
                }
                _ => return Err(meta.error(format!(
                    "unknown `singletable` key `{}`; expected one of: spec, entity, tenancy, table, pk, sk, tenant, tenant_pattern, index, shards, shard_by",
                    quote::ToTokens::to_token_stream(&meta.path)
                ))),
            };
            let value: LitStr = meta.value()?.parse()?;
            set_once(slot, value, &key)
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

/// `index(name = "GSI1", pk = "...", sk = "...")`.
fn index_attr(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<IndexAttr> {
    let (mut name, mut pk, mut sk) = (None, None, None);
    let span = meta.path.span();
    meta.parse_nested_meta(|inner| {
        let key = inner
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let slot = match key.as_str() {
            "name" => &mut name,
            "pk" => &mut pk,
            "sk" => &mut sk,
            _ => {
                return Err(inner.error("unknown `index` key; expected one of: name, pk, sk"));
            }
        };
        let value: LitStr = inner.value()?.parse()?;
        set_once(slot, value, &key)
    })?;
    match (name, pk) {
        (Some(name), Some(pk)) => Ok(IndexAttr { name, pk, sk }),
        _ => Err(syn::Error::new(
            span,
            "an `index` needs a `name` and a `pk` template: `index(name = \"GSI1\", pk = \"...\")`",
        )),
    }
}

/// Reads a field's `#[singletable(...)]` attributes; problems go to `errors`.
pub(super) fn field_attrs(attrs: &[syn::Attribute], errors: &mut Errors) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(ATTR)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                out.skip = true;
                Ok(())
            } else if meta.path.is_ident("escape") {
                out.escape = true;
                Ok(())
            } else if meta.path.is_ident("rename") {
                set_once(&mut out.rename, meta.value()?.parse()?, "rename")
            } else if meta.path.is_ident("pattern") {
                set_once(&mut out.pattern, meta.value()?.parse()?, "pattern")
            } else if meta.path.is_ident("values") {
                if !out.values.is_empty() {
                    return Err(meta.error("`values` is given twice"));
                }
                let content;
                syn::parenthesized!(content in meta.input);
                let values =
                    syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(
                        &content,
                    )?;
                if values.is_empty() {
                    return Err(meta.error("`values(...)` lists the enum's values as stored: `values(\"OPEN\", \"CLOSED\")`"));
                }
                out.values = values.into_iter().collect();
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown `singletable` field key `{}`; expected one of: rename, skip, pattern, escape, values",
                    quote::ToTokens::to_token_stream(&meta.path)
                )))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

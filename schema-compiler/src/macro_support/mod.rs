//! What `#[derive(Entity)]` runs. **Not a stable API**: this module serves
//! the `singletable-derive` proc-macro crate only and may change in any release
//! (it is exempt from semver).
//!
//! The derive binds a user's struct to one entity, in one of two modes:
//!
//! - spec-bound, `#[singletable(spec = "schemas/support_ticket.yaml", entity = "Ticket")]`
//!   (`entity` defaults to the struct's name): the spec is read relative to
//!   the crate (`CARGO_MANIFEST_DIR`, or `SINGLETABLE_MANIFEST_DIR` when set,
//!   for harnesses such as trybuild that build crates out of tree), compiled
//!   like a build script compiles it, and the struct checked against the
//!   entity: every attribute has a field of a compatible type (optional ones
//!   an `Option`), every field is an attribute or marked `#[singletable(skip)]`;
//! - inline, `#[singletable(table = "Tickets", pk = "TICKET#<id>", sk = "SUMMARY")]`:
//!   the struct's fields are the attributes and the keys are declared on it;
//!   the same template language and single-entity checks apply.
//!
//! Either way `impl singletable_runtime::Entity` comes from the same emitter as
//! the generated repositories, so a derived struct writes exactly the items
//! of the generated struct. Problems are compile errors at the field, the
//! struct or the `spec = "…"` literal, all reported at once.
//!
//! ```
//! let input = quote::quote! {
//!     #[singletable(table = "Notes", pk = "NOTE#<id>", sk = "NOTE")]
//!     struct Note { #[singletable(pattern = "^[a-z0-9]{1,16}$")] id: String, text: String }
//! };
//! let output = singletable::macro_support::derive_entity(input).to_string();
//! assert!(output.contains("impl __rt :: Entity for Note"));
//! ```

mod attrs;
mod bind;
mod inline;
mod types;

use proc_macro2::TokenStream;
use quote::quote;

use crate::diagnostics::Severity;
use crate::Compilation;

/// Errors collected over the whole input, reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds an error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Whether any error was added.
    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// `compile_error!`s for every error.
    fn to_compile_errors(&self) -> TokenStream {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}

/// The named fields of the struct, or an error at what is not one.
fn named_fields(input: &syn::DeriveInput) -> syn::Result<Vec<&syn::Field>> {
    let fields = match &input.data {
        syn::Data::Struct(data) => &data.fields,
        _ => {
            return Err(syn::Error::new(
                input.ident.span(),
                "`#[derive(Entity)]` works on structs with named fields only",
            ))
        }
    };
    match fields {
        syn::Fields::Named(named) => Ok(named.named.iter().collect()),
        _ => Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Entity)]` works on structs with named fields only",
        )),
    }
}

/// The expansion of `#[derive(Entity)]` on `input`: the impl, or
/// `compile_error!`s. Never panics.
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let fields = match named_fields(&input) {
        Ok(fields) => fields,
        Err(e) => return e.to_compile_error(),
    };
    if let Some(param) = input.generics.params.first() {
        errors.push(syn::Error::new_spanned(
            param,
            "`#[derive(Entity)]` does not support generic structs",
        ));
    }
    let attrs = attrs::struct_attrs(&input.attrs, &mut errors);
    let fields: Vec<bind::Field<'_>> = fields
        .into_iter()
        .filter_map(|f| bind::Field::new(f, &mut errors))
        .collect();
    let expansion = match (&attrs.spec, &attrs.table) {
        (Some(spec), None) => bind::spec_bound(&input, &attrs, spec, &fields, &mut errors),
        (None, Some(table)) => inline::inline(&input, &attrs, table, &fields, &mut errors),
        (Some(spec), Some(_)) => {
            errors.push(syn::Error::new(
                spec.span(),
                "give either `spec = \"…\"` (an entity of a spec file) or `table = \"…\"` with keys (inline), not both",
            ));
            None
        }
        // After a malformed attribute, the missing mode is no news.
        (None, None) if !errors.is_empty() => None,
        (None, None) => {
            errors.push(syn::Error::new(
                input.ident.span(),
                "`#[derive(Entity)]` needs `#[singletable(spec = \"schemas/x.yaml\", entity = \"Name\")]` or `#[singletable(table = \"Name\", pk = \"…\")]`",
            ));
            None
        }
    };
    match expansion {
        Some(tokens) if errors.is_empty() => tokens,
        _ => errors.to_compile_errors(),
    }
}

/// One error of a compiled spec.
pub(crate) struct SpecError {
    /// `path:line:col`, when the error has a position.
    pub location: Option<String>,
    /// `message [singletable::code]`, and the help on a second line.
    pub text: String,
    /// Its byte offset in the spec text.
    pub offset: Option<usize>,
}

/// The errors of a compilation, in source order.
pub(crate) fn compilation_errors(compilation: &Compilation) -> Vec<SpecError> {
    compilation
        .diagnostics
        .sorted()
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let span = d.primary_span();
            let location = span
                .and_then(|s| compilation.sources.location(s))
                .map(|l| l.to_string());
            let mut text = format!("{} [{}]", d.message, d.code);
            if let Some(help) = &d.help {
                text.push_str(&format!("\n  = help: {help}"));
            }
            SpecError {
                location,
                text,
                offset: span.map(|s| s.start as usize),
            }
        })
        .collect()
}

/// Wraps the emitted items so that their helpers stay private to the impl.
fn wrap(tokens: TokenStream, tracked: Option<&str>) -> TokenStream {
    let tracked = tracked.map(|path| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    quote! {
        #[allow(dead_code, non_upper_case_globals, clippy::disallowed_types)]
        const _: () = {
            #tracked
            #tokens
        };
    }
}

#[cfg(test)]
mod tests;

//! The tenant: the scope type of tenant-scoped entities and the generated `Tenant`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::*;

impl<'a> Emitter<'a> {
    /// Whether the spec declares a tenant.
    pub(super) fn has_tenant(&self) -> bool {
        self.spec.tenant.is_some()
    }

    /// Whether `entity` is keyed by the tenant.
    pub(super) fn is_tenant_scoped(&self, entity: &ir::Entity) -> bool {
        self.has_tenant() && entity.scope == ir::Scope::Tenant
    }

    /// The `Scope` type of an entity.
    pub(super) fn scope_type(&self, entity: &ir::Entity) -> TokenStream {
        match &self.binding {
            _ if !self.is_tenant_scoped(entity) => quote!(()),
            Some(binding) => binding.scope.clone(),
            None => quote!(TenantId),
        }
    }

    pub(super) fn emit_tenant(&self) -> TokenStream {
        self.emit_tenant_named(&format_ident!("Tenancy"), &format_ident!("TenantId"))
    }

    /// The tenant rules type `rules` and the tenant id type `alias`.
    pub(super) fn emit_tenant_named(
        &self,
        rules: &proc_macro2::Ident,
        alias: &proc_macro2::Ident,
    ) -> TokenStream {
        let Some(tenant) = &self.spec.tenant else {
            return TokenStream::new();
        };
        let ir::Tenant {
            placeholder: _,
            id_pattern,
            alphabet,
            min_length,
            max_length,
            principal_tag: _,
        } = tenant;
        let min = (*min_length).max(1);
        let max = max_length.unwrap_or(usize::MAX);
        let ranges = char_ranges(alphabet);
        let doc = format!(
            "The tenant rules of this spec: ids match `{}` (checked here as its alphabet and length).",
            id_pattern.as_str()
        );
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            pub enum #rules {}

            impl __rt::TenantRules for #rules {
                const MIN_LENGTH: usize = #min;
                const MAX_LENGTH: usize = #max;
                const ALPHABET: &'static [(char, char)] = &[#(#ranges),*];
            }

            /// A tenant id validated against this spec's tenant rules.
            pub type #alias = __rt::TenantId<#rules>;
        }
    }
}

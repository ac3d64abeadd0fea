//! The spec's IAM policies as `schema_runtime::iam::PolicyTemplate`
//! constants, so an application can make a tenant's session policy.

use proc_macro2::TokenStream;
use quote::quote;

use super::Emitter;
use crate::emit::iam::{self, PolicyKind, PolicyPiece};

impl Emitter<'_> {
    pub(super) fn emit_iam(&self) -> TokenStream {
        let runtime = self.policy_template(PolicyKind::Runtime);
        let roles = self
            .spec
            .roles
            .values()
            .map(|role| {
                let name = role.name.as_str();
                let template = self.policy_template(PolicyKind::Role(role));
                quote!((#name, #template))
            })
            .collect::<Vec<_>>();
        let doc = if self.has_tenant() {
            " The IAM policy of what this module's repository does, confined to one tenant's keys with `dynamodb:LeadingKeys` (what `singletable generate iam` writes as `<spec>.iam.json`). [`::schema_runtime::iam::PolicyTemplate::session_policy`] makes a tenant's STS session policy from it."
        } else {
            " The IAM policy of what this module's repository does (what `singletable generate iam` writes as `<spec>.iam.json`)."
        };
        quote! {
            #[doc = #doc]
            pub const IAM_POLICY: ::schema_runtime::iam::PolicyTemplate = #runtime;
            /// The IAM policy of each role the spec declares, by role name: only the actions of the role's access patterns.
            pub const IAM_ROLE_POLICIES: &[(&str, ::schema_runtime::iam::PolicyTemplate)] = &[#(#roles),*];
        }
    }

    fn policy_template(&self, kind: PolicyKind<'_>) -> TokenStream {
        let role = match kind.role() {
            Some(name) => quote!(::core::option::Option::Some(#name)),
            None => quote!(::core::option::Option::None),
        };
        let tag = match &self.spec.tenant {
            Some(t) => {
                let tag = t.principal_tag.as_str();
                quote!(::core::option::Option::Some(#tag))
            }
            None => quote!(::core::option::Option::None),
        };
        let pieces = iam::policy_pieces(self.spec, kind)
            .into_iter()
            .map(|piece| match piece {
                PolicyPiece::Text(text) => quote!(::schema_runtime::iam::Piece::Text(#text)),
                PolicyPiece::Tenant => quote!(::schema_runtime::iam::Piece::Tenant),
                PolicyPiece::Partition => quote!(::schema_runtime::iam::Piece::Partition),
                PolicyPiece::Region => quote!(::schema_runtime::iam::Piece::Region),
                PolicyPiece::Account => quote!(::schema_runtime::iam::Piece::Account),
            });
        quote! {
            ::schema_runtime::iam::PolicyTemplate {
                role: #role,
                principal_tag: #tag,
                pieces: &[#(#pieces),*],
            }
        }
    }
}

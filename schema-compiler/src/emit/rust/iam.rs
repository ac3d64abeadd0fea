//! The spec's IAM policies as `singletable_runtime::iam::PolicyTemplate`
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
            " The IAM policy of what this module's repository does, confined to one tenant's keys with `dynamodb:LeadingKeys` (what `singletable generate iam` writes as `<spec>.iam.json`). [`::singletable_runtime::iam::PolicyTemplate::session_policy`] makes a tenant's STS session policy from it."
        } else {
            " The IAM policy of what this module's repository does (what `singletable generate iam` writes as `<spec>.iam.json`)."
        };
        quote! {
            #[doc = #doc]
            pub const IAM_POLICY: __rt::iam::PolicyTemplate = #runtime;
            /// The IAM policy of each role the spec declares, by role name: only the actions of the role's access patterns.
            pub const IAM_ROLE_POLICIES: &[(&str, __rt::iam::PolicyTemplate)] = &[#(#roles),*];
        }
    }

    fn policy_template(&self, kind: PolicyKind<'_>) -> TokenStream {
        let role = match kind.role() {
            Some(name) => quote!(Some(#name)),
            None => quote!(None),
        };
        let tag = match &self.spec.tenant {
            Some(t) => {
                let tag = t.principal_tag.as_str();
                quote!(Some(#tag))
            }
            None => quote!(None),
        };
        let pieces = iam::policy_pieces(self.spec, kind)
            .into_iter()
            .map(|piece| match piece {
                PolicyPiece::Text(text) => quote!(__rt::iam::Piece::Text(#text)),
                PolicyPiece::Tenant => quote!(__rt::iam::Piece::Tenant),
                PolicyPiece::Partition => quote!(__rt::iam::Piece::Partition),
                PolicyPiece::Region => quote!(__rt::iam::Piece::Region),
                PolicyPiece::Account => quote!(__rt::iam::Piece::Account),
            });
        quote! {
            __rt::iam::PolicyTemplate {
                role: #role,
                principal_tag: #tag,
                pieces: &[#(#pieces),*],
            }
        }
    }
}

//! `#[derive(Entity)]` for singletable: implements `singletable_runtime::Entity`
//! for a struct the user owns, checked at compile time. Use it through
//! `singletable-runtime`'s `derive` feature (`singletable_runtime::Entity`).
//!
//! Bound to an entity of a spec file (the path is relative to the crate's
//! `Cargo.toml`; editing the spec recompiles the crate):
//!
//! ```ignore
//! #[derive(Debug, Clone, PartialEq, singletable_runtime::Entity)]
//! #[singletable(spec = "schemas/support_ticket.yaml", entity = "Ticket")]
//! pub struct Ticket {
//!     pub id: String,
//!     pub title: String,
//!     pub status: Status,
//!     pub resolver: Option<String>,
//!     #[singletable(rename = "created_at")]
//!     pub opened: singletable_runtime::DateTime,
//!     #[singletable(skip)]
//!     pub cached_score: u32,
//! }
//! ```
//!
//! or with its keys declared inline:
//!
//! ```ignore
//! #[derive(Entity)]
//! #[singletable(table = "Notes", tenant = "tenant", pk = "TENANT#<tenant>|NOTE#<id>", sk = "NOTE")]
//! pub struct Note {
//!     #[singletable(pattern = "^[a-z0-9]{1,16}$")]
//!     pub id: String,
//!     pub text: String,
//! }
//! ```
//!
//! The expansion comes from `singletable::macro_support`, which holds
//! all the logic; this crate is only the entry point.

/// Implements `singletable_runtime::Entity` for a struct; see the crate docs.
#[proc_macro_derive(Entity, attributes(singletable))]
pub fn derive_entity(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    singletable::macro_support::derive_entity(input.into()).into()
}

//! The support-ticket repository generated on the crate's own `Ticket`
//! (`Compiler::extern_entity`): a struct with other field names and a field
//! the spec does not know, bound to the spec's entity by the derive.

/// The crate's own model.
pub mod model {
    use singletable_runtime::{DateTime, Entity};

    use super::support_ticket::Status;

    /// A ticket as this crate models it.
    #[derive(Debug, Clone, PartialEq, Entity)]
    #[singletable(
        spec = "../schemas/support_ticket.yaml",
        entity = "Ticket",
        tenancy = "crate::extern_entities::support_ticket::Tenancy"
    )]
    pub struct Ticket {
        /// The ticket id.
        pub id: String,
        /// One line.
        #[singletable(rename = "title")]
        pub subject: String,
        /// Open or closed.
        pub status: Status,
        /// Who works on it (the spec's `resolver`).
        #[singletable(rename = "resolver")]
        pub assignee: Option<String>,
        /// When it was opened.
        pub created_at: DateTime,
        /// Kept in memory only; read back as 0.
        #[singletable(skip)]
        pub views: u32,
    }
}

/// The repository, taking and returning [`model::Ticket`].
#[allow(
    clippy::disallowed_types,
    clippy::too_many_arguments,
    clippy::wrong_self_convention,
    clippy::enum_variant_names
)]
pub mod support_ticket {
    include!(concat!(env!("OUT_DIR"), "/extern/support_ticket.rs"));
}

//! Schema evolution: what changes between two versions of a design, what
//! each change does to the items already stored, and the lock of the
//! deployed design.
//!
//! [`diff`] compares two resolved specs as stored data sees them ([`Design`]:
//! stored names, key languages with their encodings, indexes) and reports
//! every change with its [`Class`] (compatible, needs a backfill, breaking,
//! breaking for clients only), the order to deploy it in, a witness item
//! built under the old design and run through the new one, the plan, and
//! the migration jobs it needs. [`lock`] records the design that is
//! deployed, so that a build can tell an accepted change from one nobody
//! looked at. `docs/evolution.md` is the guide.

pub mod check;
mod codes;
mod compare;
mod derived;
pub mod design;
mod diff;
mod entities;
pub mod estimate;
mod job;
pub mod lock;
mod render;
mod settings;
mod witness;

pub use codes::{ChangeCode, Class, DeployOrder};
pub use compare::{compare, Against, Comparison};
pub use design::Design;
pub use diff::{diff, Finding, Job};
pub use job::RecountAttributes;
pub use render::{render_json, render_text, JsonFinding};

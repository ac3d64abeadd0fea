//! Changes of an entity's derived attributes.

use super::codes::ChangeCode;
use super::design::EntityDesign;
use super::diff::{finding, Finding, Job, Versions};
use super::entities::template_changed;

/// Derived attributes added or recomputed differently: stored items hold
/// none, or the old value, until the job writes the new one. (A removed
/// one stays in stored items, read by nobody the design generates.)
pub(super) fn derived_changes(
    v: &Versions<'_>,
    name: &str,
    old: &EntityDesign,
    new: &EntityDesign,
    out: &mut Vec<Finding>,
) {
    for (attribute, template) in &new.derived {
        let message = match old.derived.get(attribute) {
            None => format!("`{name}` derives `{attribute}` (`{}`) on every write: stored items do not hold it yet", template.text),
            Some(was) if template_changed(was, template) => format!(
                "`{name}` derives `{attribute}` as `{}`, was `{}`: stored items hold the old value",
                template.text, was.text
            ),
            Some(_) => continue,
        };
        out.push(
            finding(
                ChangeCode::DerivedChanged,
                format!("{name},{attribute}"),
                message,
            )
            .label(v.new_at().entity(name), "this entity")
            .job(Job::BackfillDerived {
                entity: name.to_owned(),
                attribute: attribute.clone(),
            }),
        );
    }
}

//! Defence in depth for tenant isolation: what a handle reads back must be
//! what it asked for, and a tenant's queries return only that tenant's items.
//!
//! The keys a handle builds already name its tenant and IAM confines its
//! requests to them; these checks catch what neither can: an item written
//! by other code with an index key that names another tenant (IAM sees only
//! the table's partition key on writes), and a server or proxy that answers
//! with other items.

use crate::error::{ForeignItem, ForeignReason};
use crate::sdk::types::AttributeValue;
use crate::tenant::{TenantId, TenantRules};
use crate::Item;

/// A tenant's table partition keys: what the table partition key of every
/// item a tenant's query returns, and of every position of its cursors,
/// must start with. Generated code builds it from the handle's tenant and
/// the key shapes of the entities the query can match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantKeys {
    attribute: &'static str,
    shapes: &'static [(&'static str, Option<char>)],
    tenant: String,
}

impl TenantKeys {
    /// The keys of `tenant` in the table partition-key `attribute`: one
    /// shape per partition-key template, as the literal before the tenant
    /// and the delimiter after it (`None` when the tenant ends the key).
    pub fn new<R: TenantRules>(
        tenant: &TenantId<R>,
        attribute: &'static str,
        shapes: &'static [(&'static str, Option<char>)],
    ) -> Self {
        TenantKeys {
            attribute,
            shapes,
            tenant: tenant.as_str().to_owned(),
        }
    }

    /// The tenant id.
    pub(crate) fn tenant(&self) -> &str {
        &self.tenant
    }

    /// The table partition-key attribute that holds the tenant.
    pub fn attribute(&self) -> &'static str {
        self.attribute
    }

    /// Whether `item` (an item or a key) has a table partition key of this
    /// tenant. The delimiter after the tenant is one no tenant id contains,
    /// so tenant `acme` never owns tenant `acme2`'s keys.
    pub fn owns(&self, item: &Item) -> bool {
        let Some(AttributeValue::S(key)) = item.get(self.attribute) else {
            return false;
        };
        self.shapes.iter().any(|&(literal, delimiter)| {
            let rest = key
                .strip_prefix(literal)
                .and_then(|rest| rest.strip_prefix(self.tenant.as_str()));
            match (rest, delimiter) {
                (Some(rest), None) => rest.is_empty(),
                (Some(rest), Some(d)) => rest.starts_with(d),
                (None, _) => false,
            }
        })
    }

    /// `Ok` when `item` is this tenant's, otherwise the refusal.
    pub(crate) fn check(&self, item: &Item, operation: &'static str) -> Result<(), ForeignItem> {
        if self.owns(item) {
            Ok(())
        } else {
            Err(ForeignItem {
                operation,
                attribute: self.attribute.to_owned(),
                reason: ForeignReason::OtherTenant,
            })
        }
    }
}

/// The attributes of `key` that `item` does not hold with the same value,
/// by name (so reports do not depend on hash order).
fn mismatches<'k>(item: &Item, key: &'k Item) -> Vec<&'k str> {
    let mut names: Vec<&str> = key
        .iter()
        .filter(|(name, value)| item.get(name.as_str()) != Some(*value))
        .map(|(name, _)| name.as_str())
        .collect();
    names.sort_unstable();
    names
}

/// `Ok` when `item` has one of the `requested` keys; otherwise the
/// refusal names an attribute where it differs from the closest key.
pub(crate) fn check_requested(
    item: &Item,
    requested: &[Item],
    operation: &'static str,
) -> Result<(), ForeignItem> {
    let mut closest: Option<Vec<&str>> = None;
    for key in requested {
        let differ = mismatches(item, key);
        if differ.is_empty() {
            return Ok(());
        }
        if closest.as_ref().is_none_or(|c| differ.len() < c.len()) {
            closest = Some(differ);
        }
    }
    let attribute = closest
        .and_then(|c| c.first().map(|name| (*name).to_owned()))
        .unwrap_or_default();
    Err(ForeignItem {
        operation,
        attribute,
        reason: ForeignReason::NotRequested,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rules;
    impl TenantRules for Rules {
        const MIN_LENGTH: usize = 1;
        const MAX_LENGTH: usize = 64;
        const ALPHABET: &'static [(char, char)] = &[('0', '9'), ('a', 'z')];
    }

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    #[test]
    fn a_tenant_owns_its_keys_and_not_a_longer_tenants() {
        let acme = TenantId::<Rules>::new("acme").unwrap();
        let keys = TenantKeys::new(&acme, "pk", &[("TENANT#", Some('|')), ("ORG#", None)]);
        for own in ["TENANT#acme|TICKET#1", "TENANT#acme|", "ORG#acme"] {
            assert!(keys.owns(&item(&[("pk", own)])), "{own}");
        }
        for other in [
            "TENANT#acme2|TICKET#1",
            "TENANT#acm|x",
            "TENANT#acme",
            "ORG#acme|x",
            "ORG#acme2",
            "USER#acme|x",
        ] {
            assert!(!keys.owns(&item(&[("pk", other)])), "{other}");
        }
        assert!(!keys.owns(&item(&[("sk", "TENANT#acme|x")])));
        let mut number = Item::new();
        number.insert("pk".into(), AttributeValue::N("1".into()));
        assert!(!keys.owns(&number));
    }

    #[test]
    fn an_item_must_have_one_of_the_keys_requested() {
        let requested = [
            item(&[("pk", "T#a|1"), ("sk", "X")]),
            item(&[("pk", "T#a|2"), ("sk", "X")]),
        ];
        let found = item(&[("pk", "T#a|2"), ("sk", "X"), ("title", "t")]);
        assert!(check_requested(&found, &requested, "batch_get").is_ok());
        let e = check_requested(
            &item(&[("pk", "T#a|2"), ("sk", "Y")]),
            &requested,
            "batch_get",
        )
        .unwrap_err();
        assert_eq!(
            (e.attribute.as_str(), e.reason),
            ("sk", ForeignReason::NotRequested)
        );
        let e =
            check_requested(&item(&[("pk", "T#b|1"), ("sk", "X")]), &requested, "get").unwrap_err();
        assert_eq!(e.attribute, "pk");
    }
}

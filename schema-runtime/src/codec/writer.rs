//! [`ItemWriter`]: how generated code builds an item.

use super::*;

/// An item being written by a generated `to_item`, one line per attribute;
/// errors name the entity and the attribute.
#[derive(Debug)]
pub struct ItemWriter {
    item: crate::Item,
    entity: &'static str,
}

impl ItemWriter {
    /// Starts from the key attributes, with room for `attributes` more.
    pub fn new(mut key: crate::Item, entity: &'static str, attributes: usize) -> Self {
        key.reserve(attributes);
        ItemWriter { item: key, entity }
    }

    /// Writes an attribute.
    pub fn put<T: Attr>(
        &mut self,
        name: &'static str,
        value: &T,
        how: Store,
    ) -> Result<(), ValueError> {
        let value = value.store(how, self.entity, name)?;
        self.item.insert(name.to_owned(), value);
        Ok(())
    }

    /// Writes an optional attribute when it has a value.
    pub fn put_opt<T: Attr>(
        &mut self,
        name: &'static str,
        value: &Option<T>,
        how: Store,
    ) -> Result<(), ValueError> {
        match value {
            Some(value) => self.put(name, value, how),
            None => Ok(()),
        }
    }

    /// Writes an attribute already encoded (the entity type, a key).
    pub fn raw(&mut self, name: &'static str, value: AttributeValue) {
        self.item.insert(name.to_owned(), value);
    }

    /// The item.
    pub fn finish(self) -> crate::Item {
        self.item
    }
}

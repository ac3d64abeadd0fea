//! Sample items the end-to-end tests share.

use singletable_runtime::DateTime;

use crate::generated::pooled_product_catalog::{Currency, Product};

/// A product of the pooled catalogue in `category`.
pub fn product(id: &str, category: &str) -> Product {
    Product {
        product_id: id.into(),
        name: format!("product {id}"),
        category: category.into(),
        price: "9.99".parse().expect("a valid decimal"),
        currency: Currency::Eur,
        doc: Default::default(),
        updated_at: DateTime::from_secs(1_714_564_800),
    }
}

//! Importers: other tools' models turned into starting specs.

mod json;
pub mod workbench;
mod yaml;

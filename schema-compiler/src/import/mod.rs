//! Importers: other tools' models turned into starting specs.

pub mod workbench;
mod yaml;

//! Emitters: pure functions from the IR to files in memory.

#![deny(clippy::wildcard_enum_match_arm)]

pub mod cloudformation;
pub mod docs;
pub mod iam;
pub mod rust;
pub mod table;
pub mod terraform;
pub mod workbench;

/// A generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// File name, relative to the output directory.
    pub name: String,
    /// Contents.
    pub contents: String,
}

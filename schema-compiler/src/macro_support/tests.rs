//! The derive's logic as ordinary code.

use super::derive_entity;

//! Derive macros for singletable entities.

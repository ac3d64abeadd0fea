//! Workspace-level tests: every spec in `schemas/` through the compiler.

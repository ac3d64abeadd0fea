//! Roles: named sets of access patterns, each with its own IAM policy.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir;
use crate::syntax::{self, de::NamedMap};

use super::{is_identifier, text, Resolver};

impl Resolver<'_> {
    pub(super) fn resolve_roles(
        &mut self,
        decls: &NamedMap<syntax::RoleDecl>,
        patterns: &NamedMap<syntax::AccessPatternDecl>,
    ) -> IndexMap<String, ir::Role> {
        let mut out = IndexMap::new();
        for (name, decl) in decls.iter() {
            if !is_identifier(name) {
                self.error(
                    Diagnostic::new(
                        Code::InvalidName,
                        format!("`{name}` is not a valid role name"),
                    )
                    .label(name.span, "role name")
                    .help("use letters, digits and `_`, starting with a letter (snake_case)"),
                );
            }
            let role = ir::Role {
                name: name.clone(),
                description: text(&decl.description),
                access_patterns: self.resolve_role_patterns(name, decl, patterns),
            };
            out.insert(name.value.clone(), role);
        }
        out
    }

    fn resolve_role_patterns(
        &mut self,
        role: &str,
        decl: &syntax::RoleDecl,
        patterns: &NamedMap<syntax::AccessPatternDecl>,
    ) -> Vec<crate::source::Spanned<String>> {
        let listed = &decl.access_patterns;
        if listed.value.0.is_empty() {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("role `{role}` lists no access pattern"),
                )
                .label(listed.span, "empty list")
                .help("list the access patterns the role may run, or remove the role"),
            );
        }
        let mut out: Vec<crate::source::Spanned<String>> = Vec::new();
        for name in &listed.value.0 {
            if patterns.get(&name.value).is_none() {
                let mut d = Diagnostic::new(
                    Code::UnknownAccessPattern,
                    format!("role `{role}` names unknown access pattern `{name}`"),
                )
                .label(name.span, "not an access pattern of this spec");
                d = d.help(
                    match did_you_mean(name, patterns.iter().map(|(n, _)| n.value.as_str())) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => "list names from `access_patterns`".to_owned(),
                    },
                );
                self.error(d);
            } else if !out.iter().any(|n| n.value == name.value) {
                out.push(name.clone());
            }
        }
        out
    }
}

//! Access patterns, roles and lint levels of the generated spec.

use std::fmt::Write as _;

use super::*;

impl Gen<'_> {
    /// Writes the access patterns; returns the names roles may list.
    pub(super) fn access_patterns(
        &mut self,
        table: &Table,
        entities: &[Entity],
        indexes: &[Index],
    ) -> Vec<String> {
        // Name, text, and whether a tenant's role may run it.
        let mut patterns: Vec<(String, String, bool)> = Vec::new();
        for (i, e) in entities.iter().enumerate() {
            let scoped = !e.global;
            // A get of an entity sharded at random is an error.
            if !e.random_shards || self.c.rarely() {
                let options = self.read_options(Read::Point);
                patterns.push((
                    format!("get_{i}"),
                    format!("{{ get: {}{options} }}", e.name),
                    scoped,
                ));
            }
            if self.c.half() {
                let text = self.query(e, table.has_sk, entities);
                patterns.push((format!("query_{i}"), text, scoped));
            }
            for (n, (index, pk, sk)) in e.index_keys.iter().enumerate() {
                if self.c.half() {
                    let text = self.index_query(e, index, pk.as_deref(), sk.as_deref(), indexes);
                    patterns.push((format!("by_index_{i}_{n}"), text, scoped));
                }
            }
        }
        let scoped = entities.iter().all(|e| !e.global);
        if self.c.half() {
            patterns.push(("write_all".to_owned(), self.transaction(entities), scoped));
        }
        if self.c.sometimes() {
            patterns.push(("load".to_owned(), self.batch(entities), scoped));
        }
        if self.c.sometimes() {
            patterns.push((
                "read_together".to_owned(),
                self.read_transaction(entities),
                scoped,
            ));
        }
        if !patterns.is_empty() {
            put!(self, 0, "access_patterns:");
        }
        for (name, text, _) in &patterns {
            put!(self, 2, "{name}: {text}");
        }
        // Rarely, roles may also list patterns of global entities: an error.
        let all = self.c.rarely();
        patterns
            .into_iter()
            .filter(|p| p.2 || all)
            .map(|p| p.0)
            .collect()
    }

    fn read_options(&mut self, read: Read) -> String {
        let mut out = String::new();
        // Strong consistency: gets and queries, not on a global index.
        if self.c.sometimes() && (read == Read::Point || self.c.rarely()) {
            out.push_str(", consistent_read: true");
        }
        if self.c.sometimes() {
            let per_second = self.number(&["10", "0.05", "100"]);
            let items = self.number(&["1", "5"]);
            let _ = write!(
                out,
                ", rate: {{ per_second: {per_second}, items: {items} }}"
            );
        }
        if self.c.rarely() {
            let _ = write!(out, ", description: {}", quote(self.c.pick(DESCRIPTIONS)));
        }
        if self.c.seldom() {
            // The format has no `limit` (pages are the caller's): an unknown field.
            out.push_str(", limit: 10");
        }
        out
    }

    fn query(&mut self, e: &Entity, has_sk: bool, entities: &[Entity]) -> String {
        // Rarely a literal where the entity has `<id>`: one its pattern
        // allows, one it does not, or one for the tenant.
        let pk = match self.c.usual(&[""], &["abc", "A-B", "x", "<tenant>"]) {
            "" => e.pk.clone(),
            "<tenant>" => e.pk.replacen("<tenant>", "acme", 1),
            literal => e.pk.replacen("<id>", literal, 1),
        };
        let mut text = format!("{{ query: {{ pk: {}", quote(&pk));
        let condition = match has_sk {
            true => self.sort_condition(e),
            // Rarely a sort-key condition on a table without a sort key.
            false => self.c.rarely().then(|| "X".to_owned()),
        };
        let narrowed = condition.is_some();
        if let Some(sk) = condition {
            let _ = write!(text, ", sk: {sk}");
        }
        text.push_str(" }");
        if self.c.half() {
            // Every entity the condition can match, in declaration order.
            let returns: Vec<&str> = entities
                .iter()
                .filter(|o| o.pk == e.pk && (!narrowed || o.name == e.name))
                .map(|o| o.name.as_str())
                .collect();
            let _ = write!(text, ", returns: [{}]", returns.join(", "));
        }
        if self.c.sometimes() {
            let _ = write!(
                text,
                ", order: {}",
                self.c.pick(&["descending", "ascending"])
            );
        }
        text.push_str(&self.read_options(Read::Point));
        text.push_str(" }");
        text
    }

    /// A sort-key condition that matches `e` alone, with every operator
    /// and alias; parameters `<from>` and `<to>` where `e.sk` has a placeholder.
    fn sort_condition(&mut self, e: &Entity) -> Option<String> {
        let sk = e.sk.as_deref()?;
        let prefix = &e.sk_prefix;
        let (from, to) = match e.sk_param {
            true => (format!("{prefix}<from>"), format!("{prefix}<to>")),
            false => (sk.to_owned(), sk.to_owned()),
        };
        Some(match self.c.below(10) {
            0 => quote(sk),
            1 => format!("{{ equals: {} }}", quote(sk)),
            2 | 3 if !prefix.is_empty() => format!("{{ begins_with: {} }}", quote(prefix)),
            4 => format!("{{ between: [{}, {}] }}", quote(&from), quote(&to)),
            5..=8 => {
                let op = self
                    .c
                    .pick(&["lt", "lte", "gt", "gte", "<", "<=", ">", ">="]);
                format!("{{ {}: {} }}", quote(op), quote(&from))
            }
            _ => return None,
        })
    }

    fn index_query(
        &mut self,
        e: &Entity,
        index: &str,
        pk: Option<&str>,
        sk: Option<&str>,
        indexes: &[Index],
    ) -> String {
        // A local index shares the table's partition key, and so other
        // entities' items: its sort key's literal (unique to `e`) selects `e`.
        let local = pk.is_none();
        let pk = pk.unwrap_or(&e.pk);
        let mut text = format!("{{ index: {index}, query: {{ pk: {}", quote(pk));
        if let Some(sk) = sk.filter(|_| local || self.c.half()) {
            let literal = &sk[..sk.find('<').unwrap_or(sk.len())];
            let _ = write!(text, ", sk: {{ begins_with: {} }}", quote(literal));
        }
        let _ = write!(text, " }}, returns: {}", e.name);
        let global = indexes.iter().any(|i| i.name == index && !i.local);
        let read = if global {
            Read::GlobalIndex
        } else {
            Read::Point
        };
        text.push_str(&self.read_options(read));
        text.push_str(" }");
        text
    }

    fn transaction(&mut self, entities: &[Entity]) -> String {
        let mut parts = Vec::new();
        for verb in ["put", "create", "update", "delete", "condition_check"] {
            if self.c.sometimes() || (parts.is_empty() && verb == "update") {
                let e = &entities[self.c.below(entities.len())];
                parts.push(format!("{verb}: [{}]", e.name));
            }
        }
        if self.c.sometimes() {
            parts.push(format!("max_items: {}", self.number(&["25", "100", "1"])));
        }
        let options = self.read_options(Read::Write);
        format!("{{ transaction: {{ {} }}{options} }}", parts.join(", "))
    }

    /// A read transaction: entities of one scope (both scopes rarely, an
    /// error), and rarely a write beside it (an error).
    fn read_transaction(&mut self, entities: &[Entity]) -> String {
        let mixed = self.c.rarely();
        let first_global = entities[0].global;
        let names: Vec<&str> = entities
            .iter()
            .filter(|e| mixed || e.global == first_global)
            .map(|e| e.name.as_str())
            .collect();
        let mut parts = vec![format!("get: [{}]", names.join(", "))];
        if self.c.rarely() {
            parts.push(format!("put: [{}]", names[0]));
        }
        if self.c.sometimes() {
            parts.push(format!("max_items: {}", self.number(&["10", "100", "1"])));
        }
        format!("{{ transaction: {{ {} }} }}", parts.join(", "))
    }

    fn batch(&mut self, entities: &[Entity]) -> String {
        let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
        let mut parts = Vec::new();
        for verb in ["get", "put", "delete"] {
            if self.c.half() || (parts.is_empty() && verb == "delete") {
                parts.push(format!("{verb}: [{}]", names.join(", ")));
            }
        }
        let options = self.read_options(Read::Write);
        format!("{{ batch: {{ {} }}{options} }}", parts.join(", "))
    }

    pub(super) fn roles(&mut self, patterns: &[String]) {
        if patterns.is_empty() || !self.c.sometimes() {
            return;
        }
        put!(self, 0, "roles:");
        for n in 0..self.c.range(1, 3) {
            let first = self.c.below(patterns.len());
            let picked = &patterns[first..=first + self.c.below(patterns.len() - first)];
            let missing = self.c.usual(&[""], &[", missing_pattern"]);
            put!(
                self,
                2,
                "role_{n}: {{ access_patterns: [{}{missing}] }}",
                picked.join(", ")
            );
        }
    }

    pub(super) fn lints(&mut self) {
        if !self.c.sometimes() {
            return;
        }
        put!(self, 0, "lints:");
        for code in [
            "unused_index",
            "gsi_write_isolation",
            "unused_entity",
            "key_size_unbounded",
        ] {
            if self.c.half() {
                put!(self, 2, "{code}: {}", self.c.pick(&["allow", "warn"]));
            }
        }
        if self.c.rarely() {
            // Denying a warning, an error that cannot be re-levelled, an unknown name.
            let code = self
                .c
                .pick(&["item_over_one_kb", "key_collision", "no_such_lint"]);
            put!(self, 2, "{code}: deny");
        }
    }
}

//! An entity's index keys, extras (version, timestamps, TTL, shards) and aggregate.

use std::fmt::Write as _;

use super::*;

impl Gen<'_> {
    pub(super) fn entity_index_keys(
        &mut self,
        i: usize,
        tenant_seg: &str,
        indexes: &[Index],
        attrs: &[Attr],
        sharded: bool,
    ) -> Vec<(String, Option<String>, Option<String>)> {
        let names: Vec<&str> = attrs
            .iter()
            .filter(|a| a.index_key)
            .map(|a| a.name.as_str())
            .collect();
        let mut keys = Vec::new();
        for index in indexes {
            if !self.c.half() {
                continue;
            }
            let attr = self.c.pick(&names);
            let shard = if sharded {
                self.c.maybe("|S#<shard>")
            } else {
                ""
            };
            let pk = (!index.local).then(|| format!("{tenant_seg}G{i}#<{attr}>{shard}"));
            let sk = index
                .has_sk
                .then(|| format!("I{i}#<{}>", self.c.pick(&names)));
            keys.push((index.name.clone(), pk, sk));
        }
        if !keys.is_empty() {
            put!(self, 4, "indexes:");
        }
        for (name, pk, sk) in &keys {
            let parts: Vec<String> = [("pk", pk), ("sk", sk)]
                .iter()
                .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}: {}", quote(v))))
                .collect();
            put!(self, 6, "{name}: {{ {} }}", parts.join(", "));
        }
        keys
    }

    pub(super) fn entity_extras(&mut self, attrs: &[Attr]) {
        if self.c.sometimes() {
            let w = self.number(&["100", "1000"]);
            let r = self.number(&["100", "3000"]);
            put!(
                self,
                4,
                "throughput: {{ writes_per_second: {w}, reads_per_second: {r} }}"
            );
        }
        if self.c.rarely() {
            // Not an integer, or not an attribute.
            put!(
                self,
                4,
                "version_attribute: {}",
                self.c.pick(&["id", "missing"])
            );
        }
        if self.c.rarely() {
            put!(self, 4, "examples: []");
        } else if self.c.rarely() {
            // Another attribute than `id` where there is one; `1` fits few types.
            let a = &attrs[(self.c.below(attrs.len() - 1) + 1) % attrs.len()].name;
            put!(self, 4, "examples: [{{ tenant: acme, id: x1, {a}: 1 }}]");
        }
    }

    /// A counter of `of`'s items, with a version attribute.
    pub(super) fn aggregate(&mut self, i: usize, table: &Table, of: &Entity) -> Entity {
        let name = format!("Count{i}");
        put!(self, 2, "{name}:");
        if of.global {
            put!(self, 4, "scope: global");
        }
        put!(self, 4, "attributes:");
        let group = of.attrs.iter().find(|a| a.key && a.name != "id");
        if let Some(g) = group {
            put!(self, 6, "{}: {}", g.name, g.decl);
        }
        put!(self, 6, "count: {{ type: integer, min: 0 }}");
        put!(self, 6, "version: {{ type: integer, min: 0 }}");
        let pk = match (&table.tenant, of.global) {
            (Some(t), false) => format!("TENANT#<{t}>|AGG{i}"),
            _ => format!("AGG{i}"),
        };
        let (sk, sk_prefix) = match group {
            _ if !table.has_sk => (None, ""),
            Some(g) => (Some(format!("C#<{}>", g.name)), "C#"),
            None => (Some("COUNT".to_owned()), ""),
        };
        let sk_text = sk
            .as_ref()
            .map_or(String::new(), |s| format!(", sk: {}", quote(s)));
        put!(self, 4, "key: {{ pk: {}{sk_text} }}", quote(&pk));
        // `stream` needs a table stream.
        let by = if table.stream || self.c.rarely() {
            "stream"
        } else {
            "transaction"
        };
        let group_by = group.map_or(String::new(), |g| format!("group_by: {}, ", g.name));
        let counted = &of.name;
        put!(
            self,
            4,
            "aggregate: {{ of: {counted}, {group_by}count: count, maintained_by: {by} }}"
        );
        put!(self, 4, "version_attribute: version");
        Entity {
            name,
            global: of.global,
            pk,
            sk_param: !sk_prefix.is_empty(),
            sk_prefix: sk_prefix.to_owned(),
            sk,
            ..Entity::default()
        }
    }
}

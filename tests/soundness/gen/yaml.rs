//! A generated spec written as YAML.

use std::fmt::Write as _;

use super::*;

impl Spec {
    /// The spec as YAML.
    pub fn yaml(&self) -> String {
        let mut y = String::new();
        let _ = writeln!(y, "# soundness harness, seed {}", self.seed);
        let ttl = if self.ttl { ", ttl: exp" } else { "" };
        let by_keys = if self.by_keys {
            ", entity_type: keys"
        } else {
            ""
        };
        let _ = writeln!(
            y,
            "version: 1\ntable: {{ name: Soundness, partition_key: pk, sort_key: sk{ttl}{by_keys} }}"
        );
        y.push_str("tenant: { placeholder: tenant, id_pattern: \"^[a-z0-9]{1,12}$\" }\n");
        y.push_str("lints: { gsi_write_isolation: allow, unused_index: allow, unused_entity: allow, low_cardinality_index: allow, scan_pattern: allow, key_case_folds: allow }\n");
        if !self.indexes.is_empty() {
            y.push_str("indexes:\n");
            for i in &self.indexes {
                let projection = match &i.projection {
                    None => "all".to_owned(),
                    Some(names) if names.is_empty() => "keys_only".to_owned(),
                    Some(names) => format!("[{}]", names.join(", ")),
                };
                if let Some(multi) = &i.multi {
                    let _ = writeln!(y, "  {}: {}", i.name, multi.yaml());
                } else if i.local {
                    let _ = writeln!(
                        y,
                        "  {}: {{ kind: local, sort_key: {:?}, projection: {projection} }}",
                        i.name, i.sk
                    );
                } else {
                    let _ = writeln!(
                        y,
                        "  {}: {{ partition_key: {:?}, sort_key: {:?}, projection: {projection} }}",
                        i.name, i.pk, i.sk
                    );
                }
            }
        }
        y.push_str("entities:\n");
        for e in &self.entities {
            let _ = writeln!(y, "  {}:\n    attributes:", e.name);
            for a in &e.attrs {
                let ty = a.ty.yaml();
                if a.optional {
                    let inner = ty.trim_start_matches('{').trim_end_matches('}').trim();
                    let inner = if ty.starts_with('{') {
                        inner.to_owned()
                    } else {
                        format!("type: {ty}")
                    };
                    let _ = writeln!(y, "      {}: {{ {inner}, optional: true }}", a.name);
                } else if a.name == "note" && self.seed % 2 == 0 {
                    // A required `note` of every other spec has a default
                    // (in its alphabet): it compiles and reads what is stored.
                    let inner = ty.trim_start_matches('{').trim_end_matches('}').trim();
                    let _ = writeln!(y, "      {}: {{ {inner}, default: \"zz\" }}", a.name);
                } else {
                    let _ = writeln!(y, "      {}: {ty}", a.name);
                }
            }
            if e.global {
                y.push_str("    scope: global\n");
            }
            if let (Some(count), Some(first)) = (e.shards, e.pk.attrs().next()) {
                if e.random_shards {
                    let _ = writeln!(y, "    shards: {{ count: {count}, by: random }}");
                } else {
                    let _ = writeln!(
                        y,
                        "    shards: {{ count: {count}, by: \"hash(<{first}>)\" }}"
                    );
                }
            }
            if e.versioned {
                y.push_str("    version_attribute: ver\n");
            }
            let _ = writeln!(
                y,
                "    key: {{ pk: \"{}\", sk: \"{}\" }}",
                e.pk.yaml(),
                e.sk.yaml()
            );
            if e.derived {
                let _ = writeln!(y, "    derived: {{ copied: \"D:{}\" }}", e.pk.yaml());
            }
            let multi = self
                .indexes
                .iter()
                .filter(|_| e.multi)
                .find_map(|i| Some((&i.name, i.multi.as_ref()?)));
            if e.indexes.len() > e.unlisted.len() || multi.is_some() {
                y.push_str("    indexes:\n");
                if let Some((name, multi)) = multi {
                    let _ = writeln!(y, "      {name}: {}", multi.entity_yaml());
                }
                for (name, pk, sk) in e
                    .indexes
                    .iter()
                    .filter(|(name, _, _)| !e.unlisted.contains(name))
                {
                    let local = self.indexes.iter().any(|i| i.name == *name && i.local);
                    if local {
                        let _ = writeln!(y, "      {name}: {{ sk: \"{}\" }}", sk.yaml());
                    } else {
                        let when = e
                            .members
                            .iter()
                            .find(|(index, _)| index == name)
                            .map(|(_, flag)| format!(", when: {flag}"))
                            .unwrap_or_default();
                        let _ = writeln!(
                            y,
                            "      {name}: {{ pk: \"{}\", sk: \"{}\"{when} }}",
                            pk.yaml(),
                            sk.yaml()
                        );
                    }
                }
            }
        }
        y.push_str("access_patterns:\n");
        // A `get` of an entity sharded at random is `sharded_get`.
        for e in self.entities.iter().filter(|e| !e.random_shards) {
            let _ = writeln!(y, "  get_{}: {{ get: {} }}", e.name.to_lowercase(), e.name);
        }
        self.patterns_yaml(&mut y);
        for scan in &self.scans {
            let _ = writeln!(y, "  {}:", scan.name);
            let _ = writeln!(y, "    scan: {}", self.entities[scan.entity].name);
            if let Some(i) = &scan.index {
                let _ = writeln!(y, "    index: {i}");
            }
            y.push_str(&filter_yaml(scan.filter.as_ref()).0);
        }
        y
    }

    /// The query access patterns.
    fn patterns_yaml(&self, y: &mut String) {
        for p in &self.patterns {
            let _ = write!(y, "  {}:\n", p.name);
            if let Some(i) = &p.index {
                let _ = writeln!(y, "    index: {i}");
            }
            let sk = match &p.sk {
                None => String::new(),
                Some((Op::Between, ops)) => format!(
                    ", sk: {{ between: [\"{}\", \"{}\"] }}",
                    ops[0].yaml(),
                    ops[1].yaml()
                ),
                Some((op, ops)) => format!(", sk: {{ {}: \"{}\" }}", op_yaml(*op), ops[0].yaml()),
            };
            let multi = p.multi.zip(
                self.indexes
                    .iter()
                    .find(|i| Some(&i.name) == p.index.as_ref())
                    .and_then(|i| i.multi.as_ref()),
            );
            match multi {
                Some((condition, multi)) => {
                    let _ = writeln!(y, "    query: {}", multi.query_yaml(condition));
                }
                None => {
                    let _ = writeln!(y, "    query: {{ pk: \"{}\"{sk} }}", p.pk.yaml());
                }
            }
            if p.descending {
                y.push_str("    order: descending\n");
            }
            if p.declares_returns {
                let _ = writeln!(y, "    returns: {}", self.entities[p.source].name);
            }
            if let Some(select) = &p.select {
                let _ = writeln!(y, "    select: [{}]", select.join(", "));
            }
            y.push_str(&filter_yaml(p.filter.as_ref()).0);
        }
    }

    pub(super) fn attr_type(&self, entity: usize, name: &str) -> Option<&Ty> {
        self.entities[entity]
            .attrs
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.ty)
    }
}

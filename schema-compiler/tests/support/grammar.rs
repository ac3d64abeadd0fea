//! A grammar-aware spec generator: YAML spec text in which every choice
//! (which sections, which attribute types, which key templates, which
//! numbers) is read from a byte string.
//!
//! The same bytes always give the same spec, and a byte string that runs
//! out reads as zeros, so that choice 0 is always the plain, well-formed
//! one: an empty input is a small valid spec, and a few rare byte values
//! reach the corners (numeric extremes, unsafe tenant patterns, lists
//! nested 70 deep, enums of thousands of values, templates of hundreds of
//! placeholders). That makes it fit both libFuzzer, whose coverage
//! guidance finds those byte values, and proptest, whose random bytes
//! mostly produce specs that resolve and reach the checker and emitters.
//!
//! Only `std`: the fuzz crate includes this file with `#[path]`.

use std::fmt::Write as _;

/// The spec text chosen by `bytes`.
pub fn spec_from_bytes(bytes: &[u8]) -> String {
    let mut g = Gen {
        c: Chooser { bytes, at: 0 },
        out: String::new(),
    };
    g.spec();
    g.out
}

/// Writes one line of the spec at an indentation.
macro_rules! put {
    ($g:expr, $indent:expr, $($fmt:tt)+) => {{
        let text = format!($($fmt)+);
        let _ = writeln!($g.out, "{:1$}{text}", "", $indent);
    }};
}

/// Reads choices from the bytes; past their end every choice is 0.
struct Chooser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Chooser<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        match n {
            0 | 1 => 0,
            2..=256 => self.byte() as usize % n,
            _ => (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n,
        }
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// One of `usual`, or rarely one of `rare`.
    fn usual<T: Copy>(&mut self, usual: &[T], rare: &[T]) -> T {
        if self.rarely() {
            self.pick(rare)
        } else {
            self.pick(usual)
        }
    }

    /// True for about one byte value in 64: the corners.
    fn rarely(&mut self) -> bool {
        self.byte() >= 252
    }

    /// True for one byte value in 256: corners that every attribute or
    /// access pattern could reach, so that one spec rarely has them.
    fn seldom(&mut self) -> bool {
        self.byte() == 255
    }

    /// True for about one byte value in 4: ordinary variation.
    fn sometimes(&mut self) -> bool {
        self.byte() >= 192
    }

    /// True for about one byte value in 2.
    fn half(&mut self) -> bool {
        self.byte() >= 128
    }

    /// `text` sometimes, else nothing.
    fn maybe<'t>(&mut self, text: &'t str) -> &'t str {
        if self.sometimes() {
            text
        } else {
            ""
        }
    }
}

/// Numbers at and around every bound the compiler or DynamoDB has.
const EXTREMES: &[&str] = &[
    "0",
    "1",
    "2",
    "38",
    "39",
    "100",
    "409600",
    "409601",
    "2147483647",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "-1",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    ".nan",
    ".inf",
    "-.inf",
    "1.5",
];

/// Safe tenant id patterns.
const TENANT_PATTERNS: &[&str] = &[
    "^[A-Za-z0-9_]{1,64}$",
    "^[a-z0-9]{3,32}$",
    "^[A-Za-z0-9_-]{1,64}$",
    "^[a-z]{1,8}$",
];

/// Every way for a tenant id pattern to be unsafe or broken: wildcards,
/// Unicode spaces and line separators, empty ids, delimiters, no anchors.
const UNSAFE_TENANT_PATTERNS: &[&str] = &[
    ".*",
    "^[a-z*]{1,10}$",
    "^[a-z?$]{1,10}$",
    "^[a-z\u{a0}]{1,8}$",
    "^[a-z\u{3000}]{1,8}$",
    "^[a-z\u{2028}]{1,8}$",
    "^[a-z]*$",
    "^$",
    "^[a-z#|]{1,8}$",
    "[a-z]+",
    "^(",
    "^\\p{L}{1,5}$",
];

/// String attribute patterns, bounded and without the key delimiters.
const STRING_PATTERNS: &[&str] = &[
    "^[a-z0-9]{1,20}$",
    "^[A-Za-z0-9_]{1,36}$",
    "^[A-Z]{3}$",
    "^[0-9a-f]{32}$",
];

const ODD_STRING_PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "^[^#|]{1,10}$",
    ".*",
    "^[a-z#]{1,4}$",
    "^[\u{a0}\u{3000}a-z]{1,4}$",
    "^(a|bb|ccc){1,200}$",
    "[",
];

/// Literals key templates start with (before a literal unique to the entity).
const PREFIXES: &[&str] = &["", "RATES|", "archived#", "T#", "X|Y#"];

/// Literals IAM, the key codec or the template syntax treat specially
/// (`<<` is a literal `<`; `<`, `<>` and `<1x>` are syntax errors).
const ODD_PREFIXES: &[&str] = &[
    "<<", ">", "*", "?", "$", "%", "é", "-", ":", "", "<", "<>", "<1x>",
];

const TYPES: &[&str] = &[
    "string", "integer", "boolean", "enum", "datetime", "decimal", "list", "map", "binary",
];

/// Descriptions with what Markdown, Jinja and YAML treat specially.
const DESCRIPTIONS: &[&str] = &[
    "As a user, I want it.",
    "Pipes | and *stars* and `ticks` and <b>tags</b>.",
    "Line one\nline two # not a comment",
    "\u{a0}\u{3000}\u{2028} spaces",
    "{{ jinja }} {% raw %} \"quoted\"",
];

/// An attribute, as far as templates care.
#[derive(Clone)]
struct Attr {
    name: String,
    /// The declaration after `name: `.
    decl: String,
    /// Can be a primary key placeholder.
    key: bool,
    /// Can be an index key placeholder (optional ones too).
    index_key: bool,
}

struct Table {
    has_sk: bool,
    stream: bool,
    provisioned: bool,
    tenant: Option<String>,
}

struct Index {
    name: String,
    local: bool,
    has_sk: bool,
}

/// An entity's keys, as access patterns need them.
#[derive(Default)]
struct Entity {
    name: String,
    global: bool,
    attrs: Vec<Attr>,
    pk: String,
    sk: Option<String>,
    /// The literal start of `sk`, for range conditions.
    sk_prefix: String,
    /// Whether `sk` ends with a placeholder, for parameters of range conditions.
    sk_param: bool,
    sharded: bool,
    random_shards: bool,
    /// Index name and its pk and sk templates.
    index_keys: Vec<(String, Option<String>, Option<String>)>,
}

/// What an access pattern reads, for `consistent_read`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// A get, or a query of the table or a local index.
    Point,
    GlobalIndex,
    /// A transaction or a batch.
    Write,
}

struct Gen<'a> {
    c: Chooser<'a>,
    out: String,
}

impl Gen<'_> {
    /// A number for a numeric field: one of `ordinary`, or rarely an extreme.
    fn number(&mut self, ordinary: &[&str]) -> String {
        self.c.usual(ordinary, EXTREMES).to_owned()
    }

    fn description(&mut self, indent: usize) {
        if self.c.sometimes() {
            let d = quote(self.c.pick(DESCRIPTIONS));
            put!(self, indent, "description: {d}");
        }
    }

    fn spec(&mut self) {
        let version = self.c.usual(&["1"], EXTREMES);
        put!(self, 0, "version: {version}");
        self.description(0);
        let table = self.table();
        let indexes = self.indexes(&table);
        let entities = self.entities(&table, &indexes);
        let patterns = self.access_patterns(&table, &entities, &indexes);
        self.roles(&patterns);
        self.lints();
    }

    /// The table and the tenant sections.
    fn table(&mut self) -> Table {
        put!(self, 0, "table:");
        let name = match (self.c.rarely(), self.c.below(3)) {
            (false, 0) => "SupportTicket".to_owned(),
            (false, _) => "orders.v2-prod".to_owned(),
            (true, 0) => "ab".to_owned(),
            (true, _) => "T".repeat(self.c.range(200, 300)),
        };
        put!(self, 2, "name: \"{name}\"");
        self.description(2);
        let pk = self.c.usual(
            &["pk", "{ name: pk, type: string }"],
            &["{ name: pk, type: number }", "{ name: pk, type: binary }"],
        );
        put!(self, 2, "partition_key: {pk}");
        let has_sk = !self.c.rarely();
        if has_sk {
            put!(self, 2, "sort_key: sk");
        }
        if self.c.sometimes() {
            put!(self, 2, "ttl: expires_at");
        }
        let provisioned = self.billing();
        let stream = self.c.half();
        if stream {
            let views = ["new_and_old_images", "keys_only", "new_image", "old_image"];
            put!(self, 2, "stream: {}", self.c.pick(&views));
        }
        if self.c.rarely() {
            put!(self, 2, "entity_type_attribute: kind");
        }
        if self.c.sometimes() {
            self.settings();
        }
        Table {
            has_sk,
            stream,
            provisioned,
            tenant: self.tenant(),
        }
    }

    /// Writes the billing mode; returns whether it is provisioned.
    fn billing(&mut self) -> bool {
        match self.c.below(8) {
            0..=3 => {}
            4 => put!(self, 2, "billing: on_demand"),
            5 => put!(self, 2, "billing: {{ mode: on_demand }}"),
            6 => {
                let r = self.number(&["5", "500"]);
                let w = self.number(&["5", "3000"]);
                put!(
                    self,
                    2,
                    "billing: {{ mode: provisioned, read_capacity: {r}, write_capacity: {w} }}"
                );
                return true;
            }
            // Provisioned without capacities: an error.
            _ if self.c.rarely() => put!(self, 2, "billing: provisioned"),
            _ => {}
        }
        false
    }

    /// The tenant section; returns the placeholder name when there is one.
    fn tenant(&mut self) -> Option<String> {
        if self.c.sometimes() {
            return None;
        }
        if self.c.sometimes() {
            put!(self, 0, "tenant: {{}}");
            return Some("tenant".to_owned());
        }
        put!(self, 0, "tenant:");
        let placeholder = self.c.pick(&["tenant", "org"]);
        put!(self, 2, "placeholder: {placeholder}");
        let pattern = self.c.usual(TENANT_PATTERNS, UNSAFE_TENANT_PATTERNS);
        put!(self, 2, "id_pattern: {}", quote(pattern));
        if self.c.sometimes() {
            put!(self, 2, "principal_tag: TenantId");
        }
        self.description(2);
        Some(placeholder.to_owned())
    }

    fn indexes(&mut self, table: &Table) -> Vec<Index> {
        let count = if self.c.rarely() {
            self.c.range(20, 27)
        } else {
            self.c.below(4)
        };
        if count > 0 {
            put!(self, 0, "indexes:");
        }
        (0..count).map(|n| self.index(n, table)).collect()
    }

    fn index(&mut self, n: usize, table: &Table) -> Index {
        let local = table.has_sk && self.c.sometimes();
        let name = format!("{}SI{n}", if local { "L" } else { "G" });
        put!(self, 2, "{name}:");
        let has_sk = local || !self.c.sometimes();
        if local {
            put!(self, 4, "kind: local");
            put!(self, 4, "sort_key: lsi{n}sk");
        } else {
            // Rarely a list: of one (the same key), of two (a multi-attribute
            // key the entities' single templates do not fit), one name twice,
            // or five (one over DynamoDB's limit).
            let pk = match self.c.usual(&[0], &[1, 2, 3, 4]) {
                1 => format!("[gsi{n}pk]"),
                2 => format!("[gsi{n}pk, id]"),
                3 => format!("[gsi{n}pk, gsi{n}pk]"),
                4 => "[k1, k2, k3, k4, k5]".to_owned(),
                _ => format!("gsi{n}pk"),
            };
            put!(self, 4, "partition_key: {pk}");
            if has_sk {
                put!(self, 4, "sort_key: gsi{n}sk");
            }
        }
        self.description(4);
        // Projected names must be attributes of an entity in the index.
        let projection = self
            .c
            .usual(&["", "all", "keys_only"], &["[id]", "[a1, missing]"]);
        if !projection.is_empty() {
            put!(self, 4, "projection: {projection}");
        }
        // Provisioned tables need the capacity of global indexes.
        if (table.provisioned && !local) != self.c.rarely() {
            let r = self.number(&["5", "100"]);
            let w = self.number(&["5", "100"]);
            put!(self, 4, "read_capacity: {r}");
            put!(self, 4, "write_capacity: {w}");
        }
        Index {
            name,
            local,
            has_sk,
        }
    }

    fn entities(&mut self, table: &Table, indexes: &[Index]) -> Vec<Entity> {
        put!(self, 0, "entities:");
        let mut entities: Vec<Entity> = Vec::new();
        for i in 0..self.c.range(1, 4) {
            let entity = self.entity(i, table, indexes, &entities);
            entities.push(entity);
        }
        if self.c.sometimes() {
            let aggregate = self.aggregate(entities.len(), table, &entities[0]);
            entities.push(aggregate);
        }
        entities
    }

    fn entity(&mut self, i: usize, table: &Table, indexes: &[Index], before: &[Entity]) -> Entity {
        let name = format!(
            "{}{i}",
            self.c.pick(&["Ticket", "Comment", "Order", "Rate"])
        );
        put!(self, 2, "{name}:");
        self.description(4);
        let tenant = table.tenant.as_deref();
        let global = tenant.is_some() && self.c.sometimes();
        if global {
            put!(self, 4, "scope: global");
        } else if (tenant.is_some() && self.c.sometimes()) || (tenant.is_none() && self.c.rarely())
        {
            // Explicit, or (rarely) without a tenant section: an error.
            put!(self, 4, "scope: tenant");
        }
        let attrs = self.attributes();
        let sharded = self.c.sometimes();
        let random_shards = sharded && self.c.half();
        // A tenant segment, a literal unique to the entity, then `<id>`.
        let tenant_seg = match (tenant, global) {
            (Some(t), false) => format!("TENANT#<{t}>|"),
            _ if self.c.rarely() => "TENANT#<tenant>|".to_owned(),
            _ => String::new(),
        };
        let mut pk = match before
            .iter()
            .find(|e| e.global == global && e.sharded == sharded)
        {
            // Share an item collection with an earlier entity.
            Some(e) if table.has_sk && self.c.sometimes() => e.pk.clone(),
            _ => {
                let prefix = self.literal_prefix();
                format!("{tenant_seg}{prefix}E{i}#<id>")
            }
        };
        if sharded && !pk.contains("<shard>") {
            pk.push_str(self.c.usual(&["|S#<shard>"], &["-<shard>"]));
        }
        let mut entity = Entity {
            name,
            global,
            pk,
            sharded,
            random_shards,
            ..Entity::default()
        };
        self.sort_key(&mut entity, i, table.has_sk, &attrs);
        let sk = entity
            .sk
            .as_ref()
            .map_or(String::new(), |s| format!(", sk: {}", quote(s)));
        put!(self, 4, "key: {{ pk: {}{sk} }}", quote(&entity.pk));
        entity.index_keys = self.entity_index_keys(i, &tenant_seg, indexes, &attrs, sharded);
        if sharded {
            let count = self.number(&["4", "10", "20", "2"]);
            let by = if random_shards {
                "random"
            } else {
                "\"hash(<id>)\""
            };
            put!(self, 4, "shards: {{ count: {count}, by: {by} }}");
        }
        self.entity_extras(&attrs);
        entity.attrs = attrs;
        entity
    }

    fn literal_prefix(&mut self) -> String {
        if !self.c.rarely() {
            return self.c.pick(PREFIXES).to_owned();
        }
        match self.c.below(2) {
            0 => "L".repeat(self.c.range(500, 3000)),
            _ => self.c.pick(ODD_PREFIXES).to_owned(),
        }
    }

    /// Chooses `e.sk`: a literal, or placeholders (hundreds, rarely) of
    /// key attributes behind a literal unique to the entity.
    fn sort_key(&mut self, e: &mut Entity, i: usize, has_sk: bool, attrs: &[Attr]) {
        if !has_sk {
            // Rarely a sort key on a table without one: an error.
            e.sk = self.c.rarely().then(|| "ORPHAN".to_owned());
            return;
        }
        if self.c.rarely() {
            // No sort key where the table has one: an error.
            return;
        }
        // Rarely optional attributes too: an error in a primary key.
        let optional = self.c.rarely();
        let keys: Vec<&str> = attrs
            .iter()
            .filter(|a| a.key || (optional && a.index_key))
            .map(|a| a.name.as_str())
            .collect();
        let count = match self.c.below(8) {
            0..=2 => 0,
            3..=6 => 1,
            _ if self.c.rarely() => self.c.range(100, 400),
            _ => 3,
        };
        if count == 0 || keys.is_empty() {
            e.sk = Some(format!("S{i}"));
            e.sk_prefix = format!("S{i}");
            return;
        }
        let placeholders: Vec<String> = (0..count)
            .map(|_| format!("<{}>", self.c.pick(&keys)))
            .collect();
        // Rarely placeholders side by side, which only fixed widths split.
        let delimiter = self.c.usual(&["#"], &[""]);
        e.sk_prefix = format!("S{i}#");
        e.sk = Some(format!("S{i}#{}", placeholders.join(delimiter)));
        e.sk_param = true;
    }

    fn attributes(&mut self) -> Vec<Attr> {
        put!(self, 4, "attributes:");
        let id_pattern = self.c.pick(STRING_PATTERNS);
        let mut attrs = vec![Attr {
            name: "id".to_owned(),
            decl: format!("{{ type: string, pattern: {} }}", quote(id_pattern)),
            key: true,
            index_key: true,
        }];
        let count = if self.c.rarely() {
            self.c.range(100, 300)
        } else {
            self.c.below(6)
        };
        for n in 1..=count {
            attrs.push(self.attribute(format!("a{n}")));
        }
        if self.c.sometimes() {
            // The TTL attribute: only epoch seconds are valid.
            let optional = self.c.maybe(", optional: true");
            let format = self
                .c
                .usual(&["epoch_seconds"], &["epoch_millis", "rfc3339"]);
            attrs.push(Attr {
                name: "expires_at".to_owned(),
                decl: format!("{{ type: datetime, format: {format}{optional} }}"),
                key: false,
                index_key: false,
            });
        }
        for a in &attrs {
            put!(self, 6, "{}: {}", a.name, a.decl);
        }
        attrs
    }

    fn attribute(&mut self, name: String) -> Attr {
        let ty = match self.c.seldom() {
            true => self.c.pick(&["strin", "uuid"]),
            false => self.c.pick(TYPES),
        };
        let optional = self.c.sometimes();
        if self.c.sometimes() && ty != "enum" {
            // Short form; a string without a pattern is unsafe in keys.
            let key = matches!(ty, "integer" | "boolean" | "datetime");
            return Attr {
                name,
                decl: format!("{ty}{}", if optional { "?" } else { "" }),
                key: key && !optional,
                index_key: key,
            };
        }
        let mut opts = vec![format!("type: {ty}")];
        let key = self.type_options(ty, &mut opts);
        if optional {
            opts.push("optional: true".to_owned());
        }
        if self.c.rarely() {
            opts.push(format!("typical_size: {}", self.number(&["100"])));
        }
        if self.c.rarely() {
            opts.push(format!("description: {}", quote(self.c.pick(DESCRIPTIONS))));
        }
        Attr {
            name,
            decl: format!("{{ {} }}", opts.join(", ")),
            key: key && !optional,
            index_key: key,
        }
    }

    /// Pushes the options of `ty`; returns whether it can be a key placeholder.
    fn type_options(&mut self, ty: &str, opts: &mut Vec<String>) -> bool {
        match ty {
            "string" => {
                let pattern = self.c.usual(STRING_PATTERNS, ODD_STRING_PATTERNS);
                opts.push(format!("pattern: {}", quote(pattern)));
                if self.c.sometimes() {
                    opts.push(format!("min_length: {}", self.number(&["1"])));
                    opts.push(format!("max_length: {}", self.number(&["36", "200"])));
                }
                if self.c.sometimes() {
                    opts.push("escape: true".to_owned());
                }
            }
            "integer" | "decimal" => {
                if self.c.half() {
                    opts.push(format!("min: {}", self.number(&["0", "-50", "1"])));
                    opts.push(format!("max: {}", self.number(&["999", "50", "99999999"])));
                }
                if ty == "decimal" && self.c.half() {
                    opts.push(format!("scale: {}", self.number(&["2", "0", "38"])));
                }
            }
            "datetime" => {
                if self.c.half() {
                    let f = self.c.pick(&["rfc3339", "epoch_seconds", "epoch_millis"]);
                    opts.push(format!("format: {f}"));
                }
                if self.c.half() {
                    let p = self.c.pick(&["millis", "seconds", "micros", "nanos"]);
                    opts.push(format!("precision: {p}"));
                }
            }
            "enum" => opts.push(format!("values: [{}]", self.enum_values())),
            "list" => opts.push(format!("items: {}", self.list_items())),
            _ => {}
        }
        if matches!(ty, "list" | "binary") && self.c.sometimes() {
            opts.push(format!("min_length: {}", self.number(&["0", "1"])));
            opts.push(format!("max_length: {}", self.number(&["20", "65536"])));
        }
        matches!(ty, "string" | "integer" | "datetime" | "enum" | "boolean")
    }

    /// A few values, or rarely thousands (or a duplicate).
    fn enum_values(&mut self) -> String {
        let count = if self.c.rarely() {
            self.c.range(1000, 3000)
        } else {
            self.c.range(1, 4)
        };
        let fixed = self.c.half();
        let mut values: Vec<String> = (0..count)
            .map(|n| {
                if fixed {
                    format!("V{n:04}")
                } else {
                    format!("V{n}")
                }
            })
            .collect();
        if self.c.rarely() {
            values.push(values[0].clone());
        }
        values.join(", ")
    }

    /// A list's element type, nested up to twice, or rarely up to 70 deep.
    fn list_items(&mut self) -> String {
        let depth = if self.c.rarely() {
            self.c.range(20, 70)
        } else {
            self.c.below(3)
        };
        let leaves = [
            "string",
            "integer",
            "{ type: enum, values: [S, M, L] }",
            "map",
        ];
        let mut text = self.c.pick(&leaves).to_owned();
        for _ in 0..depth {
            text = format!("{{ type: list, items: {text} }}");
        }
        text
    }
}

/// A YAML double-quoted string: `\` and `"` escaped, and every character
/// outside printable ASCII as `\u`/`\U`, so Unicode spaces and line
/// separators reach the value without breaking the YAML.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            ' '..='~' => out.push(ch),
            c if u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

// After `put!`, which it uses.
#[path = "grammar/entity.rs"]
mod entity;
#[path = "grammar/patterns.rs"]
mod patterns;
#[path = "grammar/settings.rs"]
mod settings;

//! The soundness harness's spec generator, run by `build.rs`.
//!
//! Each seed gives a random spec drawn from the spec language (tenant-
//! scoped entities with composite keys over pattern-checked and escaped
//! strings, offset integers, enums and booleans; overloaded and sparse
//! global indexes, inverted indexes keyed on the table's own attributes,
//! local indexes, a multi-attribute index keyed on the tenant and the
//! entities' own attributes (`gen/multi.rs`); queries with every sort-key
//! operator, both orders,
//! limits and small pages; a third of the tables tell entities by their
//! key shapes instead of an entity-type attribute), biased towards near-collisions: shared key
//! prefixes, literals that are prefixes of each other, enum values that
//! are prefixes of each other, one attribute name with two types. It also
//! draws the items to write and the calls to make, and encodes every key
//! a call should read with its own encoder, written from docs/spec.md
//! ("How values are written into keys"), not from the compiler.
//!
//! `build.rs` keeps the specs `check` accepts and renders, per spec, a
//! driver module (`render_driver`) that writes the items through the
//! generated repository, runs every call and hands the results and the
//! expected keys to the oracle in `singletable_tests::soundness`.

#[path = "gen/driver.rs"]
mod driver;
#[path = "gen/filters.rs"]
mod filters;
#[path = "gen/multi.rs"]
mod multi;
#[path = "gen/names.rs"]
mod names;
#[path = "gen/values.rs"]
mod values;
#[path = "gen/witness.rs"]
mod witness;
#[path = "gen/yaml.rs"]
mod yaml;

pub use driver::*;
use filters::*;
pub use multi::*;
pub use names::*;
pub use values::*;
pub use witness::*;

/// One attribute of an entity.
#[derive(Debug, Clone)]
pub struct Attr {
    pub name: String,
    pub ty: Ty,
    pub optional: bool,
}

/// One entity.
#[derive(Debug, Clone)]
pub struct Entity {
    pub name: String,
    pub attrs: Vec<Attr>,
    pub pk: Template,
    pub sk: Template,
    /// `(index, pk, sk)`; a local index's pk is the table's.
    pub indexes: Vec<(String, Template, Template)>,
    /// Listed in the multi-attribute index `MAI`, its key the tenant and
    /// the entity's own attributes.
    pub multi: bool,
    /// Indexes of `indexes` the entity is in by the attributes it writes,
    /// without listing them.
    pub unlisted: Vec<String>,
    /// `(index, flag)`: in the index only while the boolean `flag` is
    /// true (`when: flag`).
    pub members: Vec<(String, String)>,
    /// `scope: global`.
    pub global: bool,
    /// Write shards. Each item is in the shard the hash of its first
    /// partition attribute gives: by `hash(<attribute>)`, or, with
    /// `random_shards`, by `random` with the driver choosing that shard.
    pub shards: Option<u32>,
    /// `by: random`: no `get` pattern, items carry their `shard`.
    pub random_shards: bool,
    /// A derived attribute `copied`, the partition key's text, stored on
    /// every write (`derived:`).
    pub derived: bool,
    /// Has the version attribute `ver` (written by versioned upserts).
    pub versioned: bool,
}

/// An index: its name, key attribute names and whether it is local.
#[derive(Debug, Clone)]
pub struct Index {
    pub name: String,
    pub pk: String,
    pub sk: String,
    pub local: bool,
    /// The non-key attributes projected; `None`: all.
    pub projection: Option<Vec<&'static str>>,
    /// A multi-attribute key: `pk` is its first partition attribute (the
    /// tenant) and `sk` its first sort attribute.
    pub multi: Option<Multi>,
}

pub use crate::semantics::Op;

/// How an operator is written in a spec.
fn op_yaml(op: Op) -> &'static str {
    match op {
        Op::Equals => "equals",
        Op::BeginsWith => "begins_with",
        Op::Lt => "lt",
        Op::Lte => "lte",
        Op::Gt => "gt",
        Op::Gte => "gte",
        Op::Between => "between",
    }
}

/// An access pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub name: String,
    /// `None`: the table.
    pub index: Option<String>,
    pub pk: Template,
    pub sk: Option<(Op, Vec<Template>)>,
    pub descending: bool,
    /// The entity whose templates the pattern's came from: its attribute types type the parameters.
    pub source: usize,
    /// It reads global entities: no tenant in its keys.
    pub global: bool,
    /// Declares `returns: <the source entity>` (otherwise `check` infers them).
    pub declares_returns: bool,
    /// `select`: attributes of the source entity, read as a partial type.
    pub select: Option<Vec<String>>,
    /// A filter on `note`, its operands written or passed as parameters.
    pub filter: Option<crate::semantics::Filter>,
    /// On the multi-attribute index: which sort attributes it binds.
    pub multi: Option<MultiCondition>,
}

/// A scan access pattern of a global entity.
#[derive(Debug, Clone)]
pub struct ScanPattern {
    pub name: String,
    /// The entity scanned.
    pub entity: usize,
    /// `None`: the table; else an index of `ALL` the entity is in.
    pub index: Option<String>,
    /// A filter on `note`, as a query's.
    pub filter: Option<crate::semantics::Filter>,
}

/// A generated spec.
#[derive(Debug, Clone)]
pub struct Spec {
    pub seed: u64,
    /// The table's TTL attribute `exp`.
    pub ttl: bool,
    /// `entity_type: keys`: items carry no entity-type attribute, and every
    /// read tells entities apart by their primary keys' shapes.
    pub by_keys: bool,
    pub entities: Vec<Entity>,
    pub indexes: Vec<Index>,
    pub patterns: Vec<Pattern>,
    /// Scans of global entities, where items tell their entity by the
    /// entity-type attribute (the oracle reads it).
    pub scans: Vec<ScanPattern>,
}

const TENANTS: [&str; 2] = ["t1", "t10"];
const PARTITIONS: [&str; 4] = ["P#", "P#", "Q#", "PX#"];
const SORT_LITERALS: [&str; 8] = ["A", "A#", "AB#", "B#", "ITEM#", "ITEM#X#", "Z#", "PROFILE"];
const BOUND_LITERALS: [&str; 8] = [
    "A", "B", "ITEM#", "ITEM#5", "Z", "PROFILE", "A#a", "ITEM#X#",
];

/// The attribute pool, named like generated code's locals (`repo`,
/// `table`, `key`, `item`, `request`, …) so that a clash breaks the build:
/// one name keeps one type, except that `table` sometimes
/// gets other bounds (a parameter bound to attributes of two encodings).
fn pool(rng: &mut fastrand::Rng) -> Vec<(&'static str, Ty)> {
    vec![
        (
            "repo",
            Ty::Str {
                chars: "a-z",
                max: 3,
            },
        ),
        (
            "table",
            if rng.u8(..6) == 0 {
                Ty::Int { min: 0, max: 99 }
            } else {
                Ty::Int { min: 0, max: 999 }
            },
        ),
        ("key", Ty::Int { min: -50, max: 50 }),
        ("partitions", Ty::Enum(&["OPEN", "OPENED", "CLOSED"])),
        (
            "values",
            if rng.u8(..3) == 0 {
                Ty::Cased
            } else {
                Ty::Escaped
            },
        ),
        // Values holding the templates' delimiters: accepted where no key
        // (or `begins_with` prefix) reads two ways, as the last placeholder.
        (
            "decode",
            Ty::Str {
                chars: "a-z#-",
                max: 4,
            },
        ),
        (
            "item",
            Ty::Str {
                chars: "a-z0-9",
                max: 8,
            },
        ),
        ("request", Ty::Bool),
        ("scope", Ty::Datetime { digits: 0 }),
        ("client", Ty::Datetime { digits: 3 }),
    ]
}

/// An index's projection: mostly all; else keys only or a few attributes,
/// so that what a query returns must be read back out of the keys.
fn partial_projection(rng: &mut fastrand::Rng) -> Option<Vec<&'static str>> {
    match rng.u8(..4) {
        0 => Some(Vec::new()),
        1 => Some(vec!["note"]),
        _ => None,
    }
}

/// Draws a spec whose names are drawn from `vocabulary` (the names the
/// generated code keeps for itself, Rust's keywords and prelude names) as
/// well as from the generator's own (`E0`, `q1`, `note`).
pub fn generate(seed: u64, vocabulary: &[&str]) -> Spec {
    let mut spec = generate_plain(seed);
    name_from_vocabulary(&mut spec, vocabulary);
    draw_multi(&mut spec);
    spec
}

/// Draws a spec with the generator's own names.
fn generate_plain(seed: u64) -> Spec {
    let mut rng = fastrand::Rng::with_seed(seed);
    let inverted = rng.u8(..4) == 0;
    let ttl = rng.u8(..3) == 0;
    let indexes = draw_indexes(&mut rng, inverted);
    let count = 2 + rng.usize(..3);
    let mut entities = Vec::new();
    for e in 0..count {
        let entity = draw_entity(&mut rng, e, &indexes, (inverted, ttl), &entities);
        entities.push(entity);
    }

    let mut patterns = Vec::new();
    for n in 0..(3 + rng.usize(..4)) {
        patterns.push(draw_pattern(&mut rng, seed, n, &entities, &indexes));
    }
    // Drawn apart from the main sequence, so that the rest of each seed's
    // spec stays what it was.
    let by_keys = fastrand::Rng::with_seed(seed ^ 0xe7e7).u8(..3) == 0;
    let scans = if by_keys {
        Vec::new()
    } else {
        draw_scans(seed, &entities, &indexes)
    };
    Spec {
        seed,
        ttl,
        by_keys,
        entities,
        indexes,
        patterns,
        scans,
    }
}

/// The table's indexes: GSI1 (its key names any DynamoDB accepts), the
/// inverted index, GSI2 (GSI1's partition key with the table's sort key)
/// and an LSI, each drawn or not.
fn draw_indexes(rng: &mut fastrand::Rng, inverted: bool) -> Vec<Index> {
    let mut indexes = Vec::new();
    // Key attribute names are any name DynamoDB accepts.
    let (gsi_pk, gsi_sk) = [
        ("gsi1pk", "gsi1sk"),
        ("GSI1-PK", "GSI1.SK"),
        ("Status#Time", "sort key"),
        ("1pk", "é sk"),
    ][rng.usize(..4)];
    if rng.bool() {
        indexes.push(Index {
            name: "GSI1".into(),
            pk: gsi_pk.into(),
            sk: gsi_sk.into(),
            local: false,
            projection: partial_projection(rng),
            multi: None,
        });
    }
    if inverted {
        indexes.push(Index {
            name: "Inverted".into(),
            pk: "sk".into(),
            sk: "pk".into(),
            local: false,
            projection: None,
            multi: None,
        });
    }
    if !indexes.is_empty() && indexes[0].name == "GSI1" && rng.u8(..3) == 0 {
        indexes.push(Index {
            name: "GSI2".into(),
            pk: gsi_pk.into(),
            sk: "sk".into(),
            local: false,
            projection: None,
            multi: None,
        });
    }
    if rng.u8(..4) == 0 {
        indexes.push(Index {
            name: "LSI1".into(),
            pk: "pk".into(),
            sk: "lsi1sk".into(),
            local: true,
            projection: partial_projection(rng),
            multi: None,
        });
    }
    indexes
}

/// Entity `e`: its attributes from a pool, its table keys, the indexes it
/// lists (sometimes sparse) and those its keys put it in unlisted.
fn draw_entity(
    rng: &mut fastrand::Rng,
    e: usize,
    indexes: &[Index],
    (inverted, ttl): (bool, bool),
    entities: &[Entity],
) -> Entity {
    let pool = pool(rng);
    let pick = |rng: &mut fastrand::Rng| pool[rng.usize(..pool.len())].clone();
    let mut attrs: Vec<Attr> = Vec::new();
    let use_attr = |attrs: &mut Vec<Attr>, (name, ty): (&'static str, Ty), optional: bool| {
        if !attrs.iter().any(|a| a.name == name) {
            attrs.push(Attr {
                name: name.into(),
                ty,
                optional,
            });
        }
        name.to_owned()
    };
    let global = rng.u8(..5) == 0;
    let versioned = !global && rng.u8(..5) == 0;
    let shards = (!versioned && rng.u8(..6) == 0).then_some(3);
    let random_shards = shards.is_some() && rng.bool();
    let tenant = if global {
        vec![Seg::Lit("G#".into())]
    } else {
        vec![Seg::Lit("T#".into()), Seg::Tenant, Seg::Lit("|".into())]
    };
    let mut pk = tenant.clone();
    // Mostly the shared partition `P#<p>` (collections, near
    // collisions between entities); else a partition of one attribute.
    let (literal, attr) = if rng.u8(..3) > 0 {
        ("P#".to_owned(), pool[0].clone())
    } else {
        let (name, ty) = pick(rng);
        let literal = PARTITIONS[rng.usize(..PARTITIONS.len())];
        (
            format!("{}{name}#", literal.trim_end_matches('#')),
            (name, ty),
        )
    };
    pk.push(Seg::Lit(literal));
    let first = use_attr(&mut attrs, attr, false);
    pk.push(Seg::Attr(first.clone()));
    if shards.is_some() {
        pk.push(Seg::Lit("|S#".into()));
        pk.push(Seg::Shard);
    }
    let mut sk = if inverted { tenant.clone() } else { Vec::new() };
    let lit = SORT_LITERALS[rng.usize(..SORT_LITERALS.len())];
    sk.push(Seg::Lit(lit.into()));
    let holes = if lit.ends_with('#') {
        1 + rng.usize(..2)
    } else {
        rng.usize(..2)
    };
    for i in 0..holes {
        if i > 0 || !lit.ends_with('#') {
            sk.push(Seg::Lit("#".into()));
        }
        sk.push(Seg::Attr(use_attr(&mut attrs, pick(rng), false)));
    }
    let mut entity_indexes = Vec::new();
    let mut members = Vec::new();
    for index in indexes {
        if index.name == "Inverted" || index.name == "GSI2" || versioned || !rng.bool() {
            continue;
        }
        // Sometimes sparse: an optional attribute only this index uses.
        let sparse = rng.u8(..3) == 0;
        let mut isk = vec![Seg::Lit(
            SORT_LITERALS[rng.usize(..SORT_LITERALS.len())].into(),
        )];
        if !matches!(isk[0], Seg::Lit(ref l) if l.ends_with('#')) {
            isk.push(Seg::Lit("#".into()));
        }
        let (name, ty) = pick(rng);
        let attr = if sparse {
            let sparse_name = format!("o{name}");
            if !attrs.iter().any(|a| a.name == sparse_name) {
                attrs.push(Attr {
                    name: sparse_name.clone(),
                    ty,
                    optional: true,
                });
            }
            sparse_name
        } else {
            use_attr(&mut attrs, (name, ty), false)
        };
        isk.push(Seg::Attr(attr));
        let ipk = if index.local {
            Template(pk.clone())
        } else {
            let mut ipk = tenant.clone();
            // Mostly the shared partition `G`, where entities meet.
            ipk.push(Seg::Lit(["S#", "G", "G", "P#"][rng.usize(..4)].into()));
            if !matches!(ipk.last(), Some(Seg::Lit(l)) if l == "G") {
                ipk.push(Seg::Attr(use_attr(&mut attrs, pick(rng), false)));
            }
            if shards.is_some() {
                ipk.push(Seg::Lit("|S#".into()));
                ipk.push(Seg::Shard);
            }
            Template(ipk)
        };
        // GSI1 alone holds its key attributes (GSI2 shares them): the
        // entity is sometimes in it only while `request` is true.
        if index.name == "GSI1" && !indexes.iter().any(|i| i.name == "GSI2") && rng.u8(..3) == 0 {
            members.push((
                index.name.clone(),
                use_attr(&mut attrs, ("request", Ty::Bool), rng.bool()),
            ));
        }
        entity_indexes.push((index.name.clone(), ipk, Template(isk)));
    }
    // Indexes keyed on attributes the entity writes anyway hold its
    // items whether or not it lists them: the inverted index (the
    // table's keys swapped), and GSI2 (GSI1's partition key with the
    // table's sort key).
    let mut unlisted = Vec::new();
    if let Some(gsi1) = entity_indexes
        .iter()
        .find(|(name, _, _)| name == "GSI1")
        .cloned()
    {
        if indexes.iter().any(|i| i.name == "GSI2") {
            entity_indexes.push(("GSI2".into(), gsi1.1, Template(sk.clone())));
            // The first entity in it lists it, the others mostly not.
            let first = !entities
                .iter()
                .any(|e: &Entity| e.indexes.iter().any(|(i, _, _)| i == "GSI2"));
            if !first && rng.u8(..4) > 0 {
                unlisted.push("GSI2".to_owned());
            }
        }
    }
    if inverted {
        entity_indexes.push((
            "Inverted".into(),
            Template(sk.clone()),
            Template(pk.clone()),
        ));
        if e > 0 && rng.u8(..4) > 0 {
            unlisted.push("Inverted".to_owned());
        }
    }
    draw_plain_attributes(rng, &mut attrs, versioned, ttl);
    Entity {
        name: format!("E{e}"),
        attrs,
        pk: Template(pk),
        sk: Template(sk),
        indexes: entity_indexes,
        multi: false,
        unlisted,
        members,
        derived: rng.u8(..4) == 0,
        global,
        shards,
        random_shards,
        versioned,
    }
}

/// The attributes outside every key: `note` (filtered and conditioned on),
/// the version, a record and the TTL attribute, each drawn or not.
fn draw_plain_attributes(
    rng: &mut fastrand::Rng,
    attrs: &mut Vec<Attr>,
    versioned: bool,
    ttl: bool,
) {
    attrs.push(Attr {
        name: "note".into(),
        ty: Ty::Str {
            chars: "a-z",
            max: 3,
        },
        optional: versioned || rng.bool(),
    });
    if versioned {
        attrs.push(Attr {
            name: "ver".into(),
            ty: Ty::Int {
                min: 1,
                max: 1_000_000,
            },
            optional: false,
        });
    }
    if rng.u8(..3) == 0 {
        attrs.push(Attr {
            name: "info".into(),
            ty: Ty::Record,
            optional: rng.bool(),
        });
    }
    if ttl && rng.bool() {
        attrs.push(Attr {
            name: "exp".into(),
            ty: Ty::Epoch,
            optional: rng.bool(),
        });
    }
}

/// Query pattern `n` of one entity: its key condition, selection and filter.
fn draw_pattern(
    rng: &mut fastrand::Rng,
    seed: u64,
    n: usize,
    entities: &[Entity],
    indexes: &[Index],
) -> Pattern {
    let source = rng.usize(..entities.len());
    let e = &entities[source];
    let choice = rng.usize(..=e.indexes.len());
    let (index, pk, sk) = match choice {
        0 => (None, e.pk.clone(), e.sk.clone()),
        i => {
            let (name, pk, sk) = &e.indexes[i - 1];
            (Some(name.clone()), pk.clone(), sk.clone())
        }
    };
    let bound = |rng: &mut fastrand::Rng| -> Template {
        match rng.u8(..3) {
            0 => sk.clone(),
            1 => {
                let prefixes = sk.delimited_prefixes();
                if prefixes.is_empty() {
                    sk.clone()
                } else {
                    prefixes[rng.usize(..prefixes.len())].clone()
                }
            }
            _ => {
                let mut t: Vec<Seg> = if sk.0.get(1) == Some(&Seg::Tenant) {
                    sk.0[..3].to_vec()
                } else {
                    Vec::new()
                };
                t.push(Seg::Lit(
                    BOUND_LITERALS[rng.usize(..BOUND_LITERALS.len())].into(),
                ));
                Template(t)
            }
        }
    };
    let cond = match rng.u8(..9) {
        0 | 1 => None,
        2 => Some((Op::Equals, vec![sk.clone()])),
        3 => {
            let prefixes = sk.delimited_prefixes();
            (!prefixes.is_empty()).then(|| {
                (
                    Op::BeginsWith,
                    vec![prefixes[rng.usize(..prefixes.len())].clone()],
                )
            })
        }
        4 => Some((Op::Lt, vec![bound(rng)])),
        5 => Some((Op::Lte, vec![bound(rng)])),
        6 => Some((Op::Gt, vec![bound(rng)])),
        7 => Some((Op::Gte, vec![bound(rng)])),
        _ => Some((Op::Between, vec![bound(rng), bound(rng)])),
    };
    // Half the table queries of an entity sharded at random name one
    // whole key per shard: the shards are read with BatchGetItem.
    // Drawn apart from the main sequence.
    let cond = if e.random_shards
        && index.is_none()
        && fastrand::Rng::with_seed(seed ^ 0xba7c_4 ^ n as u64).bool()
    {
        Some((Op::Equals, vec![sk.clone()]))
    } else {
        cond
    };
    // Drawn apart from the main sequence (see `by_keys`); only where
    // every attribute is carried (the table, or an index of `ALL`), so
    // that the selection never names what the index leaves out.
    let mut picks = fastrand::Rng::with_seed(seed ^ 0x5e1e_c7 ^ n as u64);
    let carries_all = index.as_ref().is_none_or(|i| {
        indexes
            .iter()
            .any(|x| x.name == *i && x.projection.is_none())
    });
    let select = (carries_all && picks.u8(..4) == 0).then(|| {
        let mut names: Vec<String> = e
            .attrs
            .iter()
            .filter(|_| picks.bool())
            .map(|a| a.name.clone())
            .collect();
        if names.is_empty() {
            names.extend(e.attrs.first().map(|a| a.name.clone()));
        }
        names
    });
    // A filter on `note` (every entity's, never in a key), where the
    // index carries it; drawn apart from the main sequence too.
    let carries_note = index.as_ref().is_none_or(|i| {
        indexes
            .iter()
            .any(|x| x.name == *i && x.projection.as_ref().is_none_or(|p| p.contains(&"note")))
    });
    let filter = (carries_note && picks.u8(..3) == 0).then(|| draw_filter(&mut picks));
    Pattern {
        name: format!("q{n}"),
        index,
        pk,
        sk: cond,
        descending: rng.bool(),
        source,
        global: e.global,
        declares_returns: rng.u8(..5) < 2,
        select,
        filter,
        multi: None,
    }
}

/// Scans of the global entities, drawn apart from the main sequence: of
/// the table, or of an index that projects everything and that the entity
/// is in, some filtered on `note`.
fn draw_scans(seed: u64, entities: &[Entity], indexes: &[Index]) -> Vec<ScanPattern> {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5ca7_7e57);
    let mut scans = Vec::new();
    for (n, (i, e)) in entities
        .iter()
        .enumerate()
        .filter(|(_, e)| e.global)
        .enumerate()
    {
        if rng.u8(..3) == 0 {
            continue;
        }
        let whole: Vec<&String> = e
            .indexes
            .iter()
            .map(|(name, _, _)| name)
            .filter(|name| {
                indexes
                    .iter()
                    .any(|x| x.name == **name && x.projection.is_none())
            })
            .collect();
        let index =
            (!whole.is_empty() && rng.bool()).then(|| whole[rng.usize(..whole.len())].clone());
        let filter = (rng.u8(..3) == 0).then(|| draw_filter(&mut rng));
        scans.push(ScanPattern {
            name: format!("s{n}"),
            entity: i,
            index,
            filter,
        });
    }
    scans
}

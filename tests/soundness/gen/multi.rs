//! A multi-attribute index, drawn for half the specs: `MAI`, whose
//! partition key is the tenant (`mt`, written from the handle) and one of
//! the entities' own attributes, and whose sort key is one or two more
//! (numbers among them, compared by value); the tenant entities that list
//! it, a sort attribute sometimes optional (the item is in the index only
//! when it has every key attribute); and queries binding every partition
//! attribute and a run of sort attributes from the first, with any
//! operator on the last one named. Drawn apart from the main sequence, so
//! that the rest of each seed's spec stays what it was.

use super::*;

/// The attributes of a multi-attribute index key after the tenant, each
/// with whether it is a number.
#[derive(Debug, Clone)]
pub struct Multi {
    /// The partition key's attributes after `mt`.
    pub partition: Vec<(String, bool)>,
    /// The sort key's attributes, in order.
    pub sort: Vec<(String, bool)>,
}

/// Which sort attributes of the multi-attribute index a query binds.
#[derive(Debug, Clone, Copy)]
pub struct MultiCondition {
    /// The sort attributes bound by equality, from the first.
    pub equal: usize,
    /// The operator on the next one, if any.
    pub last: Option<Op>,
}

/// The name of the multi-attribute index's tenant attribute.
pub const MULTI_TENANT: &str = "mt";

/// The attributes of the pool a multi-attribute key may hold as they are
/// stored: strings, enums, datetimes (as text) and integers (as numbers).
const KEYABLE: [&str; 6] = ["repo", "key", "partitions", "item", "scope", "client"];

pub(super) fn draw_multi(spec: &mut Spec) {
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x6a17_1de5);
    if rng.bool() {
        return;
    }
    let mut keyable: Vec<(&'static str, Ty)> = pool(&mut rng)
        .into_iter()
        .filter(|(name, _)| KEYABLE.contains(name))
        .collect();
    rng.shuffle(&mut keyable);
    // Half the indexes sort first by the number `key` (whose pool holds
    // values that order differently as text: -50 < -49, "-49" < "-50").
    if rng.bool() {
        if let Some(at) = keyable.iter().position(|(name, _)| *name == "key") {
            let key = keyable.remove(at);
            keyable.insert(1.min(keyable.len()), key);
        }
    }
    let sort_count = 1 + rng.usize(..2);
    let numeric = |ty: &Ty| matches!(ty, Ty::Int { .. });
    let parts: Vec<(&'static str, Ty)> = keyable.into_iter().take(1 + sort_count).collect();
    let multi = Multi {
        partition: vec![(parts[0].0.to_owned(), numeric(&parts[0].1))],
        sort: parts[1..]
            .iter()
            .map(|(name, ty)| ((*name).to_owned(), numeric(ty)))
            .collect(),
    };
    let mut listed = Vec::new();
    for (i, e) in spec.entities.iter_mut().enumerate() {
        if e.global || !rng.bool() {
            continue;
        }
        for (n, (name, ty)) in parts.iter().enumerate() {
            if e.attrs.iter().any(|a| a.name == *name) {
                continue;
            }
            // The last sort attribute is sometimes optional: an item
            // without it is in no partition of the index.
            let optional = n == parts.len() - 1 && rng.u8(..3) == 0;
            e.attrs.push(Attr {
                name: (*name).to_owned(),
                ty: ty.clone(),
                optional,
            });
        }
        e.multi = true;
        listed.push(i);
    }
    if listed.is_empty() {
        return;
    }
    for n in 0..(1 + rng.usize(..2)) {
        let equal = rng.usize(..=multi.sort.len());
        let last = (equal < multi.sort.len() && rng.bool()).then(|| {
            let mut ops = vec![Op::Equals, Op::Lt, Op::Lte, Op::Gt, Op::Gte, Op::Between];
            if !multi.sort[equal].1 {
                ops.push(Op::BeginsWith);
            }
            ops[rng.usize(..ops.len())]
        });
        spec.patterns.push(Pattern {
            name: format!("m{n}"),
            index: Some("MAI".to_owned()),
            pk: Template(vec![Seg::Tenant]),
            sk: None,
            descending: rng.bool(),
            source: listed[rng.usize(..listed.len())],
            global: false,
            declares_returns: false,
            select: None,
            filter: None,
            multi: Some(MultiCondition { equal, last }),
        });
    }
    spec.indexes.push(Index {
        name: "MAI".to_owned(),
        pk: MULTI_TENANT.to_owned(),
        sk: multi.sort[0].0.clone(),
        local: false,
        projection: None,
        multi: Some(multi),
    });
}

impl Multi {
    /// The index's declaration, its key attributes as lists.
    pub(super) fn yaml(&self) -> String {
        let attribute = |(name, number): &(String, bool)| {
            if *number {
                format!("{{ name: {name:?}, type: number }}")
            } else {
                format!("{name:?}")
            }
        };
        let partition: Vec<String> = std::iter::once(format!("{MULTI_TENANT:?}"))
            .chain(self.partition.iter().map(attribute))
            .collect();
        let sort: Vec<String> = self.sort.iter().map(attribute).collect();
        format!(
            "{{ partition_key: [{}], sort_key: [{}] }}",
            partition.join(", "),
            sort.join(", ")
        )
    }

    /// An entity's templates: the tenant, then its own attributes.
    pub(super) fn entity_yaml(&self) -> String {
        let template = |(name, _): &(String, bool)| format!("\"<{name}>\"");
        let partition: Vec<String> = std::iter::once("\"<tenant>\"".to_owned())
            .chain(self.partition.iter().map(template))
            .collect();
        let sort: Vec<String> = self.sort.iter().map(template).collect();
        format!(
            "{{ pk: [{}], sk: [{}] }}",
            partition.join(", "),
            sort.join(", ")
        )
    }

    /// A query's key condition: every partition attribute, the sort
    /// attributes `c` binds, by name; a `between` takes `<lo>` and `<hi>`.
    pub(super) fn query_yaml(&self, c: MultiCondition) -> String {
        let mut pk = vec![format!("{MULTI_TENANT:?}: \"<tenant>\"")];
        pk.extend(
            self.partition
                .iter()
                .map(|(name, _)| format!("{name:?}: \"<{name}>\"")),
        );
        let mut sk: Vec<String> = self.sort[..c.equal]
            .iter()
            .map(|(name, _)| format!("{name:?}: \"<{name}>\""))
            .collect();
        if let Some(op) = c.last {
            let name = &self.sort[c.equal].0;
            let condition = match op {
                Op::Between => "{ between: [\"<lo>\", \"<hi>\"] }".to_owned(),
                op => format!("{{ {}: \"<{name}>\" }}", op_yaml(op)),
            };
            sk.push(format!("{name:?}: {condition}"));
        }
        let sk = if sk.is_empty() {
            String::new()
        } else {
            format!(", sk: {{ {} }}", sk.join(", "))
        };
        format!("{{ pk: {{ {} }}{sk} }}", pk.join(", "))
    }
}

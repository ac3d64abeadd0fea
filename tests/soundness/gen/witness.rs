//! Witnesses of the checker's refusals: two items of different entities whose keys meet.

use super::*;

/// The attribute placeholders of `templates`, each once, in order.
fn attr_names<'t>(templates: impl Iterator<Item = &'t Template>) -> Vec<&'t str> {
    let mut names: Vec<&str> = Vec::new();
    for a in templates.flat_map(Template::attrs) {
        if !names.contains(&a) {
            names.push(a);
        }
    }
    names
}

/// The value pool of each name, typed as `entity`'s attribute of that name.
fn pools(names: &[&str], entity: &Entity) -> Vec<Vec<Value>> {
    names
        .iter()
        .map(|n| {
            entity
                .attrs
                .iter()
                .find(|a| a.name == *n)
                .map_or_else(Vec::new, |a| a.ty.pool())
        })
        .collect()
}

/// Every choice of one value from each pool (as indexes), in order: an
/// odometer over the pools' sizes. None when a pool is empty.
fn combinations(pools: &[Vec<Value>]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let mut next = (!pools.iter().any(Vec::is_empty)).then(|| vec![0; pools.len()]);
    std::iter::from_fn(move || {
        let current = next.take()?;
        let mut advanced = current.clone();
        for (i, pool) in pools.iter().enumerate() {
            advanced[i] += 1;
            if advanced[i] < pool.len() {
                next = Some(advanced);
                break;
            }
            advanced[i] = 0;
        }
        Some(current)
    })
}

/// The key text of each name for one combination.
fn lookup<'a>(
    names: &'a [&str],
    pools: &'a [Vec<Value>],
    choice: &'a [usize],
) -> impl Fn(&str) -> Option<String> + 'a {
    move |n| {
        names
            .iter()
            .position(|m| *m == n)
            .map(|i| pools[i][choice[i]].key.clone())
    }
}

/// The keys an entity's items can have over the value pools (optional
/// attributes present): per item, the table's `(pk, sk)` and each index's
/// `(index, pk, sk)`. At most `cap` items.
fn item_keys(e: &Entity, tenant: &str, cap: usize) -> Vec<Vec<(Option<String>, String, String)>> {
    let templates = [&e.pk, &e.sk]
        .into_iter()
        .chain(e.indexes.iter().flat_map(|(_, pk, sk)| [pk, sk]));
    let names = attr_names(templates);
    let pools = pools(&names, e);
    combinations(&pools)
        .take(cap)
        .flat_map(|choice| {
            // An item sharded at random may be written to any shard: one
            // possible item per shard.
            let first = {
                let lookup = lookup(&names, &pools, &choice);
                e.pk.attrs().next().and_then(|a| lookup(a))
            };
            let shards: Vec<u32> = match (e.shards, first) {
                (Some(count), _) if e.random_shards => (0..count).collect(),
                (Some(count), Some(v)) => {
                    vec![hash_shard(&v, count)]
                }
                _ => vec![0],
            };
            shards.into_iter().map(move |shard| (choice.clone(), shard))
        })
        .map(|(choice, shard)| {
            let lookup = lookup(&names, &pools, &choice);
            let key = |pk: &Template, sk: &Template| {
                Some((
                    pk.encode(tenant, shard, &lookup)?,
                    sk.encode(tenant, shard, &lookup)?,
                ))
            };
            let table = key(&e.pk, &e.sk).map(|(pk, sk)| (None, pk, sk));
            let indexes = e.indexes.iter().filter_map(|(index, pk, sk)| {
                key(pk, sk).map(|(pk, sk)| (Some(index.clone()), pk, sk))
            });
            table.into_iter().chain(indexes).collect()
        })
        .collect()
}

/// A witness that two entities write the same primary key, searched over
/// the value pools: what makes a `key_collision` real.
pub fn collision_witness(spec: &Spec) -> Option<String> {
    let keys: Vec<Vec<(String, String)>> = spec
        .entities
        .iter()
        .map(|e| {
            item_keys(e, TENANTS[0], 20_000)
                .into_iter()
                .filter_map(|k| {
                    k.into_iter()
                        .find(|(i, _, _)| i.is_none())
                        .map(|(_, pk, sk)| (pk, sk))
                })
                .collect()
        })
        .collect();
    for (a, ka) in keys.iter().enumerate() {
        let set: std::collections::HashSet<&(String, String)> = ka.iter().collect();
        for (b, kb) in keys.iter().enumerate().skip(a + 1) {
            if let Some(k) = kb.iter().find(|k| set.contains(k)) {
                return Some(format!(
                    "{} and {} both write {k:?}",
                    spec.entities[a].name, spec.entities[b].name
                ));
            }
        }
    }
    None
}

/// A witness that a pattern declaring its returns reads an item of an
/// entity it does not declare, searched over the value pools (parameters
/// typed as the declared entity's attributes): what makes a
/// `key_space_overlap` real.
pub fn overlap_witness(spec: &Spec) -> Option<String> {
    for p in spec.patterns.iter().filter(|p| p.declares_returns) {
        let source = &spec.entities[p.source];
        let names =
            attr_names(std::iter::once(&p.pk).chain(p.sk.iter().flat_map(|(_, ops)| ops.iter())));
        let pools = pools(&names, source);
        // The other entities' keys on the pattern's index, by partition.
        let mut partitions: std::collections::HashMap<String, Vec<(usize, String)>> =
            Default::default();
        for (i, e) in spec.entities.iter().enumerate() {
            if i == p.source || e.global != p.global {
                continue;
            }
            for keys in item_keys(e, TENANTS[0], 20_000) {
                for (index, pk, sk) in keys {
                    if index == p.index {
                        partitions.entry(pk).or_default().push((i, sk));
                    }
                }
            }
        }
        for choice in combinations(&pools) {
            let lookup = lookup(&names, &pools, &choice);
            for shard in 0..source.shards.unwrap_or(1) {
                let Some(pk) = p.pk.encode(TENANTS[0], shard, &lookup) else {
                    continue;
                };
                let operands: Option<Vec<String>> =
                    p.sk.as_ref().map_or(Some(Vec::new()), |(_, ops)| {
                        ops.iter()
                            .map(|o| o.encode(TENANTS[0], shard, &lookup))
                            .collect()
                    });
                let Some(operands) = operands else { continue };
                for (entity, sk) in partitions.get(&pk).into_iter().flatten() {
                    if p.sk.as_ref().is_none_or(|(op, _)| op.holds(sk, &operands)) {
                        return Some(format!(
                            "{} reads {} item ({pk:?}, {sk:?})",
                            p.name, spec.entities[*entity].name
                        ));
                    }
                }
            }
        }
    }
    None
}

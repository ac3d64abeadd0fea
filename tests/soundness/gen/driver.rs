//! The driver module of each accepted spec: the items it writes, the calls it makes and what the oracle needs to judge each answer.

use std::fmt::Write as _;

use super::*;

/// What the driver needs from the compiler about one access pattern: how
/// to call it (the parameter order and the entities it returns).
#[derive(Debug, Clone)]
pub struct Call {
    pub pattern: String,
    /// Each parameter, with an `(entity, attribute)` it fills: the
    /// generator's own type for that attribute draws and encodes its values.
    pub params: Vec<(String, String, String)>,
    pub returns: Vec<String>,
    /// The entities it reads in part, with their partial types.
    pub partials: Vec<(String, String)>,
}

pub(super) fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        })
        .collect()
}

fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// The driver module of one accepted spec.
pub fn render_driver(spec: &Spec, module: &str, calls: &[Call], names: &Names) -> String {
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x5eed);
    let mut d = String::new();
    let _ = writeln!(d, "pub mod {module} {{");
    let _ = writeln!(d, "    singletable_runtime::include_generated!(pub generated, concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));");
    d.push_str("    use generated::*;\n    use singletable_runtime::Entity as _;\n");
    let _ = writeln!(
        d,
        "    /// The spec.\n    pub const SPEC: &str = {};",
        rust_str(&spec.yaml())
    );
    d.push_str("    /// Writes the items and runs every call.\n");
    d.push_str("    pub async fn run(client: singletable_runtime::sdk::Client, table: String) -> crate::soundness::Run {\n");
    let _ = writeln!(
        d,
        "        let mut run = crate::soundness::Run::new({}, SPEC);",
        spec.seed
    );
    d.push_str("        let repo = Repository::new(client.clone()).with_table_name(&table);\n");
    d.push_str("        if let Err(e) = repo.create_table().await { run.failed(\"create_table\", &e); return run; }\n");
    for (t, tenant) in TENANTS.iter().enumerate() {
        let _ = writeln!(d, "        let t{t} = TenantId::new({tenant:?}).unwrap();\n        let r{t} = repo.for_tenant(&t{t});");
    }
    render_writes(spec, &mut rng, &mut d, names);
    d.push_str("        run.scan(&client, &table).await;\n");
    for call in calls {
        render_call(spec, call, &mut rng, &mut d, names);
    }
    render_scans(spec, &mut rng, &mut d, names);
    d.push_str("        run\n    }\n}\n");
    d
}

/// The driver's writes: a few items per entity and tenant, values from
/// small pools so that collections form and keys come close; versioned
/// items through `update(..).or_create()`, and sometimes a conditional
/// update of an item just written.
fn render_writes(spec: &Spec, rng: &mut fastrand::Rng, d: &mut String, names: &Names) {
    let mut versioned_keys = std::collections::BTreeSet::new();
    let mut picks = fastrand::Rng::with_seed(spec.seed ^ 0xc0d1);
    for (t, tenant) in TENANTS.iter().enumerate() {
        for e in &spec.entities {
            if e.global && t > 0 {
                continue;
            }
            let handle = if e.global {
                "repo".to_owned()
            } else {
                format!("r{t}")
            };
            let (put, update) = (names.op(&e.name, "put"), names.op(&e.name, "update"));
            let (ty, key_ty, update_ty) =
                (names.ty(&e.name), names.key(&e.name), names.update(&e.name));
            let field = |a: &str| names.field(&e.name, a);
            for _ in 0..(2 + rng.usize(..4)) {
                let values: Vec<(&Attr, Value, bool)> = e
                    .attrs
                    .iter()
                    .map(|a| (a, a.ty.value(rng), !a.optional || rng.bool()))
                    .collect();
                if e.versioned {
                    let lookup = |name: &str| {
                        values
                            .iter()
                            .find(|(a, _, _)| a.name == name)
                            .map(|(_, v, _)| v.key.clone())
                    };
                    let key = (
                        e.pk.encode(tenant, 0, &lookup),
                        e.sk.encode(tenant, 0, &lookup),
                    );
                    if !versioned_keys.insert(key) {
                        continue;
                    }
                    let in_key: Vec<&str> = e.pk.attrs().chain(e.sk.attrs()).collect();
                    let mut key_fields = String::new();
                    let mut setters = String::new();
                    for (a, v, present) in &values {
                        // A setter takes `impl Into<T>`: an enum's word is
                        // parsed as the type of its field constant.
                        let setter_value = if matches!(a.ty, Ty::Enum(_)) {
                            format!(
                                "crate::soundness::parsed(&{ty}::{}, {:?})",
                                names.field_const(&e.name, &a.name),
                                v.key
                            )
                        } else {
                            v.rust.clone()
                        };
                        if in_key.contains(&a.name.as_str()) {
                            let _ = write!(key_fields, "{}: {}, ", field(&a.name), v.rust);
                        } else if a.name == "ver" {
                            let _ = write!(setters, ".{}(1_i64)", field("ver"));
                        } else if a.optional {
                            let value = if *present {
                                format!("Some({setter_value})")
                            } else {
                                "None".into()
                            };
                            let _ = write!(setters, ".{}({value})", field(&a.name));
                        } else {
                            let _ = write!(setters, ".{}({setter_value})", field(&a.name));
                        }
                    }
                    let _ = writeln!(d, "        run.wrote(\"{update} or_create\", {handle}.{update}(&{key_ty} {{ {key_fields}}}, {update_ty}::default(){setters}.or_create()).await);");
                    continue;
                }
                let mut fields = String::new();
                for (a, v, present) in &values {
                    if a.optional {
                        let value = if *present {
                            format!("Some({})", v.rust)
                        } else {
                            "None".into()
                        };
                        let _ = write!(fields, "{}: {value}, ", field(&a.name));
                    } else {
                        let _ = write!(fields, "{}: {}, ", field(&a.name), v.rust);
                    }
                }
                // A random-sharded item goes to the shard its hash gives,
                // where the oracle's keys expect it.
                if let (true, Some(count), Some(first)) =
                    (e.random_shards, e.shards, e.pk.attrs().next())
                {
                    let key = values
                        .iter()
                        .find(|(a, _, _)| a.name == first)
                        .map(|(_, v, _)| v.key.as_str())
                        .unwrap_or_default();
                    let _ = write!(fields, "shard: {}, ", hash_shard(key, count));
                }
                let _ = writeln!(d, "        let item = {ty} {{ {fields}}};");
                let _ = writeln!(
                    d,
                    "        run.wrote(\"{put}\", {handle}.{put}(&item).await);"
                );
                // Sometimes, a conditional update of the item just written,
                // on its `note`: drawn apart from the main sequence.
                if picks.u8(..3) == 0 {
                    let filter = draw_filter(&mut picks);
                    let note = values
                        .iter()
                        .find(|(a, _, _)| a.name == "note")
                        .and_then(|(_, v, present)| present.then(|| v.key.clone()));
                    let holds = filter.holds(note.as_deref());
                    let condition = field_condition(
                        &format!("{ty}::{}", names.field_const(&e.name, "note")),
                        &filter,
                    );
                    let what = format!("{update} when {filter:?} on {note:?}");
                    let optional = e.attrs.iter().any(|a| a.name == "note" && a.optional);
                    let set = if optional {
                        "Some(\"q\".to_owned())"
                    } else {
                        "\"q\""
                    };
                    let _ = writeln!(d, "        run.conditioned({what:?}, {holds}, {handle}.{update}(&item.key(), {update_ty}::default().{}({set}).when({condition})).await);", field("note"));
                }
            }
        }
    }
}

/// The driver's calls of one query pattern: three, each for a tenant, with
/// drawn arguments, page size and limit, and what the oracle needs to
/// judge the answer.
fn render_call(spec: &Spec, call: &Call, rng: &mut fastrand::Rng, d: &mut String, names: &Names) {
    let Some(p) = spec.patterns.iter().find(|p| p.name == call.pattern) else {
        return;
    };
    let index = spec
        .indexes
        .iter()
        .find(|i| Some(&i.name) == p.index.as_ref());
    let (pk_attr, sk_attr) = index.map_or(("pk", "sk"), |i| (i.pk.as_str(), i.sk.as_str()));
    let source = &spec.entities[p.source];
    for _ in 0..3 {
        let t = if p.global {
            0
        } else {
            rng.usize(..TENANTS.len())
        };
        let (args, keys, stored) = draw_args(spec, call, rng);
        let lookup = |name: &str| keys.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        // The shards a `<shard>` of the call stands for: the hashed one
        // when the call gives the hashed attribute, else (and always
        // for random shards) every shard.
        let shards = match source.shards {
            None => vec![0],
            Some(count) if source.random_shards => (0..count).collect(),
            Some(count) => match source.pk.attrs().next().and_then(|a| lookup(a)) {
                Some(value) => {
                    vec![hash_shard(&value, count)]
                }
                None => (0..count).collect(),
            },
        };
        let sharded = p.pk.sharded()
            || p.sk
                .as_ref()
                .is_some_and(|(_, ops)| ops.iter().any(Template::sharded));
        let pk_shards = if p.pk.sharded() {
            shards.clone()
        } else {
            vec![0]
        };
        let pks: Option<Vec<String>> = pk_shards
            .iter()
            .map(|shard| p.pk.encode(TENANTS[t], *shard, &lookup))
            .collect();
        let Some(pks) = pks else {
            continue;
        };
        // On the multi-attribute index: the equalities after the tenant,
        // the sort attributes, and the condition on the last one named,
        // each value as stored.
        let multi = index.and_then(|i| i.multi.as_ref()).zip(p.multi);
        let (more, sort, multi_condition) = match multi {
            Some((multi, condition)) => multi_case(multi, condition, &stored),
            None => (Vec::new(), Vec::new(), None),
        };
        let sk_attr = match multi {
            Some((multi, condition)) => multi
                .sort
                .get(condition.equal)
                .map_or(sk_attr, |(name, _)| name.as_str()),
            None => sk_attr,
        };
        // One operand list per shard when a bound holds `<shard>`.
        let (op, operands): (String, Vec<Vec<String>>) = match &p.sk {
            None => multi_condition.unwrap_or_else(|| ("None".to_owned(), Vec::new())),
            Some((op, ops)) => {
                let bound_shards = if ops.iter().any(Template::sharded) {
                    shards.clone()
                } else {
                    vec![0]
                };
                (
                    format!("Some(crate::soundness::Op::{op:?})"),
                    bound_shards
                        .iter()
                        .map(|shard| {
                            ops.iter()
                                .filter_map(|o| o.encode(TENANTS[t], *shard, &lookup))
                                .collect()
                        })
                        .collect(),
                )
            }
        };
        let limit = if index.is_none() && !sharded && rng.u8(..4) == 0 {
            Some(1 + rng.usize(..3))
        } else {
            None
        };
        let page = 1 + rng.usize(..3);
        let include_expired = spec.ttl && rng.bool();
        let handle = if p.global {
            "repo".to_owned()
        } else {
            format!("r{t}")
        };
        let mut args = args.clone();
        args.extend(filter_yaml(p.filter.as_ref()).1);
        let mut query = format!("{handle}.{}({})", names.method(&p.name), args.join(", "));
        let _ = write!(query, ".page_size({page})");
        if let Some(l) = limit {
            let _ = write!(query, ".limit({l})");
        }
        if include_expired {
            query.push_str(".include_expired()");
        }
        let scope = if p.global {
            "&()".to_owned()
        } else {
            format!("&t{t}")
        };
        let (to_item, expect) = decoders(call, p, names, &scope);
        let projected = match index.and_then(|i| i.projection.as_ref()) {
            None => "None".to_owned(),
            Some(names) => format!("Some(&{names:?})"),
        };
        let ttl = if spec.ttl && !include_expired {
            "Some(\"exp\")"
        } else {
            "None"
        };
        let filter = filter_case(p.filter.as_ref());
        let (call_fn, result) = match &expect {
            Some(expect) => ("queried_as", format!("{query}.all().await, {expect}")),
            None => ("queried", format!("{query}.all().await.map(|v| v.iter().map({to_item}).collect::<Result<Vec<_>, _>>())")),
        };
        let _ = writeln!(
            d,
            "        run.{call_fn}(crate::soundness::Case {{ pattern: {:?}, pk_attr: {pk_attr:?}, sk_attr: {sk_attr:?}, pks: vec![{}], more: vec!{more:?}, sort: vec!{sort:?}, op: {op}, operands: vec![{}], descending: {}, page_size: {page}, limit: {limit:?}, ttl: {ttl}, projected: {projected}, filter: {filter} }}, {result});",
            p.name,
            pks.iter().map(|o| format!("{o:?}.into()")).collect::<Vec<_>>().join(", "),
            operands
                .iter()
                .map(|set| format!("vec![{}]", set.iter().map(|o| format!("{o:?}.into()")).collect::<Vec<_>>().join(", ")))
                .collect::<Vec<_>>()
                .join(", "),
            p.descending,
        );
    }
}

/// What a call on the multi-attribute index reads: the equalities after
/// the tenant (its other partition attributes, then the sort attributes it
/// binds by equality), every sort attribute with whether it is a number,
/// and the operator on the last one named with its operands; every value
/// as stored (`stored`: each parameter's).
#[allow(clippy::type_complexity)]
fn multi_case(
    multi: &Multi,
    condition: MultiCondition,
    stored: &[(String, String)],
) -> (
    Vec<(String, String)>,
    Vec<(String, bool)>,
    Option<(String, Vec<Vec<String>>)>,
) {
    let value = |param: &str| {
        stored
            .iter()
            .find(|(p, _)| p == param)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let more = multi
        .partition
        .iter()
        .chain(&multi.sort[..condition.equal])
        .map(|(name, _)| (name.clone(), value(name)))
        .collect();
    let last = condition.last.map(|op| {
        let operands = match op {
            Op::Between => vec![value("lo"), value("hi")],
            _ => vec![value(&multi.sort[condition.equal].0)],
        };
        (
            format!("Some(crate::soundness::Op::{op:?})"),
            vec![operands],
        )
    });
    (more, multi.sort.clone(), last)
}

/// A call's arguments, drawn from its parameters' attribute types, the key
/// text each parameter stands for, and its value as an attribute stores it
/// (a number's digits, not its key text).
#[allow(clippy::type_complexity)]
fn draw_args(
    spec: &Spec,
    call: &Call,
    rng: &mut fastrand::Rng,
) -> (Vec<String>, Vec<(String, String)>, Vec<(String, String)>) {
    let mut args = Vec::new();
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut stored: Vec<(String, String)> = Vec::new();
    for (param, entity, attribute) in &call.params {
        let Some(ty) = spec
            .entities
            .iter()
            .position(|e| e.name == *entity)
            .and_then(|e| spec.attr_type(e, attribute))
        else {
            continue;
        };
        let v = ty.value(rng);
        let arg = match ty {
            Ty::Str { .. } | Ty::Escaped | Ty::Cased => {
                v.rust.trim_end_matches(".to_owned()").to_owned()
            }
            Ty::Int { .. }
            | Ty::Enum(_)
            | Ty::Bool
            | Ty::Datetime { .. }
            | Ty::Epoch
            | Ty::Record => v.rust.clone(),
        };
        args.push(arg);
        keys.push((param.clone(), v.key.clone()));
        let as_stored = match ty {
            Ty::Int { .. } => v.rust.trim_end_matches("_i64").to_owned(),
            _ => v.key.clone(),
        };
        stored.push((param.clone(), as_stored));
    }
    (args, keys, stored)
}

/// How the driver turns what a call returns into items (`to_item`), and
/// for a call that reads in part, how the oracle decodes a stored item to
/// what the call must return.
fn decoders(call: &Call, p: &Pattern, names: &Names, scope: &str) -> (String, Option<String>) {
    let to_item = if call.returns.len() == 1 {
        format!("|e| e.to_item({scope})")
    } else {
        let arms: Vec<String> = call
            .returns
            .iter()
            .map(|r| {
                format!(
                    "{}::{}(e) => e.to_item({scope})",
                    names.item_enum(&p.name),
                    names.ty(r)
                )
            })
            .collect();
        format!("|e| match e {{ {} }}", arms.join(", "))
    };
    // Read in part: the stored item decoded as its entity and cut
    // down to the partial type is what the call must return.
    let partial = |r: &String| call.partials.iter().find(|(e, _)| e == r).map(|(_, ty)| ty);
    let expect = match call.returns.as_slice() {
        [one] => partial(one).map(|ty| {
            format!(
                "|i| {}::from_item(i).map(|e| {ty}::from(&e))",
                names.ty(one)
            )
        }),
        several if several.iter().any(|r| partial(r).is_some()) => {
            let arms: Vec<String> = several
                .iter()
                .map(|r| {
                    let value = match partial(r) {
                        Some(ty) => format!("{ty}::from(&e)"),
                        None => "e".to_owned(),
                    };
                    let r = names.ty(r);
                    format!("if {r}::IDENTITY.matches(i) {{ return {r}::from_item(i).map(|e| {}::{r}({value})); }}", names.item_enum(&p.name))
                })
                .collect();
            Some(format!("|i| {{ {} Err(singletable_runtime::DecodeError::new(\"soundness\", \"pk\", singletable_runtime::DecodeProblem::NotOfEntity(None))) }}", arms.join(" ")))
        }
        _ => None,
    };
    (to_item, expect)
}

/// The driver's calls of the scans: all segments at once, and each
/// segment by itself, in pages of one to three items.
fn render_scans(spec: &Spec, rng: &mut fastrand::Rng, d: &mut String, names: &Names) {
    for scan in &spec.scans {
        let index = spec
            .indexes
            .iter()
            .find(|i| Some(&i.name) == scan.index.as_ref());
        let keys = match index {
            None => "None".to_owned(),
            Some(i) => format!("Some(({:?}, {:?}))", i.pk, i.sk),
        };
        let entity = &spec.entities[scan.entity].name;
        let args = filter_yaml(scan.filter.as_ref()).1.join(", ");
        let filter = filter_case(scan.filter.as_ref());
        for whole in [true, false] {
            let total = 1 + rng.u32(..4);
            let page = 1 + rng.usize(..3);
            let include_expired = spec.ttl && rng.bool();
            let ttl = if spec.ttl && !include_expired {
                "Some(\"exp\")"
            } else {
                "None"
            };
            let expired = if include_expired {
                ".include_expired()"
            } else {
                ""
            };
            let case = format!(
                "crate::soundness::ScanCase {{ pattern: {:?}, entity: {entity:?}, keys: {keys}, segments: {total}, ttl: {ttl}, filter: {filter} }}",
                scan.name
            );
            let encode = "map(|v| v.iter().map(|e| e.to_item(&())).collect::<Result<Vec<_>, _>>())";
            if whole {
                let _ = writeln!(
                    d,
                    "        run.scanned({case}, repo.{}({args}).segments({total}).page_size({page}){expired}.all().await.{encode});",
                    names.method(&scan.name)
                );
            } else {
                let _ = writeln!(
                    d,
                    "        {{ let mut all = Ok(Vec::new()); for s in 0..{total} {{ match repo.{}({args}).segment(s, {total}).page_size({page}){expired}.all().await {{ Ok(v) => {{ if let Ok(a) = &mut all {{ a.extend(v); }} }} Err(e) => {{ all = Err(e); break; }} }} }} run.scanned({case}, all.{encode}); }}",
                    names.method(&scan.name)
                );
            }
        }
    }
}

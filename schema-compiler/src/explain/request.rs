//! The exact request each access pattern sends, in the DynamoDB API's own
//! JSON shape, and the equivalent AWS CLI command. Values that the caller
//! supplies are shown as the key templates they fill (`TENANT#<tenant>|OPEN`).

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use crate::ir::{self, IndexRef, Operation, SortOp, TransactionOp};
use crate::plan::{key_condition, plan, Plan, QueryShards};

/// One access pattern's request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The plan (operation, index, estimated capacity).
    pub plan: Plan,
    /// The AWS CLI subcommand: `query`, `get-item`, `transact-write-items`, …
    pub cli_operation: &'static str,
    /// The request parameters in the API's JSON shape.
    pub parameters: Map<String, Value>,
    /// What else the repository does around the request.
    pub notes: Vec<String>,
}

fn key_type_of(spec: &ir::Spec, index: Option<&str>, attribute: &str) -> &'static str {
    spec.key_type(index, attribute).code()
}

fn typed(tag: &str, value: &str) -> Value {
    let mut m = Map::new();
    m.insert(tag.to_owned(), Value::String(value.to_owned()));
    Value::Object(m)
}

/// `{"pk": {"S": "TENANT#<tenant>|TICKET#<id>"}, "sk": {"S": "SUMMARY"}}`.
fn key_json(spec: &ir::Spec, entity: &ir::Entity) -> Value {
    let mut key = Map::new();
    for t in entity.primary_key.templates() {
        key.insert(
            t.attribute.clone(),
            typed(key_type_of(spec, None, &t.attribute), &t.source.value),
        );
    }
    Value::Object(key)
}

/// The item a put writes, with `<attribute>` where each value goes.
fn item_json(spec: &ir::Spec, entity: &ir::Entity) -> Value {
    let Value::Object(mut item) = key_json(spec, entity) else {
        return Value::Null;
    };
    if let Some((attribute, value)) = spec.table.entity_type.marker(&entity.name) {
        item.insert(attribute.to_owned(), typed("S", value));
    }
    for a in entity.attributes.values().filter(|a| !a.key_only) {
        item.insert(
            a.stored().to_owned(),
            typed(a.r#type.dynamo_type(), &format!("<{}>", a.name)),
        );
    }
    for (index, key) in &entity.index_keys {
        for t in key.templates().filter(|t| !t.is_natural()) {
            item.insert(
                t.attribute.clone(),
                typed(
                    key_type_of(spec, Some(index), &t.attribute),
                    &t.source.value,
                ),
            );
        }
    }
    Value::Object(item)
}

fn table_name(spec: &ir::Spec) -> Value {
    Value::String(spec.table.name.value.clone())
}

fn transact_item(spec: &ir::Spec, op: TransactionOp, entity: &ir::Entity) -> Value {
    let pk = json!({ "#pk": spec.table.partition_key.name.value });
    match op {
        TransactionOp::Put => {
            json!({ "Put": { "TableName": table_name(spec), "Item": item_json(spec, entity) } })
        }
        TransactionOp::Create => json!({ "Put": {
            "TableName": table_name(spec),
            "Item": item_json(spec, entity),
            "ConditionExpression": "attribute_not_exists(#pk)",
            "ExpressionAttributeNames": pk,
        } }),
        TransactionOp::Update => {
            let mut names = json!({ "#pk": spec.table.partition_key.name.value });
            let mut values = json!({});
            let marker = spec.table.entity_type.marker(&entity.name);
            if let Some((attribute, value)) = marker {
                names["#et"] = json!(attribute);
                values[":et"] = typed("S", value);
            }
            names["#s0"] = json!("<attribute set>");
            names["#r0"] = json!("<attribute removed>");
            values[":s0"] = json!("<value>");
            let expression = match marker {
                Some(_) => "SET #et = :et, #s0 = :s0 REMOVE #r0",
                None => "SET #s0 = :s0 REMOVE #r0",
            };
            json!({ "Update": {
                "TableName": table_name(spec),
                "Key": key_json(spec, entity),
                "UpdateExpression": expression,
                "ConditionExpression": "attribute_exists(#pk)",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            } })
        }
        TransactionOp::Delete => {
            json!({ "Delete": { "TableName": table_name(spec), "Key": key_json(spec, entity) } })
        }
        TransactionOp::ConditionCheck => json!({ "ConditionCheck": {
            "TableName": table_name(spec),
            "Key": key_json(spec, entity),
            "ConditionExpression": "attribute_exists(#pk)",
            "ExpressionAttributeNames": pk,
        } }),
    }
}

fn query_parameters(spec: &ir::Spec, q: &ir::Query, out: &mut Map<String, Value>) {
    let index = match &q.index {
        IndexRef::Table => None,
        IndexRef::Index(i) => Some(i.as_str()),
    };
    out.insert("TableName".into(), table_name(spec));
    if let Some(i) = index {
        out.insert("IndexName".into(), Value::String(i.to_owned()));
    }
    out.insert("KeyConditionExpression".into(), key_condition(q).into());
    let mut names = Map::new();
    let mut values = Map::new();
    for (name, value, template) in crate::plan::key_equalities(q) {
        names.insert(name, template.attribute.clone().into());
        values.insert(
            value,
            typed(
                key_type_of(spec, index, &template.attribute),
                &template.source.value,
            ),
        );
    }
    if let Some(sk) = &q.sk {
        for (i, operand) in sk.operands.iter().enumerate() {
            names.insert("#sk".into(), operand.attribute.clone().into());
            let placeholder = if sk.op == SortOp::Between {
                format!(":sk{i}")
            } else {
                ":sk".to_owned()
            };
            values.insert(
                placeholder,
                typed(
                    key_type_of(spec, index, &operand.attribute),
                    &operand.source.value,
                ),
            );
        }
    }
    filter_parameters(&q.filter, &mut names, &mut values, out);
    out.insert("ExpressionAttributeNames".into(), Value::Object(names));
    out.insert("ExpressionAttributeValues".into(), Value::Object(values));
    if q.order == ir::Order::Descending {
        out.insert("ScanIndexForward".into(), false.into());
    }
    if q.consistent_read {
        out.insert("ConsistentRead".into(), true.into());
    }
}

/// A filter's `FilterExpression`, and its names and values.
fn filter_parameters(
    filter: &[ir::Filter],
    names: &mut Map<String, Value>,
    values: &mut Map<String, Value>,
    out: &mut Map<String, Value>,
) {
    let Some(expression) = crate::plan::conditions_expression(filter) else {
        return;
    };
    out.insert("FilterExpression".into(), expression.into());
    for (i, condition) in ir::Filter::conditions(filter).into_iter().enumerate() {
        names.insert(format!("#f{i}"), condition.stored.clone().into());
        for (j, operand) in condition.operands.iter().enumerate() {
            let value = match operand {
                ir::FilterOperand::Literal(ir::FilterLiteral::S(t)) => typed("S", t),
                ir::FilterOperand::Literal(ir::FilterLiteral::N(n)) => typed("N", n),
                ir::FilterOperand::Literal(ir::FilterLiteral::Bool(b)) => json!({ "BOOL": b }),
                ir::FilterOperand::Param { name, .. } => json!(format!("<{name}>")),
            };
            values.insert(format!(":f{i}_{j}"), value);
        }
    }
}

fn scan_parameters(spec: &ir::Spec, scan: &ir::Scan, out: &mut Map<String, Value>) {
    out.insert("TableName".into(), table_name(spec));
    if let IndexRef::Index(i) = &scan.index {
        out.insert("IndexName".into(), Value::String(i.clone()));
    }
    let (mut names, mut values) = (Map::new(), Map::new());
    filter_parameters(&scan.filter, &mut names, &mut values, out);
    // DynamoDB refuses empty maps.
    if !names.is_empty() {
        out.insert("ExpressionAttributeNames".into(), Value::Object(names));
    }
    if !values.is_empty() {
        out.insert("ExpressionAttributeValues".into(), Value::Object(values));
    }
    if scan.consistent_read {
        out.insert("ConsistentRead".into(), true.into());
    }
}

fn query_notes(spec: &ir::Spec, pattern: &ir::AccessPattern, q: &ir::Query) -> Vec<String> {
    let mut notes = Vec::new();
    match crate::plan::query_shards(spec, q) {
        QueryShards::Unsharded => {}
        QueryShards::Hashed {
            attribute, count, ..
        } => notes.push(format!(
            "<shard> = the hash of `{}` modulo {count}: one shard",
            attribute.name.as_str()
        )),
        QueryShards::Every { count } if crate::plan::reads_shards_in_batch(spec, pattern) => {
            notes.push(format!(
                "every shard, <shard> = 0 to {}: one whole key per shard, read together with BatchGetItem (100 keys a request; a key left unprocessed is queried)",
                count.saturating_sub(1)
            ))
        }
        QueryShards::Every { count } => notes.push(format!(
            "one query per shard, <shard> = 0 to {}, results gathered",
            count.saturating_sub(1)
        )),
    }
    if let Some(ttl) = &spec.table.ttl {
        notes.push(format!("items whose `{ttl}` has passed are skipped"));
    }
    if q.matching.len() > q.returns.len() {
        notes.push(format!(
            "items of other entity types in the key range are skipped (returns {})",
            q.returns.join(", ")
        ));
    }
    notes
}

/// The request of the access pattern named `name`.
pub fn request(spec: &ir::Spec, name: &str) -> Option<Request> {
    let pattern = spec.access_patterns.get(name)?;
    let plan = plan(spec, pattern);
    let mut parameters = Map::new();
    let mut notes = Vec::new();
    let cli_operation = match &pattern.operation {
        Operation::Get {
            entity,
            consistent_read,
        } => {
            let e = spec.entities.get(entity)?;
            parameters.insert("TableName".into(), table_name(spec));
            parameters.insert("Key".into(), key_json(spec, e));
            if *consistent_read {
                parameters.insert("ConsistentRead".into(), true.into());
            }
            if let Some(ttl) = &spec.table.ttl {
                notes.push(format!("an item whose `{ttl}` has passed reads as absent"));
            }
            "get-item"
        }
        Operation::Query(q) => {
            query_parameters(spec, q, &mut parameters);
            notes = query_notes(spec, pattern, q);
            "query"
        }
        Operation::Scan(scan) => {
            scan_parameters(spec, scan, &mut parameters);
            notes.push(format!(
                "reads every item of the {}, 1 MB a page; `--segment i --total-segments n` splits it for parallel workers",
                match &scan.index {
                    IndexRef::Table => "table".to_owned(),
                    IndexRef::Index(i) => format!("index `{i}`"),
                }
            ));
            notes.push(format!(
                "items of entities other than `{}` are skipped",
                scan.entity
            ));
            if let Some(ttl) = &spec.table.ttl {
                notes.push(format!("items whose `{ttl}` has passed are skipped"));
            }
            "scan"
        }
        Operation::Transaction(t) => {
            let items: Vec<Value> = t
                .items
                .iter()
                .filter_map(|(op, e)| Some(transact_item(spec, *op, spec.entities.get(e)?)))
                .collect();
            parameters.insert("TransactItems".into(), Value::Array(items));
            notes.push(format!(
                "one element per item, at most {} in one call, all or nothing",
                t.max_items.value
            ));
            "transact-write-items"
        }
        Operation::TransactGet(t) => {
            let items: Vec<Value> = t
                .entities
                .iter()
                .filter_map(|e| {
                    let key = key_json(spec, spec.entities.get(e)?);
                    Some(json!({ "Get": { "TableName": table_name(spec), "Key": key } }))
                })
                .collect();
            parameters.insert("TransactItems".into(), Value::Array(items));
            notes.push(format!(
                "one element per item, at most {} in one call, every item read as of one moment",
                t.max_items.value
            ));
            "transact-get-items"
        }
        Operation::Batch(b) => {
            let mut tables = Map::new();
            if !b.get.is_empty() {
                let keys: Vec<Value> = b
                    .get
                    .iter()
                    .filter_map(|e| Some(key_json(spec, spec.entities.get(e)?)))
                    .collect();
                tables.insert(spec.table.name.value.clone(), json!({ "Keys": keys }));
                notes.push(
                    "chunked into 100 keys per call; unprocessed keys retried with backoff".into(),
                );
                parameters.insert("RequestItems".into(), Value::Object(tables));
                "batch-get-item"
            } else {
                let requests: Vec<Value> = b
                    .put
                    .iter()
                    .filter_map(|e| Some(json!({ "PutRequest": { "Item": item_json(spec, spec.entities.get(e)?) } })))
                    .chain(b.delete.iter().filter_map(|e| {
                        Some(json!({ "DeleteRequest": { "Key": key_json(spec, spec.entities.get(e)?) } }))
                    }))
                    .collect();
                tables.insert(spec.table.name.value.clone(), Value::Array(requests));
                notes.push(
                    "chunked into 25 requests per call; unprocessed items retried with backoff"
                        .into(),
                );
                parameters.insert("RequestItems".into(), Value::Object(tables));
                "batch-write-item"
            }
        }
    };
    parameters.insert("ReturnConsumedCapacity".into(), "TOTAL".into());
    Some(Request {
        plan,
        cli_operation,
        parameters,
        notes,
    })
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The arguments of the equivalent AWS CLI command, after `aws`:
/// `["dynamodb", "query", "--table-name", "SupportTicket", …]`.
pub fn cli_args(request: &Request) -> Vec<String> {
    let mut args = vec!["dynamodb".to_owned(), request.cli_operation.to_owned()];
    for (name, value) in &request.parameters {
        match (name.as_str(), value) {
            ("ScanIndexForward", Value::Bool(false)) => args.push("--no-scan-index-forward".into()),
            ("ConsistentRead", Value::Bool(true)) => args.push("--consistent-read".into()),
            (_, Value::String(s)) => {
                args.push(format!("--{}", kebab(name)));
                args.push(s.clone());
            }
            (_, other) => {
                args.push(format!("--{}", kebab(name)));
                args.push(compact(other));
            }
        }
    }
    args
}

/// `KeyConditionExpression` → `key-condition-expression`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn shell_quote(arg: &str) -> String {
    let plain = arg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:=,".contains(c));
    if plain && !arg.is_empty() {
        arg.to_owned()
    } else if !arg.contains(['"', '$', '`', '\\', '!']) && !arg.starts_with(['{', '[']) {
        format!("\"{arg}\"")
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The AWS CLI command as a shell command, one option per line.
pub fn shell_command(request: &Request) -> String {
    let args = cli_args(request);
    let mut out = String::from("aws");
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg.starts_with("--") {
            let _ = write!(out, " \\\n    {arg}");
            if let Some(value) = args.get(i + 1).filter(|v| !v.starts_with("--")) {
                let _ = write!(out, " {}", shell_quote(value));
                i += 1;
            }
        } else {
            let _ = write!(out, " {arg}");
        }
        i += 1;
    }
    out.push('\n');
    out
}

/// Every access pattern's request (or only `only`'s) as text: the request
/// parameters, what the repository does around them, the estimated capacity
/// and the AWS CLI command.
pub fn render_requests(spec: &ir::Spec, only: Option<&str>) -> String {
    let mut out = String::new();
    let names = spec
        .access_patterns
        .keys()
        .filter(|n| only.is_none_or(|o| o == n.as_str()));
    for (i, name) in names.enumerate() {
        let Some(request) = request(spec, name) else {
            continue;
        };
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{name}");
        if let Some(d) = &request.plan.description {
            let _ = writeln!(out, "  {d}");
        }
        let target = match &request.plan.index {
            Some(index) => format!("index {index} of {}", request.plan.table),
            None => request.plan.table.clone(),
        };
        let _ = writeln!(out, "  {} on {target}", request.plan.operation);
        let parameters = serde_json::to_string_pretty(&Value::Object(request.parameters.clone()))
            .unwrap_or_default();
        for line in parameters.lines() {
            let _ = writeln!(out, "    {line}");
        }
        for note in &request.notes {
            let _ = writeln!(out, "  - {note}");
        }
        let _ = writeln!(
            out,
            "  estimated capacity per call: {} RCU, {} WCU",
            request.plan.read_units, request.plan.write_units
        );
        out.push('\n');
        for line in shell_command(&request).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    if only.is_none() {
        super::relative_changes(spec, &mut out);
    }
    out
}

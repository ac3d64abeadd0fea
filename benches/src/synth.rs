//! The synthetic-spec generator: one design of `n` entities, written both
//! as a singletable spec and as the peer validator's `schema.json`.
//!
//! Every entity has the same shape, so the work per entity is constant and
//! the compiler's time should grow linearly with `n`: seven attributes, a
//! tenant-scoped primary key, one overloaded GSI (entity `i` uses GSI
//! `i % gsis`) and five access patterns (a get, two table queries and two
//! index queries, one of each with a sort-key range). GSIs grow as one per
//! ten entities up to DynamoDB's limit of 20 per table.

use std::fmt::Write as _;

use serde_json::{json, Value};

/// Access patterns per entity.
pub const PATTERNS_PER_ENTITY: usize = 5;

/// The number of GSIs of a design with `entities` entities.
pub fn gsis(entities: usize) -> usize {
    (entities / 10).clamp(1, 20)
}

fn entity_name(i: usize) -> String {
    format!("E{i:04}")
}

/// The singletable spec of the design, as YAML.
pub fn spec_yaml(entities: usize) -> String {
    let gsis = gsis(entities);
    let mut y = String::with_capacity(entities * 1_600);
    y.push_str(
        "version: 1\n\
         description: A synthetic design for the compiler benchmarks.\n\
         table: { name: Synthetic, partition_key: pk, sort_key: sk, billing: on_demand }\n\
         tenant: { placeholder: tenant, id_pattern: \"^[A-Za-z0-9_]{1,64}$\", principal_tag: TenantId }\n\
         indexes:\n",
    );
    for g in 0..gsis {
        let _ = writeln!(
            y,
            "  GSI{g}: {{ partition_key: gsi{g}_pk, sort_key: gsi{g}_sk }}"
        );
    }
    y.push_str("entities:\n");
    for i in 0..entities {
        push_entity(&mut y, i, gsis);
    }
    y.push_str("access_patterns:\n");
    for i in 0..entities {
        push_patterns(&mut y, i, gsis);
    }
    y
}

fn push_entity(y: &mut String, i: usize, gsis: usize) {
    let e = entity_name(i);
    let g = i % gsis;
    let _ = write!(
        y,
        "  {e}:
    description: Synthetic entity {i}.
    attributes:
      parent_id: {{ type: string, pattern: \"^[A-Za-z0-9_-]{{1,36}}$\" }}
      id: {{ type: string, pattern: \"^[A-Za-z0-9_-]{{1,36}}$\" }}
      owner: {{ type: string, pattern: \"^[a-z0-9._-]{{1,64}}$\" }}
      title: {{ type: string, max_length: 200 }}
      rank: {{ type: integer, min: 0, max: 1000000 }}
      done: boolean
      created_at: datetime
    key: {{ pk: \"TENANT#<tenant>|{e}#<parent_id>\", sk: \"ITEM#<id>\" }}
    indexes:
      GSI{g}: {{ pk: \"TENANT#<tenant>|{e}|OWNER#<owner>\", sk: \"AT#<created_at>\" }}
"
    );
}

fn push_patterns(y: &mut String, i: usize, gsis: usize) {
    let e = entity_name(i);
    let l = e.to_lowercase();
    let g = i % gsis;
    let _ = write!(
        y,
        "  {l}_get:
    description: As a user, I want one {e}.
    get: {e}
  {l}_by_parent:
    description: As a user, I want the {e} items of a parent.
    query: {{ pk: \"TENANT#<tenant>|{e}#<parent_id>\" }}
    returns: {e}
  {l}_by_parent_after:
    description: As a user, I want the {e} items of a parent after an id.
    query: {{ pk: \"TENANT#<tenant>|{e}#<parent_id>\", sk: {{ gt: \"ITEM#<id>\" }} }}
    returns: {e}
  {l}_by_owner:
    description: As a user, I want the {e} items of an owner.
    index: GSI{g}
    query: {{ pk: \"TENANT#<tenant>|{e}|OWNER#<owner>\" }}
    returns: {e}
  {l}_by_owner_since:
    description: As a user, I want the {e} items of an owner since a time.
    index: GSI{g}
    query: {{ pk: \"TENANT#<tenant>|{e}|OWNER#<owner>\", sk: {{ gte: \"AT#<since>\" }} }}
    returns: {e}
"
    );
}

fn field(name: &str, ty: &str) -> Value {
    json!({ "name": name, "type": ty, "required": true })
}

fn param(name: &str, ty: &str) -> Value {
    json!({ "name": name, "type": ty })
}

/// The same design in the peer validator's `schema.json` format.
pub fn peer_schema(entities: usize) -> Value {
    let gsis = gsis(entities);
    let gsi_list: Vec<Value> = (0..gsis)
        .map(|g| {
            json!({
                "name": format!("GSI{g}"),
                "partition_key": format!("gsi{g}_pk"),
                "sort_key": format!("gsi{g}_sk"),
            })
        })
        .collect();
    let mut map = serde_json::Map::new();
    for i in 0..entities {
        map.insert(entity_name(i), peer_entity(i, gsis));
    }
    json!({ "tables": [{
        "table_config": { "table_name": "Synthetic", "partition_key": "pk", "sort_key": "sk" },
        "gsi_list": gsi_list,
        "entities": map,
    }]})
}

fn peer_entity(i: usize, gsis: usize) -> Value {
    let e = entity_name(i);
    let l = e.to_lowercase();
    let gsi = format!("GSI{}", i % gsis);
    let id = i * PATTERNS_PER_ENTITY;
    // The peer format allows one partition-key parameter in a range query,
    // so its design has no tenant placeholder (it has no tenants at all).
    let by_parent = [param("parent_id", "string")];
    let by_owner = [param("owner", "string")];
    let with = |base: &[Value], extra: Value| {
        let mut v = base.to_vec();
        v.push(extra);
        v
    };
    json!({
        "entity_type": e,
        "pk_template": format!("{e}#{{parent_id}}"),
        "sk_template": "ITEM#{id}",
        "gsi_mappings": [{
            "name": gsi,
            "pk_template": format!("{e}|OWNER#{{owner}}"),
            "sk_template": "AT#{created_at}",
        }],
        "fields": [
            field("parent_id", "string"), field("id", "string"),
            field("owner", "string"), field("title", "string"), field("rank", "integer"),
            field("done", "boolean"), field("created_at", "string"),
        ],
        "access_patterns": [
            { "pattern_id": id + 1, "name": format!("{l}_get"), "description": format!("Get one {e}"),
              "operation": "GetItem", "return_type": "single_entity",
              "parameters": with(&by_parent, param("id", "string")) },
            { "pattern_id": id + 2, "name": format!("{l}_by_parent"), "description": "By parent",
              "operation": "Query", "return_type": "entity_list", "parameters": by_parent },
            { "pattern_id": id + 3, "name": format!("{l}_by_parent_after"), "description": "By parent after an id",
              "operation": "Query", "return_type": "entity_list", "range_condition": ">",
              "parameters": with(&by_parent, param("id", "string")) },
            { "pattern_id": id + 4, "name": format!("{l}_by_owner"), "description": "By owner",
              "operation": "Query", "index_name": gsi, "return_type": "entity_list",
              "parameters": by_owner },
            { "pattern_id": id + 5, "name": format!("{l}_by_owner_since"), "description": "By owner since",
              "operation": "Query", "index_name": gsi, "return_type": "entity_list",
              "range_condition": ">=", "parameters": with(&by_owner, param("since", "string")) },
        ],
    })
}

/// The support-ticket design (`schemas/support_ticket.yaml`) in the peer
/// validator's format, as close as that format can say it: it has no
/// tenants, transactions, aggregates, TTL or shards, so the tenant is a
/// plain key field and closing tickets is an update.
pub fn support_ticket_peer_schema() -> Value {
    let tenant_id = [param("tenant", "string"), param("id", "string")];
    json!({ "tables": [{
        "table_config": { "table_name": "SupportTicket", "partition_key": "pk", "sort_key": "sk" },
        "gsi_list": [{ "name": "GSI1", "partition_key": "tenant_status", "sort_key": "resolver",
                       "projection": "INCLUDE", "included_attributes": ["title", "status", "created_at"] }],
        "entities": {
            "Ticket": {
                "entity_type": "TICKET",
                "pk_template": "TENANT#{tenant}|TICKET#{id}",
                "sk_template": "SUMMARY",
                "gsi_mappings": [{ "name": "GSI1", "pk_template": "TENANT#{tenant}|{status}", "sk_template": "{resolver}" }],
                "fields": [
                    field("tenant", "string"), field("id", "string"), field("title", "string"),
                    field("status", "string"),
                    { "name": "resolver", "type": "string", "required": false },
                    field("created_at", "string"),
                ],
                "access_patterns": [
                    { "pattern_id": 1, "name": "ticket_with_comments", "description": "A ticket and all its comments",
                      "operation": "Query", "return_type": "mixed_data", "parameters": tenant_id },
                    { "pattern_id": 2, "name": "ticket_summary", "description": "A ticket summary",
                      "operation": "GetItem", "return_type": "single_entity", "parameters": tenant_id },
                    { "pattern_id": 3, "name": "open_tickets", "description": "Open tickets",
                      "operation": "Query", "index_name": "GSI1", "return_type": "entity_list",
                      "parameters": [param("tenant", "string"), param("status", "string")] },
                    { "pattern_id": 4, "name": "open_tickets_for_resolver", "description": "Open tickets of a resolver",
                      "operation": "Query", "index_name": "GSI1", "return_type": "entity_list",
                      "parameters": [param("tenant", "string"), param("status", "string"), param("resolver", "string")] },
                    { "pattern_id": 5, "name": "close_tickets", "description": "Close a ticket",
                      "operation": "UpdateItem", "return_type": "single_entity",
                      "parameters": [param("tenant", "string"), param("id", "string"), param("status", "string")] },
                ],
            },
            "Comment": {
                "entity_type": "COMMENT",
                "pk_template": "TENANT#{tenant}|TICKET#{ticket_id}",
                "sk_template": "COMMENT#{created_at}#{id}",
                "fields": [
                    field("tenant", "string"), field("ticket_id", "string"), field("id", "string"),
                    field("author", "string"), field("body", "string"), field("created_at", "string"),
                ],
                "access_patterns": [],
            },
            "TicketCount": {
                "entity_type": "TICKET_COUNT",
                "pk_template": "TENANT#{tenant}|AGGREGATE",
                "sk_template": "STATUS#{status}",
                "fields": [field("tenant", "string"), field("status", "string"), field("count", "integer")],
                "access_patterns": [
                    { "pattern_id": 6, "name": "ticket_counts_by_status", "description": "Ticket counts by status",
                      "operation": "Query", "return_type": "entity_list", "parameters": [param("tenant", "string")] },
                ],
            },
        },
    }]})
}

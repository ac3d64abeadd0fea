//! What the name table claims, in which scope, and how each name is made
//! from the spec's names.

use super::{types, BuilderOp, EntityOp, Item, NameTable, Scope};
use crate::ir::{self, ElementChange, Operation, TransactionOp};
use crate::naming::{pascal, screaming, snake, STD_NAMES};
use crate::source::Span;

/// Types and values every generated module defines.
const MODULE_TYPES: &[&str] = &[
    "Tenancy",
    "TenantId",
    "Repository",
    "TenantRepository",
    "migrations",
];
/// Constants every generated module defines.
const MODULE_VALUES: &[&str] = &["TABLE_NAME", "TABLE", "IAM_POLICY", "IAM_ROLE_POLICIES"];
/// Methods every `Repository` or `TenantRepository` has.
const REPOSITORY_METHODS: &[&str] = &[
    "new",
    "with_table_name",
    "with_retry_policy",
    "client",
    "table_name",
    "create_table",
    "for_tenant",
    "tenant",
    "apply_counter_changes",
    "transact_get",
    "allow_pending",
    "with_page_tokens",
    // Derived `Clone`'s, which an inherent method would shadow.
    "clone",
    "clone_from",
];
/// Methods of every entity's struct.
const ENTITY_METHODS: &[&str] = &["key", "with_timestamps"];
/// Methods every update type has (`update_methods!` and `to_update`).
const UPDATE_METHODS: &[&str] = &[
    "or_create",
    "to_update",
    "idempotent",
    "idempotency_token",
    "when",
    // Derived `Default`'s and `Clone`'s, which an inherent method would
    // shadow (`TicketUpdate::default()`).
    "default",
    "clone",
    "clone_from",
];
/// Methods every transaction or batch builder may have.
const BUILDER_METHODS: &[&str] = &[
    "send",
    "all",
    "len",
    "is_empty",
    "client_request_token",
    "push",
    "push_write",
    "include_expired",
];

/// Every built-in name of every scope.
pub(super) fn builtin_names() -> Vec<&'static str> {
    [
        MODULE_TYPES,
        MODULE_VALUES,
        REPOSITORY_METHODS,
        ENTITY_METHODS,
        UPDATE_METHODS,
        BUILDER_METHODS,
    ]
    .concat()
}

/// Claims every name of `table`'s spec, built-ins first in each scope.
pub(super) fn claim_all(table: &mut NameTable<'_>) {
    let spec = table.spec;
    for (scope, names) in [(Scope::Types, MODULE_TYPES), (Scope::Values, MODULE_VALUES)] {
        for name in names.iter().chain(STD_NAMES.iter().map(|(n, _)| n)) {
            table.claim(scope, Item::Builtin(scope, name), (*name).to_owned());
        }
    }
    for name in REPOSITORY_METHODS {
        let scope = Scope::Repository;
        table.claim(scope, Item::Builtin(scope, name), (*name).to_owned());
    }
    for entity in spec.entities.values() {
        claim_entity(table, entity);
    }
    claim_data_types(table);
    for pattern in spec.access_patterns.values() {
        claim_pattern(table, pattern);
    }
}

fn claim_entity<'s>(table: &mut NameTable<'s>, entity: &'s ir::Entity) {
    let spec = table.spec;
    let e = entity.name.as_str();
    let ty = pascal(e);
    table.claim(Scope::Types, Item::Entity(e), ty.clone());
    table.claim(Scope::Types, Item::Key(e), format!("{ty}Key"));
    table.claim(Scope::Types, Item::Update(e), format!("{ty}Update"));
    if entity.has_input_type() {
        table.claim(Scope::Types, Item::Input(e), format!("New{ty}"));
    }
    if let Some(aggregate) = &entity.aggregate {
        let group = format!("{}_group_for_{}", snake(&aggregate.of), snake(e));
        table.claim(
            Scope::Values,
            Item::Counter(e),
            format!("COUNTER_{}", screaming(e)),
        );
        // The group of a stored item: the stream handler's, and a pending
        // recount's (the lock decides, after names are planned).
        table.claim(Scope::Values, Item::ImageFn(e), format!("{group}_image"));
        if aggregate.maintained_by == ir::Maintenance::Stream {
            table.claim(
                Scope::Values,
                Item::ChangesFn(e),
                format!("{}_changes", snake(e)),
            );
        }
        table.claim(Scope::Values, Item::GroupFn(e), group);
    }
    // The counters the stream keeps are only read: the stream handler
    // writes them.
    let ops: &[EntityOp] = match entity.kept_by_stream() {
        true => &[EntityOp::Get],
        false => &EntityOp::ALL,
    };
    for &op in ops {
        table.claim(
            Scope::Repository,
            Item::EntityOp(e, op),
            entity_op(spec, e, op),
        );
    }
    let own = Scope::EntityImpl(e);
    for name in ENTITY_METHODS {
        table.claim(own, Item::Builtin(own, name), (*name).to_owned());
    }
    for condition in entity.conditions.values() {
        let c = condition.name.as_str();
        table.claim(own, Item::Condition(e, c), snake(c));
        for name in filter_params(&condition.conditions) {
            let item = Item::ConditionParam(e, c, name.as_str());
            table.claim(Scope::ConditionParams(e, c), item, snake(name));
        }
    }
    // The constructor (`new`), and below the optional attributes' `with_…`
    // methods: conveniences the spec did not ask for, so where a condition
    // has the name already they take `_item`/`_value` rather than refusing
    // the spec. The last claims of the scope, so nothing takes them after.
    let mut constructor = "new".to_owned();
    while table.is_taken(own, &constructor) {
        constructor.push_str("_item");
    }
    table.claim(own, Item::Constructor(e), constructor);
    let fields = Scope::Fields(e);
    if let Some(ir::Sharding {
        by: ir::ShardBy::Random,
        ..
    }) = &entity.shards
    {
        table.claim(fields, Item::ShardField(e), "shard".to_owned());
    }
    for attribute in entity.attributes.values() {
        let a = attribute.name.as_str();
        table.claim(fields, Item::Field(e, a), snake(a));
        if !attribute.key_only {
            table.claim(own, Item::FieldConst(e, a), snake(a).to_uppercase());
        }
        if attribute.optional {
            // `with_timestamps` or a condition `with_<attribute>` may have
            // the name: `_value` then (see the constructor above).
            let mut name = format!("with_{}", snake(a));
            while table.is_taken(own, &name) {
                name.push_str("_value");
            }
            table.claim(own, Item::With(e, a), name);
        }
    }
    claim_update(table, entity);
}

/// The update type's methods (each also names the field behind it): a
/// setter per attribute an update may change, the element changes and the
/// typed-map field setters.
fn claim_update<'s>(table: &mut NameTable<'s>, entity: &'s ir::Entity) {
    let e = entity.name.as_str();
    let methods = Scope::UpdateMethods(e);
    for name in UPDATE_METHODS {
        table.claim(methods, Item::Builtin(methods, name), (*name).to_owned());
    }
    let keys = entity.primary_key_attributes();
    for attribute in entity.attributes.values() {
        if !keys.contains(attribute.name.as_str()) && attribute.timestamp.is_none() {
            let a = attribute.name.as_str();
            table.claim(methods, Item::Setter(e, a), snake(a));
        }
    }
    for (attribute, change) in entity.element_changes() {
        let field = snake(&attribute.name);
        let name = match change {
            ElementChange::Add => format!("add_{field}"),
            ElementChange::SetAdd => format!("add_to_{field}"),
            ElementChange::SetRemove => format!("remove_from_{field}"),
            ElementChange::ListAppend => format!("append_to_{field}"),
            ElementChange::ListRemoveAt => format!("remove_from_{field}_at"),
        };
        table.claim(
            methods,
            Item::Change(e, attribute.name.as_str(), change),
            name,
        );
    }
    for (map, field) in entity.field_changes() {
        let name = format!("set_{}_{}", snake(&map.name), snake(&field.name));
        let item = Item::FieldChange(e, map.name.as_str(), field.name.as_str());
        table.claim(methods, item, name);
    }
}

/// The repository method of entity operation `op` on `entity`:
/// `get_ticket`, or `get_ticket_item` when an access pattern is already
/// called `get_ticket`.
fn entity_op(spec: &ir::Spec, entity: &str, op: EntityOp) -> String {
    let method = format!("{}_{}", op.verb(), snake(entity));
    // Access pattern names are snake_case already (the resolver insists).
    let method = if spec.access_patterns.contains_key(&method) {
        format!("{method}_item")
    } else {
        method
    };
    match op {
        EntityOp::PutWhen | EntityOp::DeleteWhen => format!("{method}_when"),
        EntityOp::Get
        | EntityOp::Put
        | EntityOp::Create
        | EntityOp::Update
        | EntityOp::Delete
        | EntityOp::Replace => method,
    }
}

/// One enum or struct per distinct generated type, with its variants or
/// fields; the other paths of the same type share its name.
fn claim_data_types(table: &mut NameTable<'_>) {
    let spec = table.spec;
    let paths = types::typed_paths(spec);
    let names = types::type_names(spec, &paths);
    let mut by_name: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    for (((entity, path), def), name) in paths.into_iter().zip(names) {
        let index = match by_name.get(&name) {
            Some(index) => *index,
            None => {
                let index = table.data_types.len();
                let description = spec.entities[entity]
                    .attributes
                    .get(path.as_str())
                    .and_then(|a| a.description.as_deref());
                by_name.insert(name.clone(), index);
                table.data_types.push(types::DataType {
                    entity,
                    path: path.clone(),
                    def,
                    description,
                });
                table.claim(Scope::Types, Item::DataType(index), name);
                claim_members(table, index, def);
                index
            }
        };
        table.type_of_path.insert((entity.to_owned(), path), index);
    }
}

/// The variants of a generated enum or the fields of a typed map's struct.
fn claim_members<'s>(table: &mut NameTable<'s>, index: usize, def: types::TypeDef<'s>) {
    match def {
        types::TypeDef::Enum(values) => {
            let scope = Scope::Variants(index);
            table.claim(
                scope,
                Item::Builtin(scope, "UnknownValue"),
                "UnknownValue".to_owned(),
            );
            for value in values {
                let item = Item::Variant(index, value.as_str());
                table.claim(Scope::Variants(index), item, pascal(value));
            }
        }
        types::TypeDef::Record(fields) => {
            for field in fields.values() {
                let item = Item::RecordField(index, field.name.as_str());
                table.claim(Scope::Record(index), item, snake(&field.name));
            }
        }
    }
}

fn claim_pattern<'s>(table: &mut NameTable<'s>, pattern: &'s ir::AccessPattern) {
    let p = pattern.name.as_str();
    let ty = pascal(p);
    table.claim(Scope::Repository, Item::Pattern(p), snake(p));
    let builder = match &pattern.operation {
        Operation::Transaction(_) | Operation::TransactGet(_) => Some("Transaction"),
        Operation::Batch(_) => Some("Batch"),
        Operation::Get { .. } | Operation::Query(_) | Operation::Scan(_) => None,
    };
    if let Some(suffix) = builder {
        table.claim(Scope::Types, Item::Builder(p), format!("{ty}{suffix}"));
        if matches!(pattern.operation, Operation::Transaction(_)) {
            table.claim(Scope::Types, Item::Step(p), format!("{ty}Step"));
            table.claim(Scope::Types, Item::Written(p), format!("{ty}Written"));
        }
        let scope = Scope::Builder(p);
        for name in BUILDER_METHODS {
            table.claim(scope, Item::Builtin(scope, name), (*name).to_owned());
        }
    }
    let several = match &pattern.operation {
        Operation::Query(q) => q.returns.iter().collect(),
        Operation::Batch(b) => b.get.iter().collect(),
        Operation::Get { .. }
        | Operation::Scan(_)
        | Operation::Transaction(_)
        | Operation::TransactGet(_) => Vec::new(),
    };
    if several.len() > 1 {
        table.claim(Scope::Types, Item::Collection(p), format!("{ty}Item"));
        for entity in several {
            let item = Item::CollectionVariant(p, entity.as_str());
            table.claim(Scope::ItemVariants(p), item, pascal(entity));
        }
    }
    let reads_several = pattern.named_entities().len() > 1;
    for entity in pattern.partials.keys() {
        let name = if reads_several {
            format!("{ty}{}", pascal(entity))
        } else {
            format!("{ty}Item")
        };
        table.claim(Scope::Types, Item::Partial(p, entity.as_str()), name);
    }
    claim_builder_ops(table, pattern);
    claim_params(table, pattern);
}

fn claim_builder_ops<'s>(table: &mut NameTable<'s>, pattern: &'s ir::AccessPattern) {
    let p = pattern.name.as_str();
    let scope = Scope::Builder(p);
    let mut ops: Vec<(&'s str, BuilderOp)> = Vec::new();
    match &pattern.operation {
        Operation::Transaction(t) => {
            for (op, entity) in &t.items {
                let e = entity.as_str();
                match op {
                    TransactionOp::Put => {
                        ops.extend([(e, BuilderOp::Put), (e, BuilderOp::PutWhen)])
                    }
                    TransactionOp::Create => ops.push((e, BuilderOp::Create)),
                    TransactionOp::Update => ops.push((e, BuilderOp::Update)),
                    TransactionOp::Delete => {
                        ops.extend([(e, BuilderOp::Delete), (e, BuilderOp::DeleteWhen)]);
                    }
                    TransactionOp::ConditionCheck => {
                        ops.extend([(e, BuilderOp::Check), (e, BuilderOp::CheckWhen)]);
                    }
                }
            }
        }
        Operation::TransactGet(t) => {
            ops.extend(t.entities.iter().map(|e| (e.as_str(), BuilderOp::Get)));
        }
        Operation::Batch(b) => {
            ops.extend(b.put.iter().map(|e| (e.as_str(), BuilderOp::Put)));
            ops.extend(b.delete.iter().map(|e| (e.as_str(), BuilderOp::Delete)));
            ops.extend(b.get.iter().map(|e| (e.as_str(), BuilderOp::Get)));
        }
        Operation::Get { .. } | Operation::Query(_) | Operation::Scan(_) => {}
    }
    let transaction = matches!(pattern.operation, Operation::Transaction(_));
    for (entity, op) in ops {
        table.claim(scope, Item::BuilderOp(p, entity, op), op.name(entity));
        if transaction {
            let variant = pascal(&op.name(entity));
            table.claim(Scope::Steps(p), Item::StepVariant(p, entity, op), variant);
        }
    }
}

/// A query's parameters (its key condition's, then its filter's) and a
/// scan's (its filter's).
fn claim_params<'s>(table: &mut NameTable<'s>, pattern: &'s ir::AccessPattern) {
    let p = pattern.name.as_str();
    let (keys, filter): (Vec<&str>, _) = match &pattern.operation {
        Operation::Query(q) => (
            q.params.keys().map(String::as_str).collect(),
            q.filter.as_slice(),
        ),
        Operation::Scan(s) => (Vec::new(), s.filter.as_slice()),
        Operation::Get { entity, .. } => {
            let params = table
                .spec
                .entities
                .get(entity)
                .map(get_params)
                .unwrap_or_default();
            (params, &[][..])
        }
        Operation::Transaction(_) | Operation::TransactGet(_) | Operation::Batch(_) => {
            (Vec::new(), &[][..])
        }
    };
    for name in keys
        .into_iter()
        .chain(filter_params(filter).map(String::as_str))
    {
        table.claim(Scope::Params(p), Item::Param(p, name), snake(name));
    }
}

/// The parameters of a get of `entity`: its write shard, when random, and
/// the attributes of its primary key, in the order its templates name them.
fn get_params(entity: &ir::Entity) -> Vec<&str> {
    let shard = matches!(
        &entity.shards,
        Some(ir::Sharding {
            by: ir::ShardBy::Random,
            ..
        })
    );
    let attributes = entity.key_attributes().into_iter().map(|a| a.name.as_str());
    shard
        .then_some("shard")
        .into_iter()
        .chain(attributes)
        .collect()
}

/// The `<name>` operands of a filter or condition, in the order written.
fn filter_params(filter: &[ir::Filter]) -> impl Iterator<Item = &String> {
    ir::Filter::conditions(filter)
        .into_iter()
        .flat_map(|condition| {
            condition.operands.iter().filter_map(|o| match o {
                ir::FilterOperand::Param { name, .. } => Some(name),
                ir::FilterOperand::Literal(_) => None,
            })
        })
}

/// What `item` names, in words, and where that comes from in the spec.
pub(super) fn origin(table: &NameTable<'_>, item: Item<'_>, name: &str) -> (String, Span) {
    let spec = table.spec;
    let entity_span = |e: &str| {
        spec.entities
            .get(e)
            .map_or(Span::default(), |x| x.name.span)
    };
    let attribute_span = |e: &str, a: &str| {
        spec.entities
            .get(e)
            .and_then(|x| x.attributes.get(a))
            .map_or(Span::default(), |x| x.name.span)
    };
    let pattern_span = |p: &str| {
        spec.access_patterns
            .get(p)
            .map_or(Span::default(), |x| x.name.span)
    };
    match item {
        Item::Builtin(scope, _) => (builtin_origin(scope, name).to_owned(), Span::default()),
        Item::Entity(e) => (format!("the struct of entity `{e}`"), entity_span(e)),
        Item::Key(e) => (format!("the key type of entity `{e}`"), entity_span(e)),
        Item::Update(e) => (format!("the update type of entity `{e}`"), entity_span(e)),
        Item::Input(e) => (format!("the input type of entity `{e}`"), entity_span(e)),
        Item::DataType(i) => data_type_origin(table, i),
        Item::Builder(p) => (
            format!("the builder of access pattern `{p}`"),
            pattern_span(p),
        ),
        Item::Collection(p) => (
            format!("the item enum of access pattern `{p}`"),
            pattern_span(p),
        ),
        Item::Step(p) => (
            format!("the step enum of transaction `{p}`"),
            pattern_span(p),
        ),
        Item::Written(p) => (
            format!("the written enum of transaction `{p}`"),
            pattern_span(p),
        ),
        Item::StepVariant(p, e, _) => (
            format!("the step variant for `{e}` of transaction `{p}`"),
            pattern_span(p),
        ),
        Item::Partial(p, e) => (
            format!("the partial `{e}` of access pattern `{p}`"),
            pattern_span(p),
        ),
        Item::Counter(e) => (format!("the counter of aggregate `{e}`"), entity_span(e)),
        Item::GroupFn(e) => (
            format!("the group function of aggregate `{e}`"),
            entity_span(e),
        ),
        Item::ImageFn(e) => (
            format!("the stream image reader of aggregate `{e}`"),
            entity_span(e),
        ),
        Item::ChangesFn(e) => (
            format!("the stream handler of aggregate `{e}`"),
            entity_span(e),
        ),
        Item::Field(e, a) => (
            format!("the field of attribute `{a}` of `{e}`"),
            attribute_span(e, a),
        ),
        Item::ShardField(e) => (format!("the shard field of `{e}`"), entity_span(e)),
        Item::FieldConst(e, a) => (
            format!("the field constant of attribute `{a}` of `{e}`"),
            attribute_span(e, a),
        ),
        Item::Constructor(e) => (format!("the constructor of `{e}`"), entity_span(e)),
        Item::With(e, a) => (
            format!("the `with_…` method of attribute `{a}` of `{e}`"),
            attribute_span(e, a),
        ),
        Item::Condition(e, c) => {
            let span = spec
                .entities
                .get(e)
                .and_then(|x| x.conditions.get(c))
                .map_or(Span::default(), |x| x.name.span);
            (format!("the condition `{c}` of entity `{e}`"), span)
        }
        Item::Setter(e, a) => (
            format!("the setter of attribute `{a}` of `{e}`"),
            attribute_span(e, a),
        ),
        Item::Change(e, a, _) => (
            format!("the `{name}` change of attribute `{a}` of `{e}`"),
            attribute_span(e, a),
        ),
        Item::FieldChange(e, a, f) => (
            format!("the setter of field `{f}` of attribute `{a}` of `{e}`"),
            attribute_span(e, a),
        ),
        Item::EntityOp(e, op) => (
            format!("the {} method of entity `{e}`", op_words(op)),
            entity_span(e),
        ),
        Item::Pattern(p) => (
            format!("the method of access pattern `{p}`"),
            pattern_span(p),
        ),
        Item::BuilderOp(p, e, _) => (
            format!("the builder method for `{e}` of access pattern `{p}`"),
            pattern_span(p),
        ),
        Item::Variant(i, value) => {
            let (of, span) = data_type_origin(table, i);
            (format!("the variant of value `{value}` of {of}"), span)
        }
        Item::CollectionVariant(p, e) => (
            format!("the variant of `{e}` in the item enum of `{p}`"),
            pattern_span(p),
        ),
        Item::RecordField(i, field) => {
            let (of, span) = data_type_origin(table, i);
            (format!("the field `{field}` of {of}"), span)
        }
        Item::Param(p, name) => (
            format!("the parameter `{name}` of access pattern `{p}`"),
            pattern_span(p),
        ),
        Item::ConditionParam(e, c, name) => (
            format!("the parameter `{name}` of condition `{c}` of `{e}`"),
            entity_span(e),
        ),
    }
}

fn builtin_origin(scope: Scope<'_>, name: &str) -> &'static str {
    match scope {
        Scope::Types | Scope::Values if STD_NAMES.iter().any(|(n, _)| *n == name) => {
            "a name from Rust's prelude that generated code uses"
        }
        Scope::Types | Scope::Values => "an item every generated module defines",
        Scope::Repository => "a method every repository has",
        Scope::EntityImpl(_) => "a method of every entity's struct",
        Scope::UpdateMethods(_) => "a method every update type has",
        Scope::Builder(_) => "a method every builder has",
        Scope::Variants(_) => "the variant of values a newer design added, which every enum has",
        Scope::Fields(_)
        | Scope::Record(_)
        | Scope::ItemVariants(_)
        | Scope::Steps(_)
        | Scope::Params(_)
        | Scope::ConditionParams(..) => "a name generated code uses",
    }
}

fn data_type_origin(table: &NameTable<'_>, index: usize) -> (String, Span) {
    let Some(t) = table.data_types.get(index) else {
        return ("a generated type".to_owned(), Span::default());
    };
    let kind = match t.def {
        types::TypeDef::Enum(_) => "enum",
        types::TypeDef::Record(_) => "struct",
    };
    let top = t.path.split('.').next().unwrap_or(&t.path);
    let span = table
        .spec
        .entities
        .get(t.entity)
        .and_then(|e| e.attributes.get(top))
        .map_or(Span::default(), |a| a.name.span);
    (
        format!("the {kind} of attribute `{}` of `{}`", t.path, t.entity),
        span,
    )
}

fn op_words(op: EntityOp) -> &'static str {
    match op {
        EntityOp::Get => "`get`",
        EntityOp::Put => "`put`",
        EntityOp::Create => "`create`",
        EntityOp::Update => "`update`",
        EntityOp::Delete => "`delete`",
        EntityOp::Replace => "`replace`",
        EntityOp::PutWhen => "conditional put",
        EntityOp::DeleteWhen => "conditional delete",
    }
}

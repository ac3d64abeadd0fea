//! The name table: every name the generated module defines, claimed once,
//! per scope, before anything is printed.
//!
//! The table is the one place where a spec name becomes a Rust name. The
//! Rust emitter asks it for every public name it prints (types, fields,
//! variants, methods, constants, parameters), and `check` reports the
//! clashes it found ([`NameTable::clashes`]): a name claimed twice in one
//! scope is a clash, and the later claim still gets a name of its own (a
//! numbered one), so rendering stays total even where `check` refuses.
//!
//! Names that generated code keeps for itself are claimed first in each
//! scope (*built-ins*); its private helpers live in the `__` namespace,
//! which no name made from a spec name can enter ([`naming::snake`] and
//! [`naming::pascal`] never begin with two underscores).

mod claim;
pub(crate) mod types;

use indexmap::IndexMap;
use proc_macro2::Ident;

use crate::ir;
use crate::naming;
use crate::source::Span;

pub(crate) use types::{type_at, typed_paths, TypeDef};

/// Every name generated code keeps for itself, in any scope.
pub(crate) fn builtin_names() -> Vec<&'static str> {
    claim::builtin_names()
}

/// Where a name lives: two claims of one name in one scope clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Scope<'s> {
    /// The module's type namespace: structs, enums, aliases, imports.
    Types,
    /// The module's value namespace: functions, constants, statics.
    Values,
    /// The methods of `Repository` and `TenantRepository` (one scope: an
    /// entity or pattern may move from one handle to the other).
    Repository,
    /// The fields of an entity's struct.
    Fields(&'s str),
    /// The associated items of an entity's struct: field constants, named
    /// conditions, `key`, `with_timestamps`.
    EntityImpl(&'s str),
    /// The methods of an entity's update type (each setter and change also
    /// names the field behind it; the type's own field is `__options`).
    UpdateMethods(&'s str),
    /// The variants of a generated enum (by its index in
    /// [`NameTable::data_types`]).
    Variants(usize),
    /// The fields of a typed map's struct (by its index in
    /// [`NameTable::data_types`]).
    Record(usize),
    /// The variants of an access pattern's item enum.
    ItemVariants(&'s str),
    /// The methods of an access pattern's transaction or batch builder.
    Builder(&'s str),
    /// The variants of a transaction's step and written enums.
    Steps(&'s str),
    /// The parameters of an access pattern's method.
    Params(&'s str),
    /// The parameters of a named condition's constructor, `(entity,
    /// condition)`.
    ConditionParams(&'s str, &'s str),
}

/// What an entity operation of the repository does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum EntityOp {
    /// `get_ticket`.
    Get,
    /// `put_ticket`.
    Put,
    /// `create_ticket`.
    Create,
    /// `update_ticket`.
    Update,
    /// `delete_ticket`.
    Delete,
    /// `replace_ticket`.
    Replace,
    /// `put_ticket_when`.
    PutWhen,
    /// `delete_ticket_when`.
    DeleteWhen,
}

impl EntityOp {
    /// Every operation, in the order the repository declares them.
    pub(crate) const ALL: [EntityOp; 8] = [
        EntityOp::Get,
        EntityOp::Put,
        EntityOp::Create,
        EntityOp::Update,
        EntityOp::Delete,
        EntityOp::Replace,
        EntityOp::PutWhen,
        EntityOp::DeleteWhen,
    ];

    fn verb(self) -> &'static str {
        match self {
            EntityOp::Get => "get",
            EntityOp::Put | EntityOp::PutWhen => "put",
            EntityOp::Create => "create",
            EntityOp::Update => "update",
            EntityOp::Delete | EntityOp::DeleteWhen => "delete",
            EntityOp::Replace => "replace",
        }
    }
}

/// What a method of a transaction or batch builder adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum BuilderOp {
    /// `put_ticket`.
    Put,
    /// `put_ticket_when`.
    PutWhen,
    /// `create_ticket`.
    Create,
    /// `update_ticket`.
    Update,
    /// `delete_ticket`.
    Delete,
    /// `delete_ticket_when`.
    DeleteWhen,
    /// `check_ticket`.
    Check,
    /// `check_ticket_when`.
    CheckWhen,
    /// `get_ticket`.
    Get,
}

impl BuilderOp {
    fn name(self, entity: &str) -> String {
        let s = naming::snake(entity);
        match self {
            BuilderOp::Put => format!("put_{s}"),
            BuilderOp::PutWhen => format!("put_{s}_when"),
            BuilderOp::Create => format!("create_{s}"),
            BuilderOp::Update => format!("update_{s}"),
            BuilderOp::Delete => format!("delete_{s}"),
            BuilderOp::DeleteWhen => format!("delete_{s}_when"),
            BuilderOp::Check => format!("check_{s}"),
            BuilderOp::CheckWhen => format!("check_{s}_when"),
            BuilderOp::Get => format!("get_{s}"),
        }
    }
}

/// One thing of the generated module that has a name of its own, by the
/// spec names it is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Item<'s> {
    /// A name generated code keeps for itself in a scope.
    Builtin(Scope<'s>, &'static str),
    /// An entity's struct: `Ticket`.
    Entity(&'s str),
    /// An entity's key struct: `TicketKey`.
    Key(&'s str),
    /// An entity's update type: `TicketUpdate`.
    Update(&'s str),
    /// An entity's input type, without what the repository sets: `NewTicket`.
    Input(&'s str),
    /// A generated enum or typed-map struct, by its index in
    /// [`NameTable::data_types`].
    DataType(usize),
    /// An access pattern's transaction or batch builder.
    Builder(&'s str),
    /// A transaction's enum of its steps (one per builder method).
    Step(&'s str),
    /// A transaction's enum of what each step wrote.
    Written(&'s str),
    /// The enum of the items an access pattern returns.
    Collection(&'s str),
    /// The partial type of an entity an access pattern reads in part,
    /// `(pattern, entity)`.
    Partial(&'s str, &'s str),
    /// An aggregate's counter constant: `COUNTER_TICKET_COUNT`.
    Counter(&'s str),
    /// The function finding an item's group, by aggregate.
    GroupFn(&'s str),
    /// The stream-image reader of an aggregate's group.
    ImageFn(&'s str),
    /// The stream handler of an aggregate.
    ChangesFn(&'s str),
    /// The field of an attribute in its entity's struct (and key struct,
    /// partial types and the derive's accessors), `(entity, attribute)`.
    Field(&'s str, &'s str),
    /// The random write shard's field of an entity's struct.
    ShardField(&'s str),
    /// An attribute's field constant, `(entity, attribute)`: `STATUS`.
    FieldConst(&'s str, &'s str),
    /// The entity's constructor: `new`.
    Constructor(&'s str),
    /// The entity's `with_…` method setting an optional attribute,
    /// `(entity, attribute)`.
    With(&'s str, &'s str),
    /// A named condition of an entity, `(entity, condition)`.
    Condition(&'s str, &'s str),
    /// An update's setter (and the field behind it), `(entity, attribute)`.
    Setter(&'s str, &'s str),
    /// An update's element change, `(entity, attribute, change)`.
    Change(&'s str, &'s str, ir::ElementChange),
    /// An update's typed-map field setter, `(entity, map, field)`.
    FieldChange(&'s str, &'s str, &'s str),
    /// A repository method of an entity.
    EntityOp(&'s str, EntityOp),
    /// An access pattern's method.
    Pattern(&'s str),
    /// A builder method, `(pattern, entity, op)`.
    BuilderOp(&'s str, &'s str, BuilderOp),
    /// The variant of a transaction step, `(pattern, entity, op)`: in its
    /// step enum and its written enum alike.
    StepVariant(&'s str, &'s str, BuilderOp),
    /// A variant of a generated enum, `(type, value)`.
    Variant(usize, &'s str),
    /// A variant of a pattern's item enum, `(pattern, entity)`.
    CollectionVariant(&'s str, &'s str),
    /// A field of a typed map's struct, `(type, field)`.
    RecordField(usize, &'s str),
    /// A parameter of an access pattern's method, `(pattern, parameter)`.
    Param(&'s str, &'s str),
    /// A parameter of a named condition, `(entity, condition, parameter)`.
    ConditionParam(&'s str, &'s str, &'s str),
}

/// One generated name, with what in the spec it comes from (for messages).
#[derive(Debug, Clone)]
pub struct GeneratedName {
    /// The Rust name.
    pub name: String,
    /// What it names, in words.
    pub origin: String,
    /// Where that comes from in the spec.
    pub span: Span,
    /// The name is the generated code's own (`Repository`, `tenant()`, …).
    pub builtin: bool,
    /// It is made from an attribute's name, which `stored_as` lets the
    /// spec rename while the table keeps the stored name.
    pub attribute: bool,
}

/// Every name of one generated module.
#[derive(Debug)]
pub(crate) struct NameTable<'s> {
    spec: &'s ir::Spec,
    /// The name given to each item.
    names: IndexMap<Item<'s>, String>,
    /// The first claim of each `(scope, name)`.
    first: IndexMap<(Scope<'s>, String), Item<'s>>,
    /// Later claims of a taken name: `(first, later, the name)`.
    clashes: Vec<(Item<'s>, Item<'s>, String)>,
    /// The generated types of attributes and typed-map fields, each once,
    /// with the first `(entity, path)` that defines it.
    data_types: Vec<types::DataType<'s>>,
    /// The index in `data_types` of every `(entity, path)` with a
    /// generated type (several share one when their definitions agree).
    type_of_path: IndexMap<(String, String), usize>,
}

impl<'s> NameTable<'s> {
    /// Claims every name the generated module of `spec` defines.
    pub(crate) fn new(spec: &'s ir::Spec) -> Self {
        let mut table = NameTable {
            spec,
            names: IndexMap::new(),
            first: IndexMap::new(),
            clashes: Vec::new(),
            data_types: Vec::new(),
            type_of_path: IndexMap::new(),
        };
        claim::claim_all(&mut table);
        table
    }

    /// Gives `item` the name `name` in `scope`; a name already taken there
    /// is a clash, and the item gets the first free numbered name instead.
    /// An item claimed twice keeps its first name (a shared type).
    /// Whether `name` is claimed in `scope` already.
    fn is_taken(&self, scope: Scope<'s>, name: &str) -> bool {
        self.first.contains_key(&(scope, name.to_owned()))
    }

    fn claim(&mut self, scope: Scope<'s>, item: Item<'s>, name: String) {
        if self.names.contains_key(&item) {
            return;
        }
        let given = match self.first.get(&(scope, name.clone())) {
            None => name,
            Some(first) => {
                self.clashes.push((*first, item, name.clone()));
                let mut n = 2;
                loop {
                    let numbered = format!("{name}{n}");
                    if !self.first.contains_key(&(scope, numbered.clone())) {
                        break numbered;
                    }
                    n += 1;
                }
            }
        };
        self.first.insert((scope, given.clone()), item);
        self.names.insert(item, given);
    }

    /// The name of `item`, as text.
    pub(crate) fn name(&self, item: Item<'s>) -> &str {
        match self.names.get(&item) {
            Some(name) => name,
            None => {
                panic!("invariant: the name table claims every item the emitter prints ({item:?})")
            }
        }
    }

    /// Whether the module defines `item`.
    pub(crate) fn has(&self, item: Item<'s>) -> bool {
        self.names.contains_key(&item)
    }

    /// The name of `item`, as an identifier (raw for a keyword).
    pub(crate) fn ident(&self, item: Item<'s>) -> Ident {
        naming::ident(self.name(item))
    }

    /// The generated type of the value at `path` (an attribute's name, then
    /// `.field` per typed-map level) of `entity`, if it has one: its index
    /// in [`Self::data_types`].
    pub(crate) fn data_type_at(&self, entity: &str, path: &str) -> Option<usize> {
        self.type_of_path
            .get(&(entity.to_owned(), path.to_owned()))
            .copied()
    }

    /// Every generated enum and typed-map struct, each once, in declaration
    /// order.
    pub(crate) fn data_types(&self) -> &[types::DataType<'s>] {
        &self.data_types
    }

    /// Every name claimed, with its scope and the item it names, in the
    /// order they were claimed.
    pub(crate) fn claims(&self) -> impl Iterator<Item = (Scope<'s>, &str, Item<'s>)> + '_ {
        self.first
            .iter()
            .map(|((scope, name), item)| (*scope, name.as_str(), *item))
    }

    /// Every clash: the first claim of a name and the later one.
    pub(crate) fn clashes(&self) -> Vec<(GeneratedName, GeneratedName)> {
        self.clashes
            .iter()
            .map(|(first, later, name)| (self.describe(*first, name), self.describe(*later, name)))
            .collect()
    }

    /// `item`, named `name`, as a [`GeneratedName`].
    fn describe(&self, item: Item<'s>, name: &str) -> GeneratedName {
        let (origin, span) = claim::origin(self, item, name);
        GeneratedName {
            name: name.to_owned(),
            origin,
            span,
            builtin: matches!(item, Item::Builtin(..)),
            attribute: matches!(
                item,
                Item::Field(..) | Item::FieldConst(..) | Item::Setter(..) | Item::With(..)
            ),
        }
    }
}

#[cfg(test)]
mod tests;

//! The sample items of every spec's NoSQL Workbench model are exactly what
//! the generated repositories write: each decodes into its entity, and
//! encoding it again (for the tenant whose keys it carries) gives back the
//! same item, keys and sparse index keys included.

use singletable::emit::workbench;
use singletable_runtime::{Entity, TenantId, TenantRules};
use singletable_tests::dynamo_json;
use singletable_tests::generated::*;

/// The scopes a sample could have been written for.
trait Scopes: Sized {
    fn scopes(tenants: &[String]) -> Vec<Self>;
}

impl Scopes for () {
    fn scopes(_: &[String]) -> Vec<Self> {
        vec![()]
    }
}

impl<R: TenantRules> Scopes for TenantId<R> {
    fn scopes(tenants: &[String]) -> Vec<Self> {
        tenants
            .iter()
            .filter_map(|t| TenantId::new(t.clone()).ok())
            .collect()
    }
}

fn model(stem: &str) -> (serde_json::Value, Vec<String>) {
    let path = format!("{}/../schemas/{stem}.yaml", env!("CARGO_MANIFEST_DIR"));
    let compilation = singletable::Compiler::new().file(path).compile();
    let spec = &compilation.specs[0].spec;
    let model = workbench::model(spec, &workbench::Options::default());
    (
        serde_json::to_value(model).unwrap(),
        workbench::sample_tenants(spec),
    )
}

/// Checks every item of facet `E`; the number checked. Each entity also
/// survives serde (the build script derives it): JSON and back is the same
/// entity, and writes the same item.
fn check<E: Entity + serde::Serialize + serde::de::DeserializeOwned>(
    model: &serde_json::Value,
    tenants: &[String],
) -> usize
where
    E::Scope: Scopes,
{
    let facet = model["DataModel"][0]["TableFacets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["FacetName"] == E::ENTITY_TYPE)
        .unwrap_or_else(|| panic!("no facet {}", E::ENTITY_TYPE));
    let items = facet["TableData"].as_array().unwrap();
    assert!(!items.is_empty(), "{}: no samples", E::ENTITY_TYPE);
    for json in items {
        let item = dynamo_json::item(json).unwrap();
        let entity =
            E::from_item(&item).unwrap_or_else(|e| panic!("{}: {e:?} in {json}", E::ENTITY_TYPE));
        let text = serde_json::to_string(&entity).unwrap();
        let entity: E = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: {e} in {text}", E::ENTITY_TYPE));
        let written: Vec<_> = E::Scope::scopes(tenants)
            .iter()
            .filter_map(|s| entity.to_item(s).ok())
            .filter(|w| *w == item)
            .collect();
        assert_eq!(
            written.len(),
            1,
            "{}: the repository writes {json} for exactly one tenant",
            E::ENTITY_TYPE
        );
    }
    items.len()
}

macro_rules! samples {
    ($module:ident: $($entity:ident),+) => {{
        let (model, tenants) = model(stringify!($module));
        let facets = model["DataModel"][0]["TableFacets"].as_array().unwrap().len();
        let names = [$(stringify!($entity)),+];
        assert_eq!(facets, names.len(), "{}: every entity is listed", stringify!($module));
        $(check::<$module::$entity>(&model, &tenants);)+
    }};
}

#[test]
fn entities_serialize_with_their_stored_names_and_values() {
    use support_ticket::{Status, Ticket, TicketKey};
    let ticket = Ticket {
        id: "T-1".into(),
        title: "Printer on fire".into(),
        status: Status::Open,
        resolver: None,
        created_at: singletable_runtime::DateTime::from_millis(1_714_564_800_250),
    };
    let json = serde_json::to_value(&ticket).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "id": "T-1",
            "title": "Printer on fire",
            "status": "OPEN",
            "resolver": null,
            "created_at": "2024-05-01T12:00:00.25Z",
        })
    );
    // An optional attribute may be left out; an enum value must be one the
    // spec declares, as stored.
    let back: Ticket = serde_json::from_value(serde_json::json!({
        "id": "T-1", "title": "Printer on fire", "status": "OPEN",
        "created_at": "2024-05-01T12:00:00.25Z",
    }))
    .unwrap();
    assert_eq!(back, ticket);
    let wrong = serde_json::from_value::<Ticket>(serde_json::json!({
        "id": "T-1", "title": "x", "status": "Open", "created_at": "2024-05-01T12:00:00Z",
    }));
    assert!(wrong
        .unwrap_err()
        .to_string()
        .contains("unknown variant `Open`"));
    let key: TicketKey = serde_json::from_str(r#"{"id":"T-1"}"#).unwrap();
    assert_eq!(key, ticket.key());
}

#[test]
fn sample_items_are_what_the_repositories_write() {
    samples!(contest_votes: Contestant, VoteShard, VoteTotal);
    samples!(inverted_role_index: User, Role, RoleAssignment);
    samples!(iot_device_reports: Device, DeviceReport);
    samples!(monthly_activity: ActivityEvent, MonthlyActivityCount);
    samples!(photo_site: UserProfile, Photo);
    samples!(pooled_product_catalog: Product);
    samples!(project_task_comment: Project, Task, Comment);
    samples!(saas_tenant_users_orders: Tenant, User, Order, InventoryItem);
    samples!(shopping_cart: CartItem, WishlistItem, CartCount);
    samples!(short_lived_messages: Message);
    samples!(support_ticket: Ticket, Comment, TicketCount);
    samples!(vertical_partitioning: DocumentMeta, DocumentBodyChunk, DocumentAttachment, DocumentShare);
}

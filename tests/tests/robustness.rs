//! Items from anywhere decode to a value or a typed error naming the
//! attribute, never a panic: arbitrary attribute maps through every
//! entity's `from_item`, and arbitrary stored keys through the decoders
//! that read attributes back out of keys.

use proptest::prelude::*;
use singletable_runtime::sdk::primitives::Blob;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DecodeError, Entity, Item};
use singletable_tests::generated::*;

/// Attribute names the specs use, so the maps hit real decode paths.
const NAMES: &[&str] = &[
    "pk",
    "sk",
    "entity_type",
    "EntityType",
    "id",
    "ticket_id",
    "title",
    "status",
    "resolver",
    "created_at",
    "author",
    "body",
    "count",
    "tenant_status",
    "ShardID",
    "ProductID",
    "product_id",
    "name",
    "category",
    "price",
    "currency",
    "doc",
    "updated_at",
    "gsi1pk",
    "gsi1sk",
    "photo_id",
    "url",
    "tags",
    "uploaded_at",
    "width",
    "lsi1sk",
    "month",
    "occurred_at",
    "event_id",
    "expires_at",
    "details",
    "chunk",
    "text",
    "version",
    "document_id",
    "reported_at",
    "temperature_c",
    "escalated_to",
];

/// Pieces of real keys, so random keys look like stored ones.
const PIECES: &[&str] = &[
    "TENANT#",
    "acme",
    "|",
    "#",
    "TICKET#",
    "T1",
    "COMMENT#",
    "2024-05-01T12:00:00Z",
    "2024-05-01T12:00:00.123Z",
    "SUMMARY",
    "S#",
    "3",
    "PRODUCT#",
    "DATE#",
    "PHOTO#",
    "01HZ0000000000000000000001",
    "BODY#",
    "0000000007",
    "%23",
    "%",
    "OPEN",
    "ACTIVITY#",
    "2024-05",
    "ORG#",
    "DOC#",
    "",
];

fn value() -> impl Strategy<Value = AttributeValue> {
    let leaf = prop_oneof![
        "\\PC{0,12}".prop_map(AttributeValue::S),
        prop::collection::vec(prop::sample::select(PIECES), 0..6)
            .prop_map(|p| AttributeValue::S(p.concat())),
        prop_oneof![
            "-?[0-9]{1,40}(\\.[0-9]{0,40})?",
            "[0-9eE+.-]{0,8}",
            Just("1e999".to_owned()),
            Just("18446744073709551616".to_owned()),
        ]
        .prop_map(AttributeValue::N),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null(true)),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(|b| AttributeValue::B(Blob::new(b))),
        prop::collection::vec("\\PC{0,6}", 0..3).prop_map(AttributeValue::Ss),
        prop::collection::vec("[0-9]{1,3}", 0..3).prop_map(AttributeValue::Ns),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                .prop_map(|m| AttributeValue::M(m.into_iter().collect())),
        ]
    })
}

fn item() -> impl Strategy<Value = Item> {
    prop::collection::btree_map(
        prop_oneof![
            prop::sample::select(NAMES).prop_map(str::to_owned),
            "\\PC{0,6}"
        ],
        value(),
        0..14,
    )
    .prop_map(|m| m.into_iter().collect())
}

/// Decodes `item` as `E`; an error must name an attribute.
fn decode<E: Entity>(item: &Item) -> Result<(), TestCaseError> {
    if let Err(DecodeError {
        entity, attribute, ..
    }) = E::from_item(item)
    {
        prop_assert!(!entity.is_empty());
        prop_assert!(!attribute.is_empty(), "{entity}: no attribute named");
    }
    Ok(())
}

fn decode_all(item: &Item) -> Result<(), TestCaseError> {
    decode::<support_ticket::Ticket>(item)?;
    decode::<support_ticket::Comment>(item)?;
    decode::<support_ticket::TicketCount>(item)?;
    decode::<pooled_product_catalog::Product>(item)?;
    decode::<photo_site::Photo>(item)?;
    decode::<photo_site::UserProfile>(item)?;
    decode::<monthly_activity::ActivityEvent>(item)?;
    decode::<vertical_partitioning::DocumentBodyChunk>(item)?;
    decode::<vertical_partitioning::DocumentMeta>(item)?;
    decode::<iot_device_reports::DeviceReport>(item)?;
    decode::<contest_votes::VoteShard>(item)?;
    decode::<project_task_comment::Comment>(item)?;
    decode::<saas_tenant_users_orders::Order>(item)?;
    decode::<shopping_cart::CartItem>(item)?;
    decode::<short_lived_messages::Message>(item)?;
    decode::<inverted_role_index::RoleAssignment>(item)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn arbitrary_items_decode_or_name_the_attribute(item in item()) {
        decode_all(&item)?;
    }

    /// Only keys and the entity type: every other attribute must be read
    /// back out of the keys (as from a keys-only index), whatever they hold.
    #[test]
    fn arbitrary_keys_decode_or_name_the_attribute(
        pk in prop::collection::vec(prop::sample::select(PIECES), 0..8),
        sk in prop::collection::vec(prop::sample::select(PIECES), 0..8),
        extra in "\\PC{0,8}",
        entity in prop::sample::select(&["Ticket", "Comment", "Product", "Photo", "ActivityEvent", "DocumentBodyChunk", "DeviceReport", "VoteShard", "CartItem"][..]),
    ) {
        let mut item = Item::new();
        let pk = pk.concat() + &extra;
        let sk = sk.concat();
        for attribute in ["pk", "ShardID", "gsi1pk"] {
            item.insert(attribute.to_owned(), AttributeValue::S(pk.clone()));
        }
        for attribute in ["sk", "ProductID", "gsi1sk", "lsi1sk"] {
            item.insert(attribute.to_owned(), AttributeValue::S(sk.clone()));
        }
        for attribute in ["entity_type", "EntityType"] {
            item.insert(attribute.to_owned(), AttributeValue::S(entity.to_owned()));
        }
        decode_all(&item)?;
    }
}

/// An attribute an index projection leaves out but an index key holds is
/// read back out of that key: a ticket without `status` (GSI1's partition
/// key is `TENANT#<tenant>|<status>`) decodes with the status of its
/// `tenant_status`, and without either it is an error naming `status`.
#[test]
fn attributes_only_an_index_key_holds_are_read_back_out_of_it() {
    use support_ticket::{Status, TenantId, Ticket};
    let acme = TenantId::new("acme").unwrap();
    let ticket = Ticket {
        id: "T-1".into(),
        title: "Printer".into(),
        status: Status::Closed,
        resolver: Some("bob".into()),
        created_at: singletable_runtime::DateTime::from_secs(1_700_000_000),
    };
    let mut item = ticket.to_item(&acme).unwrap();
    item.remove("status");
    assert_eq!(Ticket::from_item(&item).unwrap(), ticket);
    item.remove("tenant_status");
    let err = Ticket::from_item(&item).unwrap_err();
    assert_eq!(err.attribute, "status", "{err}");
}

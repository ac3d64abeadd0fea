//! Table definitions, so a repository can create its own table (tests,
//! local development, demos).

use crate::error::Error;
use crate::sdk::operation::create_table::CreateTableInput;
use crate::sdk::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use crate::sdk::Client;

/// A key attribute: name and DynamoDB scalar type (`S`, `N` or `B`).
pub type KeyDef = (&'static str, &'static str);

/// Which attributes an index carries besides the keys, exactly as the
/// CreateTable request names them (the compiler has already added the
/// entity-type and TTL attributes that reading through the index needs).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum ProjectionDef {
    /// Every attribute.
    All,
    /// Only the keys.
    KeysOnly,
    /// These non-key attributes.
    Include(&'static [&'static str]),
}

/// A secondary index.
#[derive(Debug, Clone, Copy)]
pub struct IndexDef {
    /// Name.
    pub name: &'static str,
    /// Global (own partition key) or local.
    pub global: bool,
    /// The partition key's attributes: one, or up to four for a global
    /// index's multi-attribute key (a local index names the table's).
    pub partition_key: &'static [KeyDef],
    /// The sort key's attributes: none, one, or up to four for a global
    /// index's multi-attribute key.
    pub sort_key: &'static [KeyDef],
    /// Projection.
    pub projection: ProjectionDef,
    /// Provisioned (read, write) capacity of a global index.
    pub capacity: Option<(i64, i64)>,
}

/// A table as the spec declares it.
#[derive(Debug, Clone, Copy)]
pub struct TableDef {
    /// Partition key.
    pub partition_key: KeyDef,
    /// Sort key.
    pub sort_key: Option<KeyDef>,
    /// Secondary indexes.
    pub indexes: &'static [IndexDef],
    /// Provisioned (read, write) capacity; on-demand when `None`.
    pub capacity: Option<(i64, i64)>,
    /// Stream view type (`NEW_AND_OLD_IMAGES`, …).
    pub stream: Option<&'static str>,
    /// TTL attribute.
    pub ttl_attribute: Option<&'static str>,
}

/// Every partition key attribute (`HASH`), then every sort key attribute
/// (`RANGE`), in order.
fn key_schema(pk: &[KeyDef], sk: &[KeyDef]) -> Result<Vec<KeySchemaElement>, Error> {
    let element = |(name, _): &KeyDef, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(*name)
            .key_type(key_type)
            .build()
            .map_err(Error::from)
    };
    pk.iter()
        .map(|k| element(k, KeyType::Hash))
        .chain(sk.iter().map(|k| element(k, KeyType::Range)))
        .collect()
}

fn throughput((read, write): (i64, i64)) -> Result<ProvisionedThroughput, Error> {
    ProvisionedThroughput::builder()
        .read_capacity_units(read)
        .write_capacity_units(write)
        .build()
        .map_err(Error::from)
}

impl TableDef {
    fn attribute_definitions(&self) -> Result<Vec<AttributeDefinition>, Error> {
        let mut keys: Vec<KeyDef> = Vec::new();
        let all = std::iter::once(self.partition_key)
            .chain(self.sort_key)
            .chain(
                self.indexes
                    .iter()
                    .flat_map(|i| i.partition_key.iter().chain(i.sort_key).copied()),
            );
        for key in all {
            if !keys.iter().any(|k| k.0 == key.0) {
                keys.push(key);
            }
        }
        keys.into_iter()
            .map(|(name, ty)| {
                AttributeDefinition::builder()
                    .attribute_name(name)
                    .attribute_type(ScalarAttributeType::from(ty))
                    .build()
                    .map_err(Error::from)
            })
            .collect()
    }

    fn projection(def: ProjectionDef) -> Projection {
        match def {
            ProjectionDef::All => Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
            ProjectionDef::KeysOnly => Projection::builder()
                .projection_type(ProjectionType::KeysOnly)
                .build(),
            ProjectionDef::Include(names) => Projection::builder()
                .projection_type(ProjectionType::Include)
                .set_non_key_attributes(Some(names.iter().map(|n| (*n).to_owned()).collect()))
                .build(),
        }
    }

    /// The CreateTable request for a table named `table`: what
    /// [`TableDef::create`] sends.
    pub fn create_table_input(&self, table: &str) -> Result<CreateTableInput, Error> {
        let mut request = CreateTableInput::builder()
            .table_name(table)
            .set_attribute_definitions(Some(self.attribute_definitions()?))
            .set_key_schema(Some(key_schema(
                &[self.partition_key],
                self.sort_key.as_slice(),
            )?));
        request = match self.capacity {
            Some(c) => request
                .billing_mode(BillingMode::Provisioned)
                .provisioned_throughput(throughput(c)?),
            None => request.billing_mode(BillingMode::PayPerRequest),
        };
        for index in self.indexes {
            let projection = Self::projection(index.projection);
            if index.global {
                let mut gsi = GlobalSecondaryIndex::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(key_schema(index.partition_key, index.sort_key)?))
                    .projection(projection);
                if let Some(c) = index.capacity.or(self.capacity) {
                    gsi = gsi.provisioned_throughput(throughput(c)?);
                }
                request = request.global_secondary_indexes(gsi.build()?);
            } else {
                let lsi = LocalSecondaryIndex::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(key_schema(index.partition_key, index.sort_key)?))
                    .projection(projection);
                request = request.local_secondary_indexes(lsi.build()?);
            }
        }
        if let Some(view) = self.stream {
            request = request.stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(StreamViewType::from(view))
                    .build()?,
            );
        }
        Ok(request.build()?)
    }

    /// Creates the table named `table`, waits until it exists and enables TTL.
    pub async fn create(&self, client: &Client, table: &str) -> Result<(), Error> {
        let CreateTableInput {
            table_name,
            attribute_definitions,
            key_schema,
            local_secondary_indexes,
            global_secondary_indexes,
            billing_mode,
            provisioned_throughput,
            stream_specification,
            ..
        } = self.create_table_input(table)?;
        client
            .create_table()
            .set_table_name(table_name)
            .set_attribute_definitions(attribute_definitions)
            .set_key_schema(key_schema)
            .set_local_secondary_indexes(local_secondary_indexes)
            .set_global_secondary_indexes(global_secondary_indexes)
            .set_billing_mode(billing_mode)
            .set_provisioned_throughput(provisioned_throughput)
            .set_stream_specification(stream_specification)
            .send()
            .await?;
        self.wait_active(client, table).await?;
        if let Some(ttl) = self.ttl_attribute {
            client
                .update_time_to_live()
                .table_name(table)
                .time_to_live_specification(
                    TimeToLiveSpecification::builder()
                        .enabled(true)
                        .attribute_name(ttl)
                        .build()?,
                )
                .send()
                .await?;
        }
        Ok(())
    }

    async fn wait_active(&self, client: &Client, table: &str) -> Result<(), Error> {
        use crate::sdk::types::TableStatus;
        for attempt in 0..600u32 {
            let output = client.describe_table().table_name(table).send().await?;
            let status = output.table.and_then(|t| t.table_status);
            if status == Some(TableStatus::Active) {
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(
                50 + u64::from(attempt.min(19)) * 50,
            ))
            .await;
        }
        Ok(())
    }
}

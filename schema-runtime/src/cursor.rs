//! Where a query resumes, and the checks a cursor passes before it is sent.

use crate::error::CursorError;
use crate::query::QueryRequest;
use crate::Item;

/// A position in a query's results: in each partition read, the key of the
/// last item returned (or that the partition is done).
///
/// A cursor comes back to the server as `ExclusiveStartKey`, so a query
/// checks it first ([`CursorError`]): one position per partition, each with
/// exactly the key attributes of the table or index queried, in the
/// partition queried, and — for a tenant's query — with a table partition
/// key of that tenant. A cursor of another query, index, partition or
/// tenant, or a forged one, is refused before any request.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    positions: Vec<Position>,
}

/// Where one partition of a query stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Position {
    /// Nothing read yet.
    Start,
    /// Resume after the item with this key.
    After(Item),
    /// Every item read.
    Done,
}

impl Cursor {
    /// The position in each partition, in the order the query reads them.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// A cursor from positions, e.g. ones stored between requests.
    pub fn from_positions(positions: Vec<Position>) -> Self {
        Cursor { positions }
    }

    /// Whether every partition is done.
    pub fn is_done(&self) -> bool {
        self.positions.iter().all(|p| *p == Position::Done)
    }

    /// The positions, once checked against `request`, whose partition-key
    /// attribute queried is `pk_attribute`.
    pub(crate) fn into_positions(
        self,
        request: &QueryRequest,
        pk_attribute: Option<&'static str>,
    ) -> Result<Vec<Position>, CursorError> {
        let query = request.partitions.len();
        if self.positions.len() != query {
            return Err(CursorError::Partitions {
                cursor: self.positions.len(),
                query,
            });
        }
        for (partition, position) in self.positions.iter().enumerate() {
            if let Position::After(key) = position {
                check_key(key, partition, request, pk_attribute)?;
            }
        }
        Ok(self.positions)
    }
}

/// A position's key has exactly the `expected` attributes (those of the
/// table or index read): a missing one is named first, else the first
/// extra one.
pub(crate) fn check_key_attributes(
    key: &Item,
    partition: usize,
    expected: &[&str],
) -> Result<(), CursorError> {
    let missing = expected.iter().find(|a| !key.contains_key(**a)).copied();
    let extra = key
        .keys()
        .map(String::as_str)
        .filter(|a| !expected.contains(a))
        .min();
    match missing.or(extra) {
        Some(attribute) => Err(CursorError::Attributes {
            partition,
            attribute: attribute.to_owned(),
        }),
        None => Ok(()),
    }
}

/// One position's key: the index's attributes, then the tenant, then the partition.
fn check_key(
    key: &Item,
    partition: usize,
    request: &QueryRequest,
    pk_attribute: Option<&'static str>,
) -> Result<(), CursorError> {
    check_key_attributes(key, partition, request.key_attributes)?;
    if let Some(tenant) = &request.tenant {
        if !tenant.owns(key) {
            return Err(CursorError::OtherTenant {
                partition,
                attribute: tenant.attribute(),
            });
        }
    }
    if let Some(pk) = pk_attribute {
        let queried = request.partitions[partition].get(":pk");
        if queried.is_some() && key.get(pk) != queried {
            return Err(CursorError::OtherPartition {
                partition,
                attribute: pk,
            });
        }
    }
    Ok(())
}

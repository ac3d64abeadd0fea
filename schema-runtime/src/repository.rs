//! What every generated `Repository` is: the table it was generated for, a
//! client and a table name. Code that serves any generated repository (the
//! [`testing`](crate) helper, a migration job) is written against this trait.

use crate::schema::TableDef;
use crate::sdk::Client;
use crate::Error;

/// A generated repository.
pub trait Repository: Sized + Send + Sync + 'static {
    /// The table as the spec declares it (keys, indexes, TTL, stream).
    const TABLE: &'static TableDef;

    /// The table name the spec declares.
    const TABLE_NAME: &'static str;

    /// A repository on the table named in the spec.
    fn new(client: Client) -> Self;

    /// The same repository on another table name.
    fn with_table_name(self, table_name: String) -> Self;

    /// The SDK client.
    fn client(&self) -> &Client;

    /// The table name.
    fn table_name(&self) -> &str;

    /// Creates the table as the spec declares it and waits until it is active.
    fn create_table(&self) -> impl std::future::Future<Output = Result<(), Error>> + Send {
        Self::TABLE.create(self.client(), self.table_name())
    }
}

//! A column's value as the raw bytes of its binary encoding, whatever its type (`Raw`): tests
//! that compare binary results of kpg and PostgreSQL agree on a value exactly when the two
//! servers send the same bytes.

use tokio_postgres::types::{FromSql, Type};

/// The bytes of one binary column value, `None` for NULL.
#[derive(Debug, PartialEq)]
pub struct Raw(pub Option<Vec<u8>>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(Some(raw.to_vec())))
    }

    fn from_sql_null(_: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(None))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// Every row's columns as `Raw` values.
pub fn raw_rows(rows: &[tokio_postgres::Row]) -> Vec<Vec<Raw>> {
    rows.iter()
        .map(|r| (0..r.len()).map(|i| r.get::<_, Raw>(i)).collect())
        .collect()
}

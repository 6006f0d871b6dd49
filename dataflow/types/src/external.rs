//! Sources that read an external stream — a Kafka topic or a file — as the planner describes
//! them: where to read, how to decode each record's key and value into columns, what else of
//! the record to expose, and how records combine (the envelope).
//!
//! The server runs these sources (a reader per source that decodes records and appends them,
//! with the offsets they advance, in the same durable commit); `kpg-storage` holds the reader
//! and the decoders. The planner decides the columns: a key of declared columns (`KEY FORMAT CSV
//! | JSON WITH n COLUMNS`) first, then the value's columns, then a key of one column (`TEXT`,
//! `BYTES`, or `JSON` as `jsonb`), then the `INCLUDE`d metadata and headers, in the order they
//! are listed, and last, with `VALUE DECODING ERRORS = INLINE`, the error column.

use serde::{Deserialize, Serialize};

use crate::scalar::ScalarType;

/// How one part of a record (its key or its value) becomes columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// One CSV record, its fields parsed into the declared columns with PostgreSQL's input
    /// rules (an unquoted empty field is NULL).
    Csv { delimiter: u8 },
    /// A JSON object whose fields are mapped by name onto the declared columns (a missing field
    /// or JSON `null` is NULL; other fields are ignored).
    Json,
    /// The bytes as one `text` column (they must be UTF-8).
    Text,
    /// The bytes as one `bytea` column.
    Bytes,
}

impl Format {
    pub fn name(&self) -> &'static str {
        match self {
            Format::Csv { .. } => "CSV",
            Format::Json => "JSON",
            Format::Text => "TEXT",
            Format::Bytes => "BYTES",
        }
    }
}

/// A record's metadata exposed as a column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Include {
    /// `integer`
    Partition,
    /// `bigint`
    Offset,
    /// `timestamp` (the record's timestamp, UTC), NULL when the record has none.
    Timestamp,
    /// `jsonb`: every header, in order, as an array of `{"key": text, "value": bytes}` objects,
    /// the bytes in PostgreSQL's `bytea` hex form (`"\\x6869"`, which `::bytea` reads back) or
    /// `null` for a header without a value.
    Headers,
    /// One header's value (the last with this key; NULL if there is none): `text` (it must be
    /// UTF-8), or `bytea` with `bytes`.
    Header { key: String, bytes: bool },
}

/// How records combine into the source's contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Envelope {
    /// Every record is a new row.
    None,
    /// The latest value of each key is its row; a record without a value deletes the key.
    Upsert,
}

/// One part of a record and its columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoding {
    pub format: Format,
    pub columns: Vec<(String, ScalarType)>,
}

/// Where records come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Transport {
    /// Every partition of a topic; `broker` is `host:port[,host:port...]`; `start` says where
    /// a partition kpg has not read from yet begins; with `header` (CSV's `WITH HEADER`), a
    /// record at offset 0 that is a header line (`kpg_storage::records::HeaderLine`) is
    /// skipped, not a row.
    Kafka {
        broker: String,
        topic: String,
        start: KafkaStart,
        header: bool,
    },
    /// The lines of a file (one partition, offsets are byte offsets); with `tail`, lines
    /// appended later too; with `header`, the first line is skipped.
    File {
        path: String,
        tail: bool,
        header: bool,
    },
}

/// Where a Kafka source starts reading a partition it has not read yet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KafkaStart {
    /// Its first record.
    #[default]
    Beginning,
    /// `START OFFSET (o0, o1, ...)`: partition i at offset oi (partitions beyond the list at
    /// their beginning).
    Offsets(Vec<i64>),
    /// `START TIMESTAMP ms`: each partition at its first record with a timestamp at or after
    /// `ms` (milliseconds since the epoch).
    Timestamp(i64),
}

/// A source reading an external stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalSourceDesc {
    pub transport: Transport,
    /// The key's columns (with `INCLUDE KEY` or `ENVELOPE UPSERT`).
    pub key: Option<Decoding>,
    pub value: Decoding,
    pub include: Vec<Include>,
    pub envelope: Envelope,
    /// The key's columns come first (a key of declared columns), not after the value's.
    #[serde(default)]
    pub key_first: bool,
    /// With UPSERT: a value that cannot be decoded becomes its key's row, with the value
    /// columns NULL and the reason in a last `text` column, instead of leaving the key as it
    /// was (`VALUE DECODING ERRORS = INLINE`).
    #[serde(default)]
    pub inline_errors: bool,
}

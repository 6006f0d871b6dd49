//! Sources that read an external stream — a Kafka topic or a file — as the planner describes
//! them: where to read, how to decode each record's key and value into columns, what else of
//! the record to expose, and how records combine (the envelope).
//!
//! The server runs these sources (a reader per source that decodes records and appends them,
//! with the offsets they advance, in the same durable commit); `kpg-storage` holds the reader
//! and the decoders. The planner decides the columns: the value's columns, then the key's (with
//! `INCLUDE KEY` or `ENVELOPE UPSERT`), then the `INCLUDE`d metadata, in that order.

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Include {
    /// `integer`
    Partition,
    /// `bigint`
    Offset,
    /// `timestamp` (the record's timestamp, UTC), NULL when the record has none.
    Timestamp,
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
    /// a partition kpg has not read from yet begins.
    Kafka {
        broker: String,
        topic: String,
        start: KafkaStart,
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
}

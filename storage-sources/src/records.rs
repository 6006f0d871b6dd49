//! Records of an external stream and the readers that produce them, whatever the transport:
//! a partition, an offset in it, an optional key and value, and a timestamp. `connect` opens the
//! transport a source describes, resuming at the given next offset of each partition, for one
//! share of the partitions (a source's partitions are spread over several readers).

use std::collections::BTreeMap;
use std::time::Duration;

use kpg_types::external::{Decoding, ExternalSourceDesc, Format, Transport};
use kpg_types::{Datum, ScalarType};

use crate::decode::Decoder;

/// A record's headers, in order: key and value (`None`: a header without a value).
pub type Headers = Vec<(String, Option<Vec<u8>>)>;

/// One record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub partition: i32,
    pub offset: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// Milliseconds since the epoch, if the record has a timestamp.
    pub timestamp: Option<i64>,
    /// Its headers, in order: key and value (`None`: a header without a value).
    pub headers: Headers,
    /// Why its headers could not be read (then `headers` is empty): a record whose row
    /// includes them is a bad record.
    pub headers_error: Option<String>,
}

/// Which partitions one reader reads: those whose number is `index` modulo `count`, so that
/// `count` readers with the indexes `0..count` read every partition exactly once, also the
/// partitions added to a topic later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    pub index: u32,
    pub count: u32,
}

impl Share {
    /// Every partition, for one reader.
    pub const ALL: Share = Share { index: 0, count: 1 };

    pub fn owns(&self, partition: i32) -> bool {
        partition.rem_euclid(self.count.max(1) as i32) as u32 == self.index
    }
}

/// A transport, read from given offsets on.
pub trait RecordReader: Send {
    /// Up to `max` records, waiting at most about `wait` for the first. An error is a problem
    /// of the transport (the reader stays usable and tries again on the next call).
    fn poll(&mut self, max: usize, wait: Duration) -> Result<Vec<Record>, String>;

    /// The next offset of each partition (after the records returned so far).
    fn positions(&self) -> &BTreeMap<i32, i64>;

    /// Each partition's end (the offset after its last record), when known, for the lag.
    fn high_watermarks(&self) -> BTreeMap<i32, i64>;

    /// Why records the source needs are gone for good (deleted by the transport before they
    /// were read), once that is known: the source has failed, though it keeps what it read.
    fn lost(&self) -> Option<&str> {
        None
    }

    /// Whether every record there will ever be has been returned (a file read without TAIL).
    fn finished(&self) -> bool {
        false
    }

    /// Records need no headers from here on (a source that includes none does not pay for
    /// parsing them): they come with `headers` empty.
    fn skip_headers(&mut self) {}
}

/// A Kafka CSV source's header line (`WITH HEADER`): a partition's record at offset 0 whose
/// fields are the source's value columns' names, in order (ASCII case and surrounding blanks
/// aside). Only such a record is skipped: a partition whose first record is data (a producer
/// that wrote the header into one partition only) keeps it as a row, or as a bad record, and
/// never loses it.
#[derive(Clone, Debug)]
pub struct HeaderLine {
    /// The value's CSV with every column as `text`: the header line is read as any record is.
    decoding: Decoding,
}

impl HeaderLine {
    /// The header line `desc` skips, if it says `WITH HEADER` for a Kafka topic.
    pub fn of(desc: &ExternalSourceDesc) -> Option<HeaderLine> {
        match (&desc.transport, &desc.value.format) {
            (Transport::Kafka { header: true, .. }, Format::Csv { .. }) => Some(HeaderLine {
                decoding: Decoding {
                    format: desc.value.format.clone(),
                    columns: desc
                        .value
                        .columns
                        .iter()
                        .map(|(n, _)| (n.clone(), ScalarType::Text))
                        .collect(),
                },
            }),
            _ => None,
        }
    }

    /// Whether `value` is this header line (read by the source's own CSV decoder).
    pub fn is(&self, value: &[u8]) -> bool {
        let Ok(fields) = Decoder::new(self.decoding.clone()).decode(value) else {
            return false;
        };
        self.decoding
            .columns
            .iter()
            .zip(&fields)
            .all(|((name, _), field)| match field {
                Datum::String(f) => f.trim().eq_ignore_ascii_case(name),
                _ => false,
            })
    }
}

/// Opens `transport` for the partitions `share` owns, each from its offset in `start` (or its
/// beginning); `header`: the header line a Kafka topic's partitions may start with. A file is
/// one partition (0).
pub fn connect(
    transport: &Transport,
    start: &BTreeMap<i32, i64>,
    share: Share,
    header: Option<HeaderLine>,
) -> Result<Box<dyn RecordReader>, String> {
    Ok(match transport {
        Transport::Kafka {
            broker,
            topic,
            start: first,
            ..
        } => Box::new(crate::kafka::KafkaReader::connect(
            broker, topic, start, first, share, header,
        )?),
        Transport::File { path, tail, header } => Box::new(crate::file::FileReader::open(
            std::path::Path::new(path),
            *tail,
            *header,
            start.get(&0).copied().unwrap_or(0),
        )?),
    })
}

#[cfg(test)]
mod header_tests {
    use super::*;
    use kpg_types::external::{Envelope, KafkaStart};

    fn header(delimiter: u8, with_header: bool) -> Option<HeaderLine> {
        HeaderLine::of(&ExternalSourceDesc {
            transport: Transport::Kafka {
                broker: "b".into(),
                topic: "t".into(),
                start: KafkaStart::Beginning,
                header: with_header,
            },
            key: None,
            value: Decoding {
                format: Format::Csv { delimiter },
                columns: vec![
                    ("id".into(), ScalarType::Int32),
                    ("full name".into(), ScalarType::Text),
                ],
            },
            include: Vec::new(),
            envelope: Envelope::None,
            key_first: false,
            inline_errors: false,
        })
    }

    #[test]
    fn a_header_line_is_the_column_names() {
        assert!(header(b',', false).is_none());
        let h = header(b',', true).unwrap();
        for line in ["id,full name", "ID,Full Name\n", " id ,\"full name\"\r\n"] {
            assert!(h.is(line.as_bytes()), "{line:?}");
        }
        for line in [
            "",
            "id",
            "id,full name,x",
            "id,full name,x,y,z",
            "1,a",
            "full name,id",
            "id,full\nname",
            "id;full name",
        ] {
            assert!(!h.is(line.as_bytes()), "{line:?}");
        }
        let semicolons = header(b';', true).unwrap();
        assert!(semicolons.is(b"id;full name"));
        assert!(!semicolons.is(b"id,full name"));
    }
}

//! CSV decoding benchmark: the part of a Kafka or file source's reader thread that turns a
//! record's bytes into a packed row, measured alone (no broker, no dataflow), so its CPU per
//! row can be compared across builds on a machine whose memory or neighbours make end-to-end
//! figures noisy. TPC-H lineitem at SF 0.1 (600,572 lines, the `kafka_ingest` bench's records)
//! is decoded into the specification's typed columns by `Decoder::decode_into`; beside it, the
//! peer: `csv_core` splitting the same lines into fields and nothing more — the floor of any
//! decoder built on it. Prints the median of five passes of each, ns per row. Run with
//! `cargo bench -p kpg-storage --bench decode`.

use std::time::{Duration, Instant};

use kpg_storage::decode::Decoder;
use kpg_types::external::{Decoding, Format};
use kpg_types::packed::RowPacker;
use kpg_types::ScalarType;

const SCALE_FACTOR: f64 = 0.1;
const PASSES: usize = 5;

/// lineitem's columns with the types `CREATE SOURCE ... FORMAT CSV` gives them in the benches.
fn lineitem_columns() -> Vec<(String, ScalarType)> {
    kpg_tpch::columns("lineitem")
        .iter()
        .map(|(name, ty)| {
            let scalar = match ty {
                kpg_tpch::ColumnType::Integer => ScalarType::Int32,
                kpg_tpch::ColumnType::Decimal => ScalarType::Numeric {
                    precision: Some(15),
                    scale: Some(2),
                },
                kpg_tpch::ColumnType::Char(n) => ScalarType::Char { length: Some(*n) },
                kpg_tpch::ColumnType::Varchar(n) => ScalarType::VarChar {
                    max_length: Some(*n),
                },
                kpg_tpch::ColumnType::Date => ScalarType::Date,
            };
            (name.to_string(), scalar)
        })
        .collect()
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn main() {
    let lines: Vec<String> = kpg_tpch::rows("lineitem", SCALE_FACTOR, 1, 1)
        .map(|row| kpg_tpch::demo::csv_record(&row))
        .collect();
    let n = lines.len();
    let columns = lineitem_columns();
    let decoder = Decoder::new(Decoding {
        format: Format::Csv { delimiter: b',' },
        columns: columns.clone(),
    });
    // Every line decodes, into a row of every column.
    let mut packer = RowPacker::new();
    decoder
        .decode_into(lines[0].as_bytes(), &mut packer)
        .expect("a lineitem record");
    assert_eq!(packer.finish().unpack().len(), columns.len());

    let mut kpg = Vec::new();
    let mut peer = Vec::new();
    let mut bytes = 0usize;
    for _ in 0..PASSES {
        let started = Instant::now();
        for line in &lines {
            decoder
                .decode_into(line.as_bytes(), &mut packer)
                .expect("a lineitem record");
            bytes += std::hint::black_box(packer.finish()).as_bytes().len();
        }
        kpg.push(started.elapsed());

        let mut reader = csv_core::Reader::new();
        let (mut output, mut ends) = (vec![0u8; 1024], vec![0usize; 64]);
        let started = Instant::now();
        let mut fields = 0usize;
        for line in &lines {
            reader.reset();
            let (_, _, _, nend) = reader.read_record(line.as_bytes(), &mut output, &mut ends);
            let (_, _, _, last) = reader.read_record(&[], &mut output, &mut ends[nend..]);
            fields += std::hint::black_box(nend + last);
        }
        peer.push(started.elapsed());
        assert_eq!(fields, n * columns.len(), "csv_core split every field");
    }
    let per_row = |d: Duration| d.as_secs_f64() * 1e9 / n as f64;
    let (kpg, peer) = (median(kpg), median(peer));
    println!(
        "CSV decode of TPC-H lineitem SF {SCALE_FACTOR} ({n} records, {} bytes a packed row), \
         median of {PASSES} passes:",
        bytes / (n * PASSES)
    );
    println!(
        "  kpg Decoder::decode_into (typed columns)   {:>6.0} ns/row  {:>9.0} rows/s",
        per_row(kpg),
        n as f64 / kpg.as_secs_f64()
    );
    println!(
        "  csv_core field split alone (peer)          {:>6.0} ns/row  {:>9.0} rows/s  ({:.2}x kpg's time)",
        per_row(peer),
        n as f64 / peer.as_secs_f64(),
        peer.as_secs_f64() / kpg.as_secs_f64()
    );
}

//! COPY text for the benchmarks: rows as PostgreSQL's tab-separated text format, cut into
//! chunks of about 1 MiB before any clock starts, so that kpg and PostgreSQL receive the same
//! bytes and the generator's time is never measured.

use std::time::{Duration, Instant};

use futures::SinkExt;
use tokio_postgres::Client;

/// Rows in COPY text, in chunks.
pub struct CopyText {
    pub chunks: Vec<bytes::Bytes>,
    pub rows: u64,
    pub bytes: u64,
}

impl CopyText {
    /// One line per row (without its newline).
    pub fn from_lines(lines: impl Iterator<Item = String>) -> CopyText {
        let (mut chunks, mut chunk, mut rows, mut size) = (Vec::new(), String::new(), 0, 0);
        for line in lines {
            chunk.push_str(&line);
            chunk.push('\n');
            rows += 1;
            if chunk.len() >= 1 << 20 {
                size += chunk.len() as u64;
                chunks.push(bytes::Bytes::from(std::mem::take(&mut chunk)));
            }
        }
        size += chunk.len() as u64;
        chunks.push(bytes::Bytes::from(chunk));
        CopyText {
            chunks,
            rows,
            bytes: size,
        }
    }

    /// The rows of TPC-H `table` at `scale_factor`, as the `kpg-tpch` generator makes them.
    pub fn tpch(table: &str, scale_factor: f64) -> CopyText {
        CopyText::from_lines(kpg_tpch::rows(table, scale_factor, 1, 1).map(|row| {
            let mut line = String::new();
            for (i, value) in row.iter().enumerate() {
                if i > 0 {
                    line.push('\t');
                }
                match value {
                    kpg_tpch::Value::Text(s) | kpg_tpch::Value::Date(s) => escape(s, &mut line),
                    // Integers and decimals print as SQL literals, which COPY reads alike.
                    other => other.write_sql(&mut line),
                }
            }
            line
        }))
    }

    /// Time from `COPY table FROM STDIN` to its acknowledgement; panics unless every row is
    /// reported.
    pub async fn copy_into(&self, client: &Client, table: &str) -> Duration {
        let started = Instant::now();
        let sink = client
            .copy_in(&format!("COPY {table} FROM STDIN"))
            .await
            .expect("copy");
        let mut sink = Box::pin(sink);
        for chunk in &self.chunks {
            sink.send(chunk.clone()).await.expect("send");
        }
        let n = sink.as_mut().finish().await.expect("finish");
        let elapsed = started.elapsed();
        assert_eq!(n, self.rows, "COPY into {table} reports every row");
        elapsed
    }
}

/// Appends `s` with COPY text's escapes.
pub fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

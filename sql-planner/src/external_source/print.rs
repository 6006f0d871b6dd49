//! `CREATE SOURCE ... FROM KAFKA | FILE` spelled out again from its parsed form: the text
//! `SHOW CREATE SOURCE` shows and the data directory keeps (it must read back as the same
//! statement, so every option the parser takes is printed here).

use kpg_types::external::{Format, Include, KafkaStart, Transport};

use super::{CreateExternalSource, FormatSpec, IncludeItem};
use kpg_types::external::Envelope;

/// A string literal in SQL.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `START OFFSET (o, ...)` / `START TIMESTAMP ms` as SQL, or nothing for the beginning.
fn start_sql(start: &KafkaStart) -> Option<String> {
    match start {
        KafkaStart::Beginning => None,
        KafkaStart::Offsets(o) => {
            let o: Vec<String> = o.iter().map(i64::to_string).collect();
            Some(format!("START OFFSET ({})", o.join(", ")))
        }
        KafkaStart::Timestamp(t) => Some(format!("START TIMESTAMP {t}")),
    }
}

/// A format as SQL spells it (`header`: CSV's `WITH HEADER`).
fn format(f: &FormatSpec, header: bool) -> String {
    let mut out = f.format.name().to_string();
    if header {
        out.push_str(" WITH HEADER");
    }
    if let Some(n) = f.columns {
        out.push_str(&format!(" WITH {n} COLUMNS"));
    }
    if let Format::Csv { delimiter } = f.format {
        if delimiter != b',' {
            out.push_str(&format!(
                " DELIMITED BY {}",
                literal(&(delimiter as char).to_string())
            ));
        }
    }
    out
}

/// The statement spelled out (for `SHOW CREATE SOURCE` and the data directory).
pub(super) fn sql(cs: &CreateExternalSource, name: &str) -> String {
    let ident = kpg_types::quote_ident;
    let mut out = format!("CREATE SOURCE {}", ident(name));
    if !cs.columns.is_empty() {
        let cols: Vec<String> = cs.columns.iter().map(|c| c.to_string()).collect();
        out.push_str(&format!(" ({})", cols.join(", ")));
    }
    let (broker, topic) = match &cs.transport {
        Transport::Kafka { topic, start, .. } if cs.connection.is_some() => {
            let c = cs.connection.as_ref().expect("a connection");
            let start = start_sql(start).map_or(String::new(), |s| format!(", {s}"));
            out.push_str(&format!(
                " FROM KAFKA CONNECTION {c} (TOPIC {}{start})",
                literal(topic)
            ));
            return finish_sql(cs, out);
        }
        Transport::Kafka { broker, topic, .. } => (broker, topic),
        Transport::File { path, tail, header } => {
            return format!(
                "{out} FROM FILE {} FORMAT {} WITH (TAIL = {tail})",
                literal(path),
                format(&cs.value_format, *header)
            );
        }
    };
    out.push_str(&format!(
        " FROM KAFKA BROKER {} TOPIC {}",
        literal(broker),
        literal(topic)
    ));
    finish_sql(cs, out)
}

/// The formats, INCLUDE and ENVELOPE of a Kafka source's SQL, after `out`.
fn finish_sql(cs: &CreateExternalSource, mut out: String) -> String {
    let ident = kpg_types::quote_ident;
    let header = matches!(cs.transport, Transport::Kafka { header: true, .. });
    match &cs.key_format {
        Some(k) => out.push_str(&format!(
            " KEY FORMAT {} VALUE FORMAT {}",
            format(k, false),
            format(&cs.value_format, header)
        )),
        None => out.push_str(&format!(" FORMAT {}", format(&cs.value_format, header))),
    }
    if !cs.include.is_empty() {
        let items: Vec<String> = cs
            .include
            .iter()
            .map(|(item, alias)| {
                let (word, bytes) = match item {
                    IncludeItem::Key => ("KEY".to_string(), ""),
                    IncludeItem::Meta(Include::Partition) => ("PARTITION".to_string(), ""),
                    IncludeItem::Meta(Include::Offset) => ("OFFSET".to_string(), ""),
                    IncludeItem::Meta(Include::Timestamp) => ("TIMESTAMP".to_string(), ""),
                    IncludeItem::Meta(Include::Headers) => ("HEADERS".to_string(), ""),
                    IncludeItem::Meta(Include::Header { key, bytes }) => (
                        format!("HEADER {}", literal(key)),
                        if *bytes { " BYTES" } else { "" },
                    ),
                };
                match alias {
                    Some(a) => format!("{word} AS {}{bytes}", ident(a)),
                    None => format!("{word}{bytes}"),
                }
            })
            .collect();
        out.push_str(&format!(" INCLUDE {}", items.join(", ")));
    }
    match (cs.envelope, &cs.inline_errors) {
        (Envelope::None, _) => out.push_str(" ENVELOPE NONE"),
        (Envelope::Upsert, None) => out.push_str(" ENVELOPE UPSERT"),
        (Envelope::Upsert, Some(name)) => out.push_str(&format!(
            " ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE AS {})",
            ident(name)
        )),
    }
    if let (None, Transport::Kafka { start, .. }) = (&cs.connection, &cs.transport) {
        if let Some(start) = start_sql(start) {
            out.push_str(&format!(" WITH ({start})"));
        }
    }
    out
}

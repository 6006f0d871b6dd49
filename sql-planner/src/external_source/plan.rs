//! Planning `CREATE SOURCE ... FROM KAFKA | FILE`: the source's columns (key, value, metadata,
//! headers, inline errors, in the order `external_source.rs` describes) and the description the
//! server's reader runs.

use kpg_types::external::{Decoding, Envelope, ExternalSourceDesc, Format, Include, Transport};
use kpg_types::{ColumnType, RelationDesc, ScalarType};
use sqlparser::ast::{ColumnDef, ColumnOption};

use super::{CreateExternalSource, FormatSpec, IncludeItem};
use crate::error::PlanError;
use crate::names::{fold, object_name};
use crate::statement::PlannedStatement;
use crate::Catalog;

/// Columns with their names and types, in order.
type Columns = Vec<(String, ColumnType)>;

/// The one column of a TEXT or BYTES part, or of JSON taken whole.
fn single_column(format: &Format, name: &str) -> Option<(String, ScalarType)> {
    match format {
        Format::Text => Some((name.to_string(), ScalarType::Text)),
        Format::Bytes => Some((name.to_string(), ScalarType::Bytea)),
        Format::Json => Some((name.to_string(), ScalarType::Jsonb)),
        Format::Csv { .. } => None,
    }
}

/// The declared columns with their types.
fn declared_columns(columns: &[ColumnDef]) -> Result<Columns, PlanError> {
    columns
        .iter()
        .map(|c| {
            let mut nullable = true;
            for option in &c.options {
                match option.option {
                    ColumnOption::NotNull => nullable = false,
                    ColumnOption::Null => nullable = true,
                    _ => {
                        return Err(PlanError::unsupported(format!(
                            "column option {} on a source column",
                            option.option
                        )))
                    }
                }
            }
            let ty = crate::types::scalar_type(&c.data_type)?;
            Ok((fold(&c.name), ColumnType::new(ty, nullable)))
        })
        .collect()
}

fn syntax_error(message: impl Into<String>) -> PlanError {
    PlanError::new("42601", message.into())
}

/// The value's columns and its decoding, from the declared columns that are the value's.
fn value_columns(
    spec: &FormatSpec,
    declared: &[(String, ColumnType)],
    inline: bool,
) -> Result<(Columns, Decoding), PlanError> {
    let mut columns = declared.to_vec();
    let mut whole = false;
    match (&spec.format, spec.columns) {
        (Format::Csv { .. } | Format::Json, Some(n))
            if !declared.is_empty() && n != declared.len() =>
        {
            return Err(syntax_error(format!(
                "VALUE FORMAT {} WITH {n} COLUMNS, but {} value columns are declared",
                spec.format.name(),
                declared.len()
            )));
        }
        // Materialize's CSV without names: column1, column2, ... as text.
        (Format::Csv { .. }, Some(n)) if declared.is_empty() => {
            columns = (1..=n)
                .map(|i| {
                    (
                        format!("column{i}"),
                        ColumnType::new(ScalarType::Text, true),
                    )
                })
                .collect();
        }
        (Format::Csv { .. }, _) | (Format::Json, Some(_)) if declared.is_empty() => {
            return Err(syntax_error(
                "FORMAT CSV needs the source's columns: CREATE SOURCE s (a int, b text) FROM \
                 KAFKA ... (or FORMAT CSV WITH n COLUMNS for text columns column1 ... columnn)",
            ));
        }
        // JSON without a column list: the whole document as one `data jsonb` column.
        (Format::Json, None) if declared.is_empty() => {
            whole = true;
            columns.push(("data".into(), ColumnType::new(ScalarType::Jsonb, false)));
        }
        (Format::Csv { .. } | Format::Json, _) => {}
        (format, _) => {
            if !declared.is_empty() {
                return Err(syntax_error(format!(
                    "FORMAT {} has one column of its own; a column list is only for CSV and \
                     JSON (and a key of several columns)",
                    format.name()
                )));
            }
            let column = if *format == Format::Text {
                "text"
            } else {
                "data"
            };
            let (n, ty) = single_column(format, column).expect("text or bytes");
            columns.push((n, ColumnType::new(ty, false)));
        }
    }
    if inline {
        // An undecodable value leaves every value column NULL.
        if let Some((n, _)) = declared.iter().find(|(_, t)| !t.nullable) {
            return Err(syntax_error(format!(
                "value column \"{n}\" is NOT NULL, but with VALUE DECODING ERRORS = INLINE an \
                 undecodable value makes every value column NULL"
            )));
        }
        for (_, t) in &mut columns {
            t.nullable = true;
        }
    }
    let decoding = Decoding {
        format: spec.format.clone(),
        columns: if whole {
            Vec::new()
        } else {
            columns.iter().map(|(n, t)| (n.clone(), t.scalar)).collect()
        },
    };
    Ok((columns, decoding))
}

/// The key's columns and decoding, and whether they come first (a key of declared columns).
fn key_columns(
    cs: &CreateExternalSource,
    declared: &[(String, ColumnType)],
    alias: Option<&String>,
) -> Result<(Columns, Decoding, bool), PlanError> {
    let upsert = cs.envelope == Envelope::Upsert;
    let spec = match &cs.key_format {
        Some(spec) => spec.clone(),
        None => match cs.value_format.format {
            Format::Text | Format::Bytes => cs.value_format.clone(),
            _ => {
                return Err(syntax_error(
                    "the key needs a format: say KEY FORMAT TEXT | BYTES | JSON | CSV WITH n \
                     COLUMNS VALUE FORMAT ...",
                ))
            }
        },
    };
    if let Some(n) = spec.columns {
        // The first n declared columns, as declared.
        if alias.is_some() {
            return Err(syntax_error(
                "INCLUDE KEY AS: a key of several columns is named by the column list",
            ));
        }
        let columns = declared[..n].to_vec();
        let decoding = Decoding {
            format: spec.format,
            columns: columns.iter().map(|(n, t)| (n.clone(), t.scalar)).collect(),
        };
        return Ok((columns, decoding, true));
    }
    let name = alias.cloned().unwrap_or_else(|| "key".to_string());
    let Some((n, ty)) = single_column(&spec.format, &name) else {
        return Err(syntax_error(
            "KEY FORMAT CSV needs WITH n COLUMNS: the key's columns are the first n of the \
             column list",
        ));
    };
    // An upsert key is never NULL: a record without a key cannot be upserted.
    let columns = vec![(n.clone(), ColumnType::new(ty, !upsert))];
    let decoding = Decoding {
        format: spec.format,
        // JSON taken whole: no columns of its own.
        columns: if ty == ScalarType::Jsonb {
            Vec::new()
        } else {
            vec![(n, ty)]
        },
    };
    Ok((columns, decoding, false))
}

pub(crate) fn plan(
    cs: &CreateExternalSource,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(&cs.name)?;
    let mut transport = cs.transport.clone();
    let mut depends_on = Vec::new();
    if let Some(connection) = &cs.connection {
        let cname = object_name(connection)?;
        let c = catalog.resolve_connection(&cname).ok_or_else(|| {
            PlanError::new("42704", format!("connection \"{cname}\" does not exist"))
        })?;
        if let Transport::Kafka { broker, .. } = &mut transport {
            *broker = c.broker.clone();
        }
        depends_on.push(c.id);
    }
    let declared = declared_columns(&cs.columns)?;
    let key_alias = cs.include.iter().find_map(|(item, alias)| match item {
        IncludeItem::Key => Some(alias.clone()),
        IncludeItem::Meta(_) => None,
    });
    let needs_key = key_alias.is_some() || cs.envelope == Envelope::Upsert;
    if cs.key_format.is_some() && !needs_key {
        return Err(syntax_error(
            "KEY FORMAT without INCLUDE KEY or ENVELOPE UPSERT: the key would not be read",
        ));
    }
    // The declared columns a key of several columns takes.
    let key_declared = match cs.key_format.as_ref().and_then(|k| k.columns) {
        Some(n) if n > declared.len() => {
            return Err(syntax_error(format!(
                "KEY FORMAT ... WITH {n} COLUMNS, but only {} columns are declared (the key's \
                 come first)",
                declared.len()
            )))
        }
        Some(n) => n,
        None => 0,
    };
    let (value_cols, value) = value_columns(
        &cs.value_format,
        &declared[key_declared..],
        cs.inline_errors.is_some(),
    )?;
    let (key_cols, key, key_first) = if needs_key {
        let (c, d, first) = key_columns(cs, &declared, key_alias.flatten().as_ref())?;
        (c, Some(d), first)
    } else {
        (Vec::new(), None, false)
    };
    let mut columns = if key_first {
        [key_cols, value_cols].concat()
    } else {
        [value_cols, key_cols].concat()
    };
    let mut include = Vec::new();
    for (item, alias) in &cs.include {
        let IncludeItem::Meta(meta) = item else {
            continue;
        };
        if include.contains(meta) {
            return Err(syntax_error("an INCLUDE item is named twice"));
        }
        include.push(meta.clone());
        let (default, ty, nullable) = match meta {
            Include::Partition => ("partition", ScalarType::Int32, false),
            Include::Offset => ("offset", ScalarType::Int64, false),
            Include::Timestamp => ("timestamp", ScalarType::Timestamp, true),
            // NULL only in an INLINE error row whose headers cannot be read.
            Include::Headers => ("headers", ScalarType::Jsonb, true),
            Include::Header { bytes: false, .. } => ("header", ScalarType::Text, true),
            Include::Header { bytes: true, .. } => ("header", ScalarType::Bytea, true),
        };
        let n = alias.clone().unwrap_or_else(|| default.to_string());
        columns.push((n, ColumnType::new(ty, nullable)));
    }
    if let Some(error) = &cs.inline_errors {
        columns.push((error.clone(), ColumnType::new(ScalarType::Text, true)));
    }
    for (i, (n, _)) in columns.iter().enumerate() {
        if columns[..i].iter().any(|(m, _)| m == n) {
            return Err(PlanError::new(
                "42701",
                format!("column \"{n}\" specified more than once"),
            ));
        }
    }
    match &transport {
        Transport::Kafka { broker, topic, .. }
            if broker.trim().is_empty() || topic.trim().is_empty() =>
        {
            return Err(PlanError::new(
                "22023",
                "BROKER and TOPIC must not be empty",
            ));
        }
        Transport::File { path, .. } if path.is_empty() => {
            return Err(PlanError::new("22023", "the file's path must not be empty"));
        }
        _ => {}
    }
    Ok(PlannedStatement::CreateExternalSource {
        name: name.clone(),
        if_not_exists: cs.if_not_exists,
        desc: RelationDesc::new(columns),
        sql: super::print::sql(cs, &name),
        depends_on,
        source: ExternalSourceDesc {
            transport,
            key,
            value,
            include,
            envelope: cs.envelope,
            key_first,
            inline_errors: cs.inline_errors.is_some(),
        },
    })
}

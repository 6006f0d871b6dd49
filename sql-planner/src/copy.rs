//! `COPY ... FROM STDIN` and `COPY ... TO STDOUT` read out of sqlparser's syntax when a
//! statement is parsed: the table and columns, or the query, and the data format with its
//! options (`FORMAT text | csv`, `DELIMITER`, `NULL`, `HEADER`, `QUOTE`) checked as PostgreSQL
//! checks them; `COPY FROM`'s table and columns are resolved when it is planned. The server
//! reads and writes the data (`copy_in.rs`, `copy_out.rs`).

use kpg_types::{GlobalId, RelationDesc};
use sqlparser::ast::{CopyOption, CopySource, CopyTarget, Statement};

use crate::names::fold;
use crate::{Catalog, ItemKind, ParsedStatement, PlanError};

/// A planned `COPY ... FROM STDIN`: the table the rows go to and the columns each input line
/// holds, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyFromPlan {
    pub table: GlobalId,
    /// The table's name as the statement gave it (for errors about its data).
    pub table_name: String,
    pub desc: RelationDesc,
    /// The table columns of an input line's fields, in order.
    pub columns: Vec<usize>,
    pub format: CopyFormat,
}

/// Resolves a `COPY ... FROM STDIN`'s table and columns, then its format's options (in
/// PostgreSQL's order of errors).
pub(crate) fn plan_copy_from(
    copy: &CopyFrom,
    catalog: &dyn Catalog,
) -> Result<CopyFromPlan, PlanError> {
    let name = &copy.table;
    let item = catalog
        .resolve(name)
        .ok_or_else(|| PlanError::undefined_table(name))?;
    if item.kind != ItemKind::Table {
        return Err(PlanError::new(
            "42809",
            format!("cannot copy to materialized view \"{name}\""),
        ));
    }
    let columns = if copy.columns.is_empty() {
        (0..item.desc.arity()).collect()
    } else {
        copy.columns
            .iter()
            .map(|c| {
                item.desc.names().position(|n| n == c).ok_or_else(|| {
                    PlanError::new(
                        "42703",
                        format!("column \"{c}\" of relation \"{name}\" does not exist"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(CopyFromPlan {
        table: item.id,
        table_name: name.clone(),
        desc: item.desc,
        columns,
        format: copy.format.clone()?,
    })
}

/// `COPY t [(columns)] FROM STDIN [WITH (...)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyFrom {
    /// The table's name, folded (schema-qualified names joined by `.`).
    pub table: String,
    /// The columns named, folded (a quoted name keeps its case); empty for all of them.
    pub columns: Vec<String>,
    /// The format, or why its options are refused (reported after the table and columns are
    /// found, as PostgreSQL does).
    pub format: Result<CopyFormat, PlanError>,
}

/// `COPY (query) TO STDOUT` or `COPY t [(columns)] TO STDOUT`, as the query it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyTo {
    pub query: Box<ParsedStatement>,
    pub format: CopyFormat,
}

/// The data format of a COPY, with its options.
#[derive(Clone, Debug, PartialEq)]
pub enum CopyFormat {
    Text {
        delimiter: char,
        null: String,
    },
    Csv {
        delimiter: u8,
        quote: u8,
        null: String,
        header: bool,
    },
}

/// The typed COPY for `stmt`, if it is a COPY, or why it is refused.
pub(crate) fn typed(stmt: &Statement) -> Option<Result<ParsedStatement, PlanError>> {
    let Statement::Copy {
        source,
        to,
        target,
        options,
        legacy_options,
        ..
    } = stmt
    else {
        return None;
    };
    Some((|| {
        match (to, target) {
            (false, CopyTarget::Stdin) | (true, CopyTarget::Stdout) => {}
            (false, _) => return Err(PlanError::unsupported("COPY FROM a file or program")),
            (true, _) => return Err(PlanError::unsupported("COPY TO a file or program")),
        }
        if !legacy_options.is_empty() {
            return Err(PlanError::unsupported("COPY options in the pre-9.0 syntax"));
        }
        if !to {
            let CopySource::Table {
                table_name,
                columns,
            } = source
            else {
                return Err(PlanError::syntax("COPY FROM needs a table"));
            };
            let table = table_name
                .0
                .iter()
                .map(|part| match part.as_ident() {
                    Some(ident) => fold(ident),
                    None => part.to_string().to_lowercase(),
                })
                .collect::<Vec<_>>()
                .join(".");
            return Ok(ParsedStatement::CopyFrom(Box::new(CopyFrom {
                table,
                columns: columns.iter().map(fold).collect(),
                format: format(options),
            })));
        }
        let sql = match source {
            CopySource::Query(q) => q.to_string(),
            CopySource::Table {
                table_name,
                columns,
            } => {
                let columns = if columns.is_empty() {
                    "*".to_string()
                } else {
                    columns
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                format!("SELECT {columns} FROM {table_name}")
            }
        };
        let mut stmts = crate::parse(&sql)?;
        let query = match (stmts.pop(), stmts.is_empty()) {
            (Some(q @ ParsedStatement::Sql(Statement::Query(_))), true) => q,
            _ => return Err(PlanError::syntax("COPY needs a query or a table")),
        };
        Ok(ParsedStatement::CopyTo(Box::new(CopyTo {
            query: Box::new(query),
            format: format(options)?,
        })))
    })())
}

fn format(options: &[CopyOption]) -> Result<CopyFormat, PlanError> {
    let mut csv = false;
    let (mut delimiter, mut null, mut header, mut quote) = (None, None, false, '"');
    for option in options {
        match option {
            CopyOption::Format(f) => match f.value.to_lowercase().as_str() {
                "csv" => csv = true,
                "text" => csv = false,
                other => return Err(PlanError::unsupported(format!("COPY format \"{other}\""))),
            },
            CopyOption::Delimiter(d) => delimiter = Some(*d),
            CopyOption::Null(n) => null = Some(n.clone()),
            CopyOption::Header(h) => header = *h,
            CopyOption::Quote(q) => quote = *q,
            other => return Err(PlanError::unsupported(format!("COPY option {other}"))),
        }
    }
    if csv {
        let delimiter = delimiter.unwrap_or(',');
        if !delimiter.is_ascii() || !quote.is_ascii() {
            return Err(PlanError::unsupported("non-ASCII COPY delimiter or quote"));
        }
        Ok(CopyFormat::Csv {
            delimiter: delimiter as u8,
            quote: quote as u8,
            null: null.unwrap_or_default(),
            header,
        })
    } else {
        if header {
            return Err(PlanError::unsupported(
                "COPY HEADER available only in CSV mode",
            ));
        }
        Ok(CopyFormat::Text {
            delimiter: delimiter.unwrap_or('\t'),
            null: null.unwrap_or_else(|| "\\N".into()),
        })
    }
}

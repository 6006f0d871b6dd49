//! `CREATE SOURCE ... FROM LOAD GENERATOR` and `DROP SOURCE`, which sqlparser does not know:
//! parsed here, then planned into the generator and the collections the source exports.
//!
//! ```text
//! CREATE SOURCE [IF NOT EXISTS] name FROM LOAD GENERATOR TPCH
//!     [(SCALE FACTOR f, TICK INTERVAL 'i')] FOR ALL TABLES | FOR TABLES (t [AS name], ...)
//! CREATE SOURCE [IF NOT EXISTS] name FROM LOAD GENERATOR COUNTER
//!     [(TICK INTERVAL 'i', MAX CARDINALITY n)]
//! DROP SOURCE [IF EXISTS] name [, ...] [CASCADE | RESTRICT]
//! ```
//!
//! As in Materialize, the TPC-H source is an object of its own, with no columns and no rows,
//! and each table becomes a *subsource* named after it (or its alias); the counter source holds
//! its one column itself. Sources of other kinds (Kafka, PostgreSQL, files, other generators)
//! are refused as not supported (0A000).

use kpg_types::{ColumnType, Interval, LoadGenerator, RelationDesc, ScalarType};
use sqlparser::ast::{Expr, ObjectName, UnaryOperator, Value};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::error::PlanError;
use crate::estimate::Statistics;
use crate::names::{fold, object_name};
use crate::parse::Refusal;
use crate::statement::{ParsedStatement, PlannedStatement};
use crate::words::{at_create_or_drop, expect_word, parse_drop, parse_word, word_is};
use crate::Catalog;

/// The default scale factor of the TPC-H generator (86,000 rows in all).
const DEFAULT_SCALE_FACTOR: f64 = 0.01;
/// The default time between two ticks.
const DEFAULT_TICK_MS: u64 = 1_000;

/// `CREATE SOURCE`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateSource {
    pub name: ObjectName,
    pub if_not_exists: bool,
    /// The generator's name, upper case.
    pub generator: String,
    /// Options as (upper-case name, value).
    pub options: Vec<(String, Expr)>,
    pub tables: SourceTables,
}

/// What a multi-output source exports.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceTables {
    /// No `FOR` clause.
    Unspecified,
    /// `FOR ALL TABLES`
    All,
    /// `FOR TABLES (t [AS name], ...)`
    Some(Vec<(String, Option<String>)>),
}

/// Whether the parser stands at `CREATE SOURCE` or `DROP SOURCE`.
pub(crate) fn at_source_statement(parser: &Parser<'_>) -> bool {
    at_create_or_drop(parser, "source")
}

pub(crate) fn parse_source_statement(parser: &mut Parser<'_>) -> Result<ParsedStatement, Refusal> {
    if word_is(&parser.peek_token_ref().token, "drop") {
        let d = parse_drop(parser)?;
        return Ok(ParsedStatement::DropSource {
            names: d.names,
            if_exists: d.if_exists,
            cascade: d.cascade,
        });
    }
    parser.expect_keyword(Keyword::CREATE)?;
    parser.next_token(); // SOURCE
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let columns = if parser.peek_token_ref().token == Token::LParen {
        let (columns, constraints) = parser.parse_columns()?;
        if !constraints.is_empty() {
            return Err(Refusal::Unsupported("constraints on a source".into()));
        }
        columns
    } else {
        Vec::new()
    };
    parser.expect_keyword(Keyword::FROM)?;
    if parse_word(parser, "kafka") {
        let kafka = crate::external_source::parse(parser, name, if_not_exists, columns)?;
        return Ok(ParsedStatement::CreateExternalSource(Box::new(kafka)));
    }
    if parse_word(parser, "file") {
        let file = crate::external_source::parse_file(parser, name, if_not_exists, columns)?;
        return Ok(ParsedStatement::CreateExternalSource(Box::new(file)));
    }
    if !columns.is_empty() {
        return Err(Refusal::Parser(ParserError::ParserError(
            "a load generator's columns are its own: CREATE SOURCE name FROM LOAD GENERATOR ..."
                .into(),
        )));
    }
    if !parse_word(parser, "load") {
        let what = match &parser.peek_token_ref().token {
            Token::Word(w) => w.value.to_uppercase(),
            other => other.to_string(),
        };
        return Err(Refusal::Unsupported(format!(
            "CREATE SOURCE FROM {what} (kpg reads Kafka topics, files and load generators)"
        )));
    }
    expect_word(parser, "generator")?;
    let next = parser.next_token();
    let generator = match &next.token {
        Token::Word(w) => w.value.to_uppercase(),
        _ => return Ok(parser.expected("a load generator name", next)?),
    };
    let mut options = Vec::new();
    if parser.consume_token(&Token::LParen) {
        loop {
            let mut words = Vec::new();
            while let Token::Word(w) = &parser.peek_token_ref().token {
                if w.quote_style.is_some() {
                    break;
                }
                words.push(w.value.to_uppercase());
                parser.next_token();
            }
            if words.is_empty() {
                return Ok(parser.expected("an option name", parser.peek_token())?);
            }
            let _ = parser.consume_token(&Token::Eq);
            options.push((words.join(" "), parser.parse_expr()?));
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
        parser.expect_token(&Token::RParen)?;
    }
    let tables = if parser.parse_keyword(Keyword::FOR) {
        if parser.parse_keywords(&[Keyword::ALL, Keyword::TABLES]) {
            SourceTables::All
        } else {
            parser.expect_keyword(Keyword::TABLES)?;
            parser.expect_token(&Token::LParen)?;
            let list = parser.parse_comma_separated(|p| {
                let table = fold(&p.parse_identifier()?);
                let alias = if p.parse_keyword(Keyword::AS) {
                    Some(fold(&p.parse_identifier()?))
                } else {
                    None
                };
                Ok((table, alias))
            })?;
            parser.expect_token(&Token::RParen)?;
            SourceTables::Some(list)
        }
    } else {
        SourceTables::Unspecified
    };
    Ok(ParsedStatement::CreateSource(Box::new(CreateSource {
        name,
        if_not_exists,
        generator,
        options,
        tables,
    })))
}

/// One collection a planned source exports: its name, columns, and the generator output it
/// holds (`None`: the source object of a multi-output generator, which holds nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedExport {
    pub name: String,
    pub desc: RelationDesc,
    pub output: Option<usize>,
    /// What is known of its contents (a TPC-H table's size and keys at the scale factor).
    pub statistics: Option<Statistics>,
}

pub(crate) fn plan_create_source(
    cs: &CreateSource,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(&cs.name)?;
    let mut scale_factor = DEFAULT_SCALE_FACTOR;
    let mut tick_ms = DEFAULT_TICK_MS;
    let mut max_cardinality = None;
    let allowed: &[&str] = match cs.generator.as_str() {
        "TPCH" => &["SCALE FACTOR", "TICK INTERVAL"],
        "COUNTER" => &["TICK INTERVAL", "MAX CARDINALITY"],
        other => {
            return Err(PlanError::unsupported(format!(
                "LOAD GENERATOR {other} (kpg has TPCH and COUNTER)"
            )))
        }
    };
    for (option, value) in &cs.options {
        if !allowed.contains(&option.as_str()) {
            return Err(PlanError::new(
                "42601",
                format!(
                    "unexpected option {option} for LOAD GENERATOR {} (it takes {})",
                    cs.generator,
                    allowed.join(", ")
                ),
            ));
        }
        match option.as_str() {
            "SCALE FACTOR" => {
                scale_factor = number(value)
                    .filter(|f| *f > 0.0 && f.is_finite())
                    .ok_or_else(|| invalid_option(option, value, "a positive number"))?;
            }
            "TICK INTERVAL" => tick_ms = interval_ms(option, value)?,
            _ => {
                let n = number(value)
                    .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < 9e15)
                    .ok_or_else(|| invalid_option(option, value, "a whole number"))?;
                max_cardinality = Some(n as u64);
            }
        }
    }
    let (generator, exports) = if cs.generator == "TPCH" {
        let generator = LoadGenerator::Tpch {
            scale_factor,
            tick_ms,
        };
        (generator, tpch_exports(&name, &cs.tables, scale_factor)?)
    } else {
        if cs.tables != SourceTables::Unspecified {
            return Err(PlanError::syntax(
                "LOAD GENERATOR COUNTER has one output: it takes no FOR TABLES clause",
            ));
        }
        let generator = LoadGenerator::Counter {
            tick_ms,
            max_cardinality,
        };
        let desc = RelationDesc::new(vec![(
            "counter".to_string(),
            ColumnType::new(ScalarType::Int64, false),
        )]);
        let export = PlannedExport {
            name: name.clone(),
            desc,
            output: Some(0),
            statistics: None,
        };
        (generator, vec![export])
    };
    if !cs.if_not_exists || catalog.resolve(&name).is_none() {
        if let Some(taken) = exports[1..]
            .iter()
            .find(|e| catalog.resolve(&e.name).is_some())
        {
            return Err(PlanError::new(
                "42P07",
                format!("relation \"{}\" already exists", taken.name),
            ));
        }
    }
    Ok(PlannedStatement::CreateSource {
        name,
        if_not_exists: cs.if_not_exists,
        sql: create_source_sql(&exports[0].name, &generator, &exports),
        generator,
        exports,
    })
}

/// The TPC-H source's exports: the source object, then one subsource per table asked for.
fn tpch_exports(
    name: &str,
    tables: &SourceTables,
    scale_factor: f64,
) -> Result<Vec<PlannedExport>, PlanError> {
    let chosen: Vec<(usize, String)> =
        match tables {
            SourceTables::Unspecified => return Err(PlanError::syntax(
                "LOAD GENERATOR TPCH has several outputs: say FOR ALL TABLES or FOR TABLES (...)",
            )),
            SourceTables::All => kpg_tpch::TABLES
                .iter()
                .enumerate()
                .map(|(i, t)| (i, t.to_string()))
                .collect(),
            SourceTables::Some(list) => {
                let mut chosen = Vec::new();
                for (table, alias) in list {
                    let i = kpg_tpch::TABLES
                        .iter()
                        .position(|t| t == table)
                        .ok_or_else(|| {
                            PlanError::new(
                                "42P01",
                                format!("LOAD GENERATOR TPCH has no table \"{table}\""),
                            )
                        })?;
                    chosen.push((i, alias.clone().unwrap_or_else(|| table.clone())));
                }
                chosen
            }
        };
    let mut exports = vec![PlannedExport {
        name: name.to_string(),
        desc: RelationDesc::default(),
        output: None,
        statistics: None,
    }];
    for (i, export_name) in chosen {
        if exports.iter().any(|e| e.name == export_name) {
            return Err(PlanError::new(
                "42P07",
                format!("relation \"{export_name}\" is named twice"),
            ));
        }
        exports.push(PlannedExport {
            name: export_name,
            desc: tpch_desc(kpg_tpch::TABLES[i]),
            output: Some(i),
            statistics: Some(tpch_statistics(kpg_tpch::TABLES[i], scale_factor)),
        });
    }
    Ok(exports)
}

/// The size, primary key and known distinct counts of a TPC-H table at a scale factor, by
/// column position.
pub fn tpch_statistics(table: &str, scale_factor: f64) -> Statistics {
    let facts = kpg_tpch::cardinality(table, scale_factor);
    let columns = kpg_tpch::columns(table);
    let position = |name: &str| {
        columns
            .iter()
            .position(|(c, _)| *c == name)
            .expect("the specification's column")
    };
    let mut distinct = vec![None; columns.len()];
    for (column, d) in &facts.distinct {
        distinct[position(column)] = Some(*d);
    }
    Statistics {
        rows: facts.rows,
        unique: vec![facts.key.iter().map(|k| position(k)).collect()],
        distinct,
    }
}

/// The columns of a TPC-H table, in the specification's types.
fn tpch_desc(table: &str) -> RelationDesc {
    use kpg_tpch::ColumnType as T;
    RelationDesc::new(
        kpg_tpch::columns(table)
            .iter()
            .map(|(name, ty)| {
                let scalar = match ty {
                    T::Integer => ScalarType::Int32,
                    T::Decimal => ScalarType::Numeric {
                        precision: Some(15),
                        scale: Some(2),
                    },
                    T::Char(n) => ScalarType::Char { length: Some(*n) },
                    T::Varchar(n) => ScalarType::VarChar {
                        max_length: Some(*n),
                    },
                    T::Date => ScalarType::Date,
                };
                (name.to_string(), ColumnType::new(scalar, false))
            })
            .collect(),
    )
}

/// The statement as `SHOW CREATE SOURCE` prints it, every option spelled out.
fn create_source_sql(name: &str, generator: &LoadGenerator, exports: &[PlannedExport]) -> String {
    let ident = kpg_types::quote_ident;
    let head = format!("CREATE SOURCE {} FROM LOAD GENERATOR", ident(name));
    match generator {
        LoadGenerator::Tpch {
            scale_factor,
            tick_ms,
        } => {
            let tables: Vec<String> = exports[1..]
                .iter()
                .map(|e| {
                    let table = kpg_tpch::TABLES[e.output.unwrap_or(0)];
                    if e.name == table {
                        table.to_string()
                    } else {
                        format!("{table} AS {}", ident(&e.name))
                    }
                })
                .collect();
            format!(
                "{head} TPCH (SCALE FACTOR {scale_factor}, TICK INTERVAL '{tick_ms}ms') \
                 FOR TABLES ({})",
                tables.join(", ")
            )
        }
        LoadGenerator::Counter {
            tick_ms,
            max_cardinality,
        } => {
            let max = max_cardinality
                .map(|m| format!(", MAX CARDINALITY {m}"))
                .unwrap_or_default();
            format!("{head} COUNTER (TICK INTERVAL '{tick_ms}ms'{max})")
        }
    }
}

fn invalid_option(option: &str, value: &Expr, expected: &str) -> PlanError {
    PlanError::new(
        "22023",
        format!("invalid value for {option}: {value} (expected {expected})"),
    )
}

fn number(value: &Expr) -> Option<f64> {
    match value {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => number(expr).map(|n| -n),
        _ => None,
    }
}

/// A `TICK INTERVAL` in milliseconds: an interval of whole milliseconds, days at most, at
/// least 1 ms.
fn interval_ms(option: &str, value: &Expr) -> Result<u64, PlanError> {
    let invalid = || {
        invalid_option(
            option,
            value,
            "an interval of at least 1ms, such as '100ms'",
        )
    };
    let text = match value {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.clone(),
            _ => return Err(invalid()),
        },
        _ => return Err(invalid()),
    };
    let iv = Interval::parse(&text, None).map_err(|_| invalid())?;
    if iv.months != 0 {
        return Err(invalid());
    }
    let ms = i64::from(iv.days) * 86_400_000 + iv.micros / 1_000;
    u64::try_from(ms)
        .ok()
        .filter(|ms| *ms >= 1)
        .ok_or_else(invalid)
}

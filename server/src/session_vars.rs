//! Session variables: `SET name {= | TO} value | DEFAULT`, `RESET name | ALL`, `SHOW name | ALL`,
//! with the parameters PostgreSQL clients send and read.
//!
//! Each connection has its own values, seeded from the startup message (e.g. `application_name`,
//! `client_encoding`, `DateStyle`). Most are only remembered and shown back, because kpg's output
//! does not depend on them (ISO dates, UTC, UTF-8, `extra_float_digits` as in PostgreSQL 12+'s
//! shortest round-trip floats); `statement_timeout` is enforced by the session. Values kpg
//! cannot honour (another client encoding, a non-ISO DateStyle, a time zone other than UTC) are
//! refused with 0A000 rather than silently ignored; unknown parameters are 42704, as in
//! PostgreSQL.

use std::collections::BTreeMap;
use std::time::Duration;

use kpg_sql::sqlparser::ast::{Expr, Set, Statement, Value};
use kpg_sql::ParsedStatement;
use kpg_types::{ColumnType, Datum, RelationDesc, Row, ScalarType};

use crate::coord::ExecuteResult;
use crate::error::ExecError;

/// Parameters and their defaults, named as PostgreSQL's SHOW prints them (lookups ignore case).
const DEFAULTS: &[(&str, &str)] = &[
    ("application_name", ""),
    ("client_encoding", "UTF8"),
    ("client_min_messages", "notice"),
    ("DateStyle", "ISO, MDY"),
    ("default_transaction_isolation", "strict serializable"),
    ("extra_float_digits", "1"),
    ("idle_in_transaction_session_timeout", "0"),
    ("integer_datetimes", "on"),
    ("IntervalStyle", "postgres"),
    ("lc_messages", "C"),
    ("lock_timeout", "0"),
    ("search_path", "public"),
    ("server_encoding", "UTF8"),
    ("server_version", "16.6"),
    ("server_version_num", "160006"),
    ("standard_conforming_strings", "on"),
    ("statement_timeout", "0"),
    ("TimeZone", "UTC"),
    ("transaction_isolation", "strict serializable"),
    ("transaction_read_only", "off"),
];

/// Parameters that only the server sets.
const READ_ONLY: &[&str] = &[
    "integer_datetimes",
    "server_encoding",
    "server_version",
    "server_version_num",
];

/// One connection's values.
#[derive(Clone, Debug)]
pub struct SessionVars {
    values: BTreeMap<String, String>,
}

impl Default for SessionVars {
    fn default() -> Self {
        SessionVars {
            values: DEFAULTS
                .iter()
                .map(|(k, v)| (k.to_lowercase(), v.to_string()))
                .collect(),
        }
    }
}

fn unknown(name: &str) -> ExecError {
    ExecError::new(
        "42704",
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

impl SessionVars {
    /// The defaults, with the startup message's parameters applied where kpg knows them.
    pub fn from_startup<'a>(params: impl Iterator<Item = (&'a String, &'a String)>) -> Self {
        let mut vars = SessionVars::default();
        for (k, v) in params {
            let _ = vars.set(&k.to_lowercase(), v);
        }
        vars
    }

    /// `statement_timeout` as a duration (`None` when 0, the default: no timeout).
    pub fn statement_timeout(&self) -> Option<Duration> {
        let ms = parse_duration_ms(&self.values["statement_timeout"])?;
        (ms > 0).then(|| Duration::from_millis(ms))
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), ExecError> {
        if !self.values.contains_key(name) {
            return Err(unknown(name));
        }
        if READ_ONLY.contains(&name) {
            return Err(ExecError::new(
                "55P02",
                format!("parameter \"{name}\" cannot be changed"),
            ));
        }
        let refuse = |what: &str| {
            Err(ExecError::unsupported(format!(
                "{name} = '{value}' (kpg supports {what})"
            )))
        };
        let upper = value.to_ascii_uppercase();
        match name {
            "client_encoding" if !matches!(upper.as_str(), "UTF8" | "UTF-8" | "UNICODE") => {
                return refuse("UTF8 only")
            }
            "datestyle" if !upper.split(',').any(|p| p.trim() == "ISO") => {
                return refuse("the ISO output style only")
            }
            "timezone" if !matches!(upper.as_str(), "UTC" | "GMT" | "ETC/UTC" | "Z") => {
                return refuse("UTC only")
            }
            "statement_timeout" | "lock_timeout" | "idle_in_transaction_session_timeout"
                if parse_duration_ms(value).is_none() =>
            {
                return Err(ExecError::new(
                    "22023",
                    format!("invalid value for parameter \"{name}\": \"{value}\""),
                ))
            }
            "extra_float_digits"
                if !value
                    .trim()
                    .parse::<i32>()
                    .is_ok_and(|d| (-15..=3).contains(&d)) =>
            {
                return Err(ExecError::new(
                    "22023",
                    format!("invalid value for parameter \"{name}\": \"{value}\""),
                ))
            }
            _ => {}
        }
        let value = match name {
            "client_encoding" => "UTF8".to_string(),
            "datestyle" => "ISO, MDY".to_string(),
            "timezone" => "UTC".to_string(),
            _ => value.to_string(),
        };
        self.values.insert(name.to_string(), value);
        Ok(())
    }

    /// Runs SET / RESET / SHOW; `None` if `stmt` is none of them (or a SHOW the coordinator
    /// answers, such as SHOW INDEXES).
    pub fn run(&mut self, stmt: &ParsedStatement) -> Option<Result<ExecuteResult, ExecError>> {
        let ParsedStatement::Sql(stmt) = stmt else {
            return None;
        };
        Some(match stmt {
            Statement::Set(Set::SingleAssignment {
                variable, values, ..
            }) => {
                let name = variable.to_string().to_lowercase();
                let value = match values.as_slice() {
                    [v] if is_default(v) => default_of(&name).unwrap_or_default(),
                    vs => vs.iter().map(value_text).collect::<Vec<_>>().join(", "),
                };
                self.set(&name, &value)
                    .map(|()| ExecuteResult::Command("SET".into()))
            }
            Statement::Set(Set::SetTimeZone { value, .. }) => self
                .set("timezone", &value_text(value))
                .map(|()| ExecuteResult::Command("SET".into())),
            Statement::Set(Set::SetNames { charset_name, .. }) => self
                .set("client_encoding", &charset_name.to_string())
                .map(|()| ExecuteResult::Command("SET".into())),
            Statement::Set(_) => Err(ExecError::unsupported("this form of SET")),
            Statement::ShowVariable { variable }
                if variable.first().is_some_and(|i| {
                    i.value.eq_ignore_ascii_case("indexes")
                        || i.value.eq_ignore_ascii_case("sources")
                        || i.value.eq_ignore_ascii_case("create")
                }) =>
            {
                return None
            }
            Statement::ShowVariable { variable } => {
                let name = variable
                    .iter()
                    .map(|i| i.value.to_lowercase())
                    .collect::<Vec<_>>()
                    .join(" ");
                self.show(&name)
            }
            _ => {
                let text = stmt.to_string();
                let words: Vec<&str> = text.split_whitespace().collect();
                match words.as_slice() {
                    [reset, name] if reset.eq_ignore_ascii_case("reset") => {
                        let name = name.to_lowercase();
                        if name == "all" {
                            *self = SessionVars::default();
                            Ok(ExecuteResult::Command("RESET".into()))
                        } else {
                            match default_of(&name) {
                                Some(v) => self
                                    .set(&name, &v)
                                    .map(|()| ExecuteResult::Command("RESET".into())),
                                None => Err(unknown(&name)),
                            }
                        }
                    }
                    _ => return None,
                }
            }
        })
    }

    fn show(&self, name: &str) -> Result<ExecuteResult, ExecError> {
        let text_col = ColumnType::new(ScalarType::Text, false);
        let name = match name {
            "transaction isolation level" => "transaction_isolation",
            n => n,
        };
        if name == "all" {
            let rows = self
                .values
                .iter()
                .map(|(k, v)| {
                    Row::new(vec![
                        Datum::String(display_name(k)),
                        Datum::String(v.clone()),
                    ])
                })
                .collect();
            return Ok(ExecuteResult::Rows {
                desc: RelationDesc::new(vec![
                    ("name".into(), text_col),
                    ("setting".into(), text_col),
                ]),
                rows,
            });
        }
        let value = self.values.get(name).ok_or_else(|| unknown(name))?;
        Ok(ExecuteResult::Rows {
            desc: RelationDesc::new(vec![(display_name(name), text_col)]),
            rows: vec![Row::new(vec![Datum::String(value.clone())])],
        })
    }
}

/// The default of the parameter `name` (lower case).
fn default_of(name: &str) -> Option<String> {
    DEFAULTS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.to_string())
}

/// The name PostgreSQL shows for the parameter `name` (lower case).
fn display_name(name: &str) -> String {
    DEFAULTS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_string(), |(k, _)| k.to_string())
}

fn is_default(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"))
}

/// A SET value as text: strings without their quotes, identifiers and numbers as written.
fn value_text(e: &Expr) -> String {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        Expr::Identifier(i) => i.value.clone(),
        other => other.to_string(),
    }
}

/// A duration parameter in milliseconds: a bare number is milliseconds; units ms, s, min, h.
fn parse_duration_ms(value: &str) -> Option<u64> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (number, unit) = v.split_at(split);
    let n: u64 = number.parse().ok()?;
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "ms" => 1,
        "s" => 1_000,
        "min" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(vars: &mut SessionVars, sql: &str) -> Result<(), ExecError> {
        let stmt = &kpg_sql::parse(sql).unwrap()[0];
        vars.run(stmt).expect("a session statement").map(|_| ())
    }

    fn code(vars: &mut SessionVars, sql: &str) -> &'static str {
        run(vars, sql).expect_err(sql).code
    }

    fn shown(vars: &mut SessionVars, name: &str) -> String {
        let stmt = &kpg_sql::parse(&format!("SHOW {name}")).unwrap()[0];
        match vars.run(stmt) {
            Some(Ok(ExecuteResult::Rows { rows, .. })) => rows[0].get(0).to_text().unwrap(),
            _ => panic!("SHOW {name}"),
        }
    }

    #[test]
    fn set_show_reset() {
        let mut v = SessionVars::default();
        run(&mut v, "SET application_name = 'my app'").unwrap();
        assert_eq!(shown(&mut v, "application_name"), "my app");
        run(&mut v, "SET statement_timeout TO '1s'").unwrap();
        assert_eq!(v.statement_timeout(), Some(Duration::from_secs(1)));
        run(&mut v, "SET statement_timeout = 250").unwrap();
        assert_eq!(v.statement_timeout(), Some(Duration::from_millis(250)));
        run(&mut v, "SET statement_timeout = DEFAULT").unwrap();
        assert_eq!(v.statement_timeout(), None);
        run(&mut v, "SET DateStyle = ISO, MDY").unwrap();
        run(&mut v, "SET extra_float_digits = 3").unwrap();
        assert_eq!(shown(&mut v, "extra_float_digits"), "3");
        run(&mut v, "RESET extra_float_digits").unwrap();
        assert_eq!(shown(&mut v, "extra_float_digits"), "1");
        assert_eq!(code(&mut v, "SET nope = 1"), "42704");
        assert_eq!(code(&mut v, "SET client_encoding = 'LATIN1'"), "0A000");
        assert_eq!(code(&mut v, "SET TimeZone = 'Europe/Paris'"), "0A000");
        assert_eq!(code(&mut v, "SET server_version = '1'"), "55P02");
        assert_eq!(code(&mut v, "SET statement_timeout = 'soon'"), "22023");
        run(&mut v, "RESET ALL").unwrap();
        assert_eq!(shown(&mut v, "application_name"), "");
        let startup = [("application_name".to_string(), "psql".to_string())];
        let mut v = SessionVars::from_startup(startup.iter().map(|(a, b)| (a, b)));
        assert_eq!(shown(&mut v, "application_name"), "psql");
    }
}

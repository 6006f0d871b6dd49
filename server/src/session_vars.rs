//! Session variables: `SET name {= | TO} value | DEFAULT`, `RESET name | ALL`, `SHOW name | ALL`,
//! with the parameters PostgreSQL clients send and read.
//!
//! Each connection has its own values, seeded from the startup message (e.g. `application_name`,
//! `client_encoding`, `DateStyle`). A value kpg accepts either takes effect or changes nothing
//! kpg does: `extra_float_digits` steers the text of floats (`pgwire_server/encode.rs`),
//! `statement_timeout` is enforced by the session, `DateStyle`, `IntervalStyle`, `TimeZone`
//! and `bytea_output` steer the text of values and date/time input (`session_dates.rs` checks
//! the date/time settings), and the rest are shown back. A value that would change what
//! PostgreSQL does where kpg does not follow it (another client encoding, a POSIX time zone
//! with summer time, a search_path without `public`, `standard_conforming_strings` off,
//! read-only transactions, idle session timeouts, messages in another language) is refused
//! with 0A000 rather than silently ignored; a value PostgreSQL refuses gets its SQLSTATE and
//! message, and unknown parameters are 42704, as in PostgreSQL. Values are kept as PostgreSQL
//! shows them (`1s` for 1000 milliseconds, `ISO, MDY`). A transaction block's SETs are undone
//! when it rolls back (`Session::vars_follow_transaction`, `session.rs`); `SET LOCAL` values end with the block either way
//! (`assign`).

use std::collections::BTreeMap;
use std::time::Duration;

use kpg_sql::{SessionStatement, SetValue, TransactionMode};
use kpg_types::{ColumnType, Datum, RelationDesc, Row, ScalarType};

use crate::coord::ExecuteResult;
use crate::error::ExecError;

/// Parameters and their defaults, named as PostgreSQL's SHOW prints them (lookups ignore case).
const DEFAULTS: &[(&str, &str)] = &[
    ("application_name", ""),
    ("bytea_output", "hex"),
    ("client_encoding", "UTF8"),
    ("client_min_messages", "notice"),
    ("DateStyle", "ISO, MDY"),
    ("default_transaction_isolation", "read committed"),
    ("extra_float_digits", "1"),
    ("idle_in_transaction_session_timeout", "0"),
    ("integer_datetimes", "on"),
    ("IntervalStyle", "postgres"),
    ("lc_messages", "C"),
    ("lock_timeout", "0"),
    ("search_path", "\"$user\", public"),
    ("server_encoding", "UTF8"),
    ("server_version", "16.6"),
    ("server_version_num", "160006"),
    ("standard_conforming_strings", "on"),
    ("statement_timeout", "0"),
    ("TimeZone", "UTC"),
    ("transaction_isolation", "read committed"),
    ("transaction_read_only", "off"),
];

/// Parameters whose values the server reports at startup (PostgreSQL's GUC_REPORT ones kpg has).
const REPORTED: &[&str] = &[
    "application_name",
    "client_encoding",
    "datestyle",
    "integer_datetimes",
    "intervalstyle",
    "search_path",
    "server_encoding",
    "server_version",
    "standard_conforming_strings",
    "timezone",
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
    /// What RESET and `SET ... TO DEFAULT` go back to: the values after the startup message,
    /// as in PostgreSQL.
    reset: BTreeMap<String, String>,
    /// The values `SET LOCAL` replaced (the first time in the block), put back when the block
    /// ends; a later plain SET or RESET of the name drops its entry (its value then stays
    /// after COMMIT), as PostgreSQL's GUC stack does.
    local: BTreeMap<String, String>,
    /// Whether a transaction block is open (explicit, or a query string of several
    /// statements, PostgreSQL's implicit block): `SET LOCAL` holds until it ends.
    in_block: bool,
    /// Warnings for the client (`SET LOCAL` outside a block).
    warnings: Vec<ExecError>,
}

impl Default for SessionVars {
    fn default() -> Self {
        let values: BTreeMap<String, String> = DEFAULTS
            .iter()
            .copied()
            .chain(crate::planner_settings::defaults())
            .map(|(k, v)| (k.to_lowercase(), v.to_string()))
            .collect();
        SessionVars {
            reset: values.clone(),
            values,
            local: BTreeMap::new(),
            in_block: false,
            warnings: Vec::new(),
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
    /// The defaults, with the startup message's parameters applied where kpg knows them and
    /// can follow them (drivers send their own, e.g. the client's time zone, so the others are
    /// left at their defaults), then the settings its `options` carries, as libpq's
    /// `PGOPTIONS` sends them (`-c name=value`, `--name=value`). An error in `options` is
    /// returned: PostgreSQL refuses the connection for it.
    pub fn from_startup<'a>(
        params: impl Iterator<Item = (&'a String, &'a String)>,
    ) -> Result<Self, ExecError> {
        let mut vars = SessionVars::default();
        let mut options = None;
        for (k, v) in params {
            match k.to_lowercase().as_str() {
                "options" => options = Some(v),
                k => {
                    let _ = vars.set(k, v);
                }
            }
        }
        for (name, value) in options.map_or(Ok(Vec::new()), |o| command_line_settings(o))? {
            vars.set(&name, &value)?;
        }
        vars.reset = vars.values.clone();
        Ok(vars)
    }

    /// The parameters PostgreSQL reports to the client (ParameterStatus) after startup, with
    /// this session's values, as PostgreSQL names them.
    pub fn reported(&self) -> Vec<(String, String)> {
        REPORTED
            .iter()
            .map(|name| (display_name(name), self.values[*name].clone()))
            .collect()
    }

    /// `extra_float_digits`: above 0, floats print as their shortest round-trip text; at 0 or
    /// below, with 15 (double) or 6 (real) significant digits plus this.
    pub fn extra_float_digits(&self) -> i32 {
        self.values["extra_float_digits"].parse().unwrap_or(1)
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
        let value = match name {
            "datestyle" => crate::session_dates::check_datestyle(value, &self.values[name])?,
            _ => check(name, value)?,
        };
        self.values.insert(name.to_string(), value);
        Ok(())
    }

    /// The settings that steer the text of values (`session_dates.rs`).
    pub fn output_style(&self) -> kpg_types::OutputStyle {
        let dates = crate::session_dates::date_settings(
            &self.values["timezone"],
            &self.values["datestyle"],
            &self.values["intervalstyle"],
        );
        let bytea_escape = self.values["bytea_output"] == "escape";
        crate::session_dates::output_style(self.extra_float_digits(), dates, bytea_escape)
    }

    /// The values `output_style` is made of, as SHOW prints them (to tell whether it changed).
    pub fn output_settings(&self) -> [&str; 5] {
        [
            &self.values["timezone"],
            &self.values["datestyle"],
            &self.values["intervalstyle"],
            &self.values["extra_float_digits"],
            &self.values["bytea_output"],
        ]
    }

    /// The `DateStyle` value as SHOW prints it.
    pub fn datestyle(&self) -> &str {
        &self.values["datestyle"]
    }

    /// The `IntervalStyle` value as SHOW prints it.
    pub fn interval_style(&self) -> &str {
        &self.values["intervalstyle"]
    }

    /// The `TimeZone` value as SHOW prints it.
    pub fn time_zone(&self) -> &str {
        &self.values["timezone"]
    }

    /// `SET [LOCAL] name = value`: a plain SET lasts for the session (and ends a `SET LOCAL`
    /// of the name in the block); `SET LOCAL` until the block ends, and outside one it is
    /// checked, then has no effect but a warning (25P01), as in PostgreSQL 15.
    fn assign(&mut self, name: &str, value: &str, local: bool) -> Result<ExecuteResult, ExecError> {
        if !local {
            self.set(name, value)?;
            self.local.remove(name);
        } else if !self.in_block {
            self.clone().set(name, value)?;
            self.warnings.push(ExecError::new(
                "25P01",
                "SET LOCAL can only be used in transaction blocks",
            ));
        } else {
            let prior = self.values.get(name).cloned();
            self.set(name, value)?;
            if let Some(prior) = prior {
                self.local.entry(name.to_string()).or_insert(prior);
            }
        }
        Ok(ExecuteResult::Command("SET".into()))
    }

    /// A transaction block (or a query string's implicit one) begins: `SET LOCAL` holds.
    pub fn begin_block(&mut self) {
        self.in_block = true;
    }

    /// The block ends (committed: a rollback restores the values saved at its start): the
    /// values `SET LOCAL` replaced come back.
    pub fn end_block(&mut self) {
        for (name, value) in std::mem::take(&mut self.local) {
            self.values.insert(name, value);
        }
        self.in_block = false;
    }

    /// Whether a block is open.
    pub fn in_block(&self) -> bool {
        self.in_block
    }

    /// The warnings for the client since the last call.
    pub fn take_warnings(&mut self) -> Vec<ExecError> {
        std::mem::take(&mut self.warnings)
    }

    /// Runs SET / RESET / SHOW / SET TRANSACTION.
    pub fn run(&mut self, stmt: &SessionStatement) -> Result<ExecuteResult, ExecError> {
        match stmt {
            SessionStatement::Set { name, value, local } => {
                let value = match value {
                    SetValue::Default => self.reset.get(name).cloned().unwrap_or_default(),
                    SetValue::Text(text) => text.clone(),
                };
                self.assign(name, &value, *local)
            }
            SessionStatement::SetTransaction {
                modes,
                snapshot,
                session,
            } => self
                .set_transaction(modes, *snapshot, *session)
                .map(|()| ExecuteResult::Command("SET".into())),
            SessionStatement::Show { name } => self.show(name),
            SessionStatement::Reset { name: None } => {
                self.values = self.reset.clone();
                self.local.clear();
                Ok(ExecuteResult::Command("RESET".into()))
            }
            SessionStatement::Reset { name: Some(name) } => match self.reset.get(name).cloned() {
                Some(v) => self
                    .assign(name, &v, false)
                    .map(|_| ExecuteResult::Command("RESET".into())),
                None => Err(unknown(name)),
            },
        }
    }

    /// `SET TRANSACTION` and `SET SESSION CHARACTERISTICS AS TRANSACTION`: any isolation level
    /// of PostgreSQL's is taken and shown (a single statement is strict serializable; a
    /// transaction block runs at READ COMMITTED whatever the setting, see `txn.rs`), read-only
    /// transactions and snapshots are not supported.
    fn set_transaction(
        &mut self,
        modes: &[TransactionMode],
        snapshot: bool,
        session: bool,
    ) -> Result<(), ExecError> {
        if snapshot {
            return Err(ExecError::unsupported("SET TRANSACTION SNAPSHOT"));
        }
        for mode in modes {
            match mode {
                TransactionMode::ReadWrite => {}
                TransactionMode::ReadOnly => {
                    return Err(ExecError::unsupported("read-only transactions"))
                }
                TransactionMode::IsolationSnapshot => {
                    return Err(ExecError::new(
                        "42601",
                        "syntax error at or near \"SNAPSHOT\"",
                    ))
                }
                TransactionMode::Isolation(level) if session => {
                    self.set("default_transaction_isolation", level)?;
                }
                TransactionMode::Isolation(_) => {}
            }
        }
        Ok(())
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

/// `value` for the settable parameter `name` (lower case) as kpg keeps and shows it, or why it
/// is refused: 22023 for a value PostgreSQL refuses too, 0A000 for one that would change what
/// PostgreSQL does in a way kpg does not follow.
fn check(name: &str, value: &str) -> Result<String, ExecError> {
    let refuse = |what: &str| {
        Err(ExecError::unsupported(format!(
            "{name} = '{value}' (kpg supports {what})"
        )))
    };
    // PostgreSQL names the parameter as written (lower case) for numbers, booleans and
    // choices, and by its own spelling for strings it checks itself.
    let invalid_as = |shown: &str| {
        ExecError::new(
            "22023",
            format!("invalid value for parameter \"{shown}\": \"{value}\""),
        )
    };
    let invalid = || Err(invalid_as(name));
    let choice =
        |choices: &str| Err(invalid_as(name).with_hint(format!("Available values: {choices}.")));
    let boolean = || {
        Err(ExecError::new(
            "22023",
            format!("parameter \"{name}\" requires a Boolean value"),
        ))
    };
    if let Some(checked) = crate::planner_settings::check(name, value) {
        return checked;
    }
    let lower = value.trim().to_ascii_lowercase();
    match name {
        "client_encoding" => match lower.as_str() {
            "utf8" | "utf-8" | "unicode" => Ok("UTF8".into()),
            _ => refuse("UTF8 only"),
        },
        "bytea_output" => match lower.as_str() {
            "hex" | "escape" => Ok(lower),
            _ => choice("escape, hex"),
        },
        "intervalstyle" => crate::session_dates::check_interval_style(value),
        // Shown with the zone database's spelling, as PostgreSQL shows it.
        "timezone" => crate::session_dates::check_time_zone(value),
        "statement_timeout" | "lock_timeout" => match parse_duration_ms(value) {
            Some(ms) => Ok(show_ms(ms)),
            None => invalid(),
        },
        // Ending idle sessions is not done; only 0, never, is accepted.
        "idle_in_transaction_session_timeout" => match parse_duration_ms(value) {
            Some(0) => Ok("0".into()),
            Some(_) => refuse("0 only"),
            None => invalid(),
        },
        "extra_float_digits" => {
            let n = match lower.parse::<i64>() {
                Ok(n) => n,
                // PostgreSQL rounds a fractional value of an integer parameter.
                Err(_) => match lower.parse::<f64>() {
                    Ok(f) if f.is_finite() => f.round_ties_even() as i64,
                    _ => return invalid(),
                },
            };
            if !(-15..=3).contains(&n) {
                return Err(ExecError::new(
                    "22023",
                    format!("{n} is outside the valid range for parameter \"{name}\" (-15 .. 3)"),
                ));
            }
            Ok(n.to_string())
        }
        "default_transaction_isolation" | "transaction_isolation" => match lower.as_str() {
            // Shown as set; blocks run at READ COMMITTED whatever the setting (see `txn.rs`).
            "serializable"
            | "repeatable read"
            | "read committed"
            | "read uncommitted"
            | "strict serializable" => Ok(lower),
            _ => choice("serializable, repeatable read, read committed, read uncommitted"),
        },
        "transaction_read_only" => match bool_value(&lower) {
            Some(false) => Ok("off".into()),
            Some(true) => refuse("read-write transactions only"),
            None => boolean(),
        },
        "standard_conforming_strings" => match bool_value(&lower) {
            Some(true) => Ok("on".into()),
            Some(false) => refuse("on only"),
            None => boolean(),
        },
        "client_min_messages" => match lower.as_str() {
            "debug5" | "debug4" | "debug3" | "debug2" | "debug1" | "log" | "notice" | "warning"
            | "error" => Ok(lower),
            "debug" => Ok("debug2".into()),
            "info" => Ok("info".into()),
            _ => choice("debug5, debug4, debug3, debug2, debug1, log, notice, warning, error"),
        },
        "lc_messages" => match lower.as_str() {
            "" | "c" | "posix" | "c.utf-8" | "c.utf8" | "en_us.utf-8" | "en_us.utf8" | "en_us" => {
                Ok(value.to_string())
            }
            _ => refuse("English messages only (C, POSIX, en_US)"),
        },
        "search_path" => search_path(value),
        _ => Ok(value.to_string()),
    }
}

/// A duration in milliseconds as PostgreSQL shows it: in the largest unit that divides it.
fn show_ms(ms: u64) -> String {
    if ms == 0 {
        return "0".into();
    }
    let units = [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1_000, "s"),
    ];
    match units.iter().find(|(size, _)| ms.is_multiple_of(*size)) {
        Some((size, unit)) => format!("{}{unit}", ms / size),
        None => format!("{ms}ms"),
    }
}

/// The settings in a startup `options` string, as PostgreSQL reads its command line: words
/// split at unescaped blanks (`\\ ` is a blank inside a word), `-c name=value`,
/// `-cname=value` or `--name=value` (dashes in the name read as underscores); names lower case.
fn command_line_settings(options: &str) -> Result<Vec<(String, String)>, ExecError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            c if c.is_ascii_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut settings = Vec::new();
    let mut words = words.into_iter();
    while let Some(w) = words.next() {
        let setting = if w == "-c" {
            words.next().unwrap_or_default()
        } else if let Some(s) = w.strip_prefix("--") {
            match s.split_once('=') {
                Some((name, value)) => format!("{}={value}", name.replace('-', "_")),
                None => s.replace('-', "_"),
            }
        } else if let Some(s) = w.strip_prefix("-c") {
            s.to_string()
        } else {
            return Err(ExecError::new(
                "42601",
                format!("invalid command-line argument for server process: {w}"),
            )
            .with_hint("Try \"postgres --help\" for more information."));
        };
        match setting.split_once('=') {
            Some((name, value)) => settings.push((name.to_lowercase(), value.to_string())),
            None => {
                return Err(ExecError::new(
                    "42601",
                    format!("-c {setting} requires a value"),
                ))
            }
        }
    }
    Ok(settings)
}

/// A boolean parameter's value as PostgreSQL reads it.
pub(crate) fn bool_value(v: &str) -> Option<bool> {
    match v {
        "on" | "true" | "yes" | "1" | "t" | "y" => Some(true),
        "off" | "false" | "no" | "0" | "f" | "n" => Some(false),
        _ => None,
    }
}

/// search_path: kpg has the one schema `public` (and `pg_catalog`, always searched first), so
/// a path must name `public` and nothing but `"$user"` (no such schema here) and `pg_catalog`.
fn search_path(value: &str) -> Result<String, ExecError> {
    let schemas: Vec<String> = value
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_ascii_lowercase())
        .collect();
    let known = schemas
        .iter()
        .all(|s| matches!(s.as_str(), "public" | "$user" | "pg_catalog"));
    if !known || !schemas.iter().any(|s| s == "public") {
        return Err(ExecError::unsupported(format!(
            "search_path = '{value}' (kpg has the schema public only)"
        )));
    }
    Ok(value.to_string())
}

/// The name PostgreSQL shows for the parameter `name` (lower case).
fn display_name(name: &str) -> String {
    DEFAULTS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_string(), |(k, _)| k.to_string())
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
        "d" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(vars: &mut SessionVars, sql: &str) -> Result<(), ExecError> {
        match &kpg_sql::parse(sql).unwrap()[0] {
            kpg_sql::ParsedStatement::Session(stmt) => vars.run(stmt).map(|_| ()),
            kpg_sql::ParsedStatement::Refused(e) => Err(e.clone().into()),
            other => panic!("not a session statement: {other:?}"),
        }
    }

    fn code(vars: &mut SessionVars, sql: &str) -> &'static str {
        run(vars, sql).expect_err(sql).code
    }

    fn shown(vars: &mut SessionVars, name: &str) -> String {
        let stmt = &kpg_sql::parse(&format!("SHOW {name}")).unwrap()[0];
        let kpg_sql::ParsedStatement::Session(stmt) = stmt else {
            panic!("SHOW {name}")
        };
        match vars.run(stmt) {
            Ok(ExecuteResult::Rows { rows, .. }) => rows[0].get(0).to_datum().to_text().unwrap(),
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
        assert_eq!(code(&mut v, "SET TimeZone = 'XYZ5ABC'"), "0A000");
        assert_eq!(code(&mut v, "SET server_version = '1'"), "55P02");
        assert_eq!(code(&mut v, "SET statement_timeout = 'soon'"), "22023");
        run(&mut v, "RESET ALL").unwrap();
        assert_eq!(shown(&mut v, "application_name"), "");
        let startup = [("application_name".to_string(), "psql".to_string())];
        let mut v = SessionVars::from_startup(startup.iter().map(|(a, b)| (a, b))).unwrap();
        assert_eq!(shown(&mut v, "application_name"), "psql");
        // RESET goes back to the startup value.
        run(&mut v, "SET application_name = 'x'").unwrap();
        run(&mut v, "RESET application_name").unwrap();
        assert_eq!(shown(&mut v, "application_name"), "psql");
        let options = |o: &str| {
            let startup = [("options".to_string(), o.to_string())];
            SessionVars::from_startup(startup.iter().map(|(a, b)| (a, b)))
        };
        let mut v = options("-c extra_float_digits=0 --statement-timeout=2s").unwrap();
        assert_eq!(shown(&mut v, "extra_float_digits"), "0");
        assert_eq!(shown(&mut v, "statement_timeout"), "2s");
        let mut v = options("-capplication_name=a\\ b").unwrap();
        assert_eq!(shown(&mut v, "application_name"), "a b");
        assert_eq!(options("-x").unwrap_err().code, "42601");
        assert_eq!(
            options("-c extra_float_digits=9").unwrap_err().code,
            "22023"
        );
        assert_eq!(options("-c nonsense=1").unwrap_err().code, "42704");
        let mut v = options("-c DateStyle=German").unwrap();
        assert_eq!(shown(&mut v, "datestyle"), "German, DMY");
        assert_eq!(
            options("-c bytea_output=nonsense").unwrap_err().code,
            "22023"
        );
    }
}

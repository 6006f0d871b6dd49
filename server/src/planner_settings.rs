//! PostgreSQL's settings that steer only its own planner, executor or storage (`enable_*`,
//! `work_mem`, `jit`, ...): they change no result, so kpg accepts them with PostgreSQL's
//! checks and messages and shows them back as PostgreSQL shows them (SHOW, RESET, SET LOCAL,
//! startup options); they steer nothing in kpg. Any other unknown name stays 42704
//! (`session_vars.rs`).

use crate::error::ExecError;

/// How a setting's value is read and shown.
#[derive(Clone, Copy)]
enum Kind {
    /// `on`/`off` (and PostgreSQL's other spellings).
    Bool,
    /// An amount of memory in kB, written with a unit (`B`, `kB`, `MB`, `GB`, `TB`) or
    /// without (kB), shown in the largest unit that divides it.
    MemoryKb { min: i64, max: i64 },
    /// An integer in a range.
    Int { min: i64, max: i64 },
}

const MAX: i64 = i32::MAX as i64;

/// The settings with PostgreSQL 15's defaults as SHOW prints them.
const SETTINGS: &[(&str, &str, Kind)] = &[
    (
        "default_statistics_target",
        "100",
        Kind::Int { min: 1, max: 10000 },
    ),
    ("enable_async_append", "on", Kind::Bool),
    ("enable_bitmapscan", "on", Kind::Bool),
    ("enable_gathermerge", "on", Kind::Bool),
    ("enable_hashagg", "on", Kind::Bool),
    ("enable_hashjoin", "on", Kind::Bool),
    ("enable_incremental_sort", "on", Kind::Bool),
    ("enable_indexonlyscan", "on", Kind::Bool),
    ("enable_indexscan", "on", Kind::Bool),
    ("enable_material", "on", Kind::Bool),
    ("enable_memoize", "on", Kind::Bool),
    ("enable_mergejoin", "on", Kind::Bool),
    ("enable_nestloop", "on", Kind::Bool),
    ("enable_parallel_append", "on", Kind::Bool),
    ("enable_parallel_hash", "on", Kind::Bool),
    ("enable_partition_pruning", "on", Kind::Bool),
    ("enable_partitionwise_aggregate", "off", Kind::Bool),
    ("enable_partitionwise_join", "off", Kind::Bool),
    ("enable_seqscan", "on", Kind::Bool),
    ("enable_sort", "on", Kind::Bool),
    ("enable_tidscan", "on", Kind::Bool),
    ("from_collapse_limit", "8", Kind::Int { min: 1, max: MAX }),
    ("geqo", "on", Kind::Bool),
    ("geqo_threshold", "12", Kind::Int { min: 2, max: MAX }),
    ("jit", "on", Kind::Bool),
    ("join_collapse_limit", "8", Kind::Int { min: 1, max: MAX }),
    (
        "maintenance_work_mem",
        "64MB",
        Kind::MemoryKb {
            min: 1024,
            max: MAX,
        },
    ),
    (
        "max_parallel_workers_per_gather",
        "2",
        Kind::Int { min: 0, max: 1024 },
    ),
    ("work_mem", "4MB", Kind::MemoryKb { min: 64, max: MAX }),
];

/// Every such setting (lower case) with its default as SHOW prints it.
pub fn defaults() -> impl Iterator<Item = (&'static str, &'static str)> {
    SETTINGS.iter().map(|(name, default, _)| (*name, *default))
}

/// `value` for setting `name` as SHOW prints it, or PostgreSQL's error; `None` if `name` is
/// not one of these settings.
pub fn check(name: &str, value: &str) -> Option<Result<String, ExecError>> {
    let (_, _, kind) = SETTINGS.iter().find(|(n, _, _)| *n == name)?;
    let invalid = || {
        ExecError::new(
            "22023",
            format!("invalid value for parameter \"{name}\": \"{value}\""),
        )
    };
    let out_of_range = |n: i64, unit: &str, min: i64, max: i64| {
        ExecError::new(
            "22023",
            format!(
                "{n}{unit} is outside the valid range for parameter \"{name}\" ({min} .. {max})"
            ),
        )
    };
    let v = value.trim();
    Some(match *kind {
        Kind::Bool => match super::session_vars::bool_value(&v.to_ascii_lowercase()) {
            Some(b) => Ok(if b { "on" } else { "off" }.to_string()),
            None => Err(ExecError::new(
                "22023",
                format!("parameter \"{name}\" requires a Boolean value"),
            )),
        },
        Kind::Int { min, max } => match number(v) {
            Some(n) if (min..=max).contains(&n) => Ok(n.to_string()),
            Some(n) => Err(out_of_range(n, "", min, max)),
            None => Err(invalid()),
        },
        Kind::MemoryKb { min, max } => match memory_kb(v) {
            Some(n) if (min..=max).contains(&n) => Ok(show_kb(n)),
            Some(n) => Err(out_of_range(n, " kB", min, max)),
            None => Err(invalid().with_hint(
                "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".",
            )),
        },
    })
}

/// A number, rounded to an integer as PostgreSQL rounds a fractional value of an integer
/// setting.
fn number(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    let f: f64 = text.parse().ok()?;
    (f.is_finite() && f.abs() < 1e18).then(|| f.round_ties_even() as i64)
}

/// An amount of memory in kB: a number, blanks, and a unit (case matters, as in PostgreSQL).
fn memory_kb(text: &str) -> Option<i64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let per_unit = match unit.trim_start() {
        "" | "kB" => 1.0,
        "B" => 1.0 / 1024.0,
        "MB" => 1024.0,
        "GB" => 1024.0 * 1024.0,
        "TB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let n: f64 = num.parse().ok()?;
    let kb = (n * per_unit).round_ties_even();
    (kb.is_finite() && kb.abs() < 1e18).then_some(kb as i64)
}

/// kB in the largest unit that divides them (`4096` is `4MB`), as PostgreSQL's SHOW.
fn show_kb(kb: i64) -> String {
    if kb == 0 {
        return "0".into();
    }
    let mut value = kb;
    for unit in ["kB", "MB", "GB"] {
        if value % 1024 != 0 {
            return format!("{value}{unit}");
        }
        value /= 1024;
    }
    format!("{value}TB")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_postgres_shows_them() {
        let ok = |n: &str, v: &str| check(n, v).unwrap().unwrap();
        assert_eq!(ok("work_mem", "8MB"), "8MB");
        assert_eq!(ok("work_mem", "1000"), "1000kB");
        assert_eq!(ok("work_mem", "1048576"), "1GB");
        assert_eq!(ok("work_mem", "1.5MB"), "1536kB");
        assert_eq!(ok("enable_seqscan", "OFF"), "off");
        assert_eq!(ok("jit", "true"), "on");
        assert_eq!(ok("max_parallel_workers_per_gather", "0"), "0");
        let code = |n: &str, v: &str| check(n, v).unwrap().unwrap_err().code;
        assert_eq!(code("work_mem", "8 mb"), "22023");
        assert_eq!(code("work_mem", "10"), "22023");
        assert_eq!(code("enable_seqscan", "maybe"), "22023");
        assert!(check("nonsense", "1").is_none());
    }
}

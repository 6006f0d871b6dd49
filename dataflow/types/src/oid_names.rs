//! Input of the OID types from a text that is not a constant (`$1::regclass`, `name::regclass`,
//! `to_regclass($1)`): PostgreSQL looks the name up as each value is read. kpg has no catalog
//! in its expressions, so the planner hands the names and OIDs over as two array literals (a
//! snapshot that holds as long as the plan: a plan is made again when the catalog changes),
//! and `OidByName` looks each value up among them, reading a name as PostgreSQL does (its last
//! dotted part; as written if quoted, else lower-cased), with its errors.

use serde::{Deserialize, Serialize};

use crate::datum::Datum;
use crate::error::EvalError;

/// What an OID type names: its error for a name nothing has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OidNoun {
    Relation,
    Schema,
    Role,
    Type,
}

impl OidNoun {
    fn missing(self, name: String) -> EvalError {
        match self {
            OidNoun::Relation => EvalError::UndefinedTable(name),
            OidNoun::Schema => {
                EvalError::UndefinedObject(format!("schema \"{name}\" does not exist"))
            }
            OidNoun::Role => EvalError::UndefinedObject(format!("role \"{name}\" does not exist")),
            OidNoun::Type => EvalError::UndefinedObject(format!("type \"{name}\" does not exist")),
        }
    }
}

/// The name a text gives: its last dotted part, as written if quoted, else lower-cased.
pub fn unqualified(s: &str) -> String {
    let last = s.rsplit('.').next().unwrap_or(s).trim();
    match last.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        Some(quoted) => quoted.replace("\"\"", "\""),
        None => last.to_lowercase(),
    }
}

/// The arguments `OidByName` takes after the looked-up text: the names and their OIDs.
pub fn table(entries: impl IntoIterator<Item = (String, i64)>) -> [Datum; 2] {
    let (names, oids): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .map(|(name, oid)| (Datum::String(name), Datum::Int64(oid)))
        .unzip();
    [Datum::Array(names), Datum::Array(oids)]
}

/// The OID named by `args[0]` among `args[1]` (names) and `args[2]` (their OIDs), non-NULL
/// arguments: a text of digits is an OID already for a cast (not for `to_regclass`, which
/// `or_null` marks and which is NULL where a cast fails).
pub(crate) fn eval(noun: OidNoun, or_null: bool, args: &[Datum]) -> Result<Datum, EvalError> {
    let [Datum::String(text), Datum::Array(names), Datum::Array(oids)] = args else {
        return Err(EvalError::Internal(format!("OID lookup over {args:?}")));
    };
    if !or_null {
        if let Ok(oid) = text.trim().parse::<i64>() {
            return Ok(Datum::Int64(oid));
        }
    }
    let name = unqualified(text);
    let found = names
        .iter()
        .position(|n| matches!(n, Datum::String(n) if *n == name));
    match found {
        Some(i) => Ok(oids[i].clone()),
        None if or_null => Ok(Datum::Null),
        None => Err(noun.missing(name)),
    }
}

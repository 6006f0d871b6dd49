//! The rows of the system catalogs declared in `pg_catalog.rs`, and the planner's lookups by
//! OID, computed from one `Snapshot` of the server's catalog.
//!
//! A snapshot lists every relation a client can see: users' tables, views, materialized views
//! and indexes in `public`, and the system relations themselves (pg_catalog's, the
//! introspection relations, information_schema's), each with its OID, kind and columns.

use kpg_sql::{ItemKind, PgLookup};
use kpg_types::{quote_ident, Datum, RelationDesc, ScalarExpr, ScalarType, PG_TYPES};

use super::pg_catalog::{self, SystemRelation, RELATIONS};
use crate::catalog::{temp, Catalog};

pub const NS_PG_CATALOG: i64 = 11;
pub const NS_PUBLIC: i64 = 2200;
/// The session's schema of temporary objects (`pg_temp_<session>`), listed once it has one.
pub const NS_PG_TEMP: i64 = 16000;
pub const NS_INFORMATION_SCHEMA: i64 = 13000;
/// The one role, which owns every object.
pub const ROLE: (i64, &str) = (10, "kpg");
/// kpg's one access method: indexes are arrangements.
pub const AM_ARRANGEMENT: (i64, &str) = (9000, "arrangement");
const DATABASE_OID: i64 = 16383;
/// Added to a constraint's index OID to make the constraint's OID (users' objects have OIDs
/// from 16384 up, far below it).
const CONSTRAINT_OID_OFFSET: i64 = 1 << 30;
/// The collation kpg compares strings by ("C", bytewise), PostgreSQL's `default` entry.
const COLLATION_DEFAULT: i64 = 100;

/// An expression's text as PostgreSQL's pretty printer writes it: without the parentheses
/// around the whole (`1 + 2`, where information_schema shows `(1 + 2)`).
fn pretty(sql: &str) -> &str {
    let Some(inner) = sql.strip_prefix('(').and_then(|s| s.strip_suffix(')')) else {
        return sql;
    };
    // Only if the first parenthesis closes at the end (not `(a) + (b)`), outside strings.
    let (mut depth, mut quoted) = (0i32, false);
    for c in inner.chars() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => {
                depth -= 1;
                if depth < 0 {
                    return sql;
                }
            }
            _ => {}
        }
    }
    inner
}

/// OID of the pg_attrdef row of column `n` (from 0) of the relation `oid`: above the user
/// objects' (PostgreSQL's 1600 columns per table at most).
fn attrdef_oid(oid: i64, n: usize) -> i64 {
    1_000_000_000 + (oid - user_oid(0)) * 1600 + n as i64
}

/// OID of a user object.
pub fn user_oid(id: u64) -> i64 {
    16384 + id as i64
}

pub struct Relation {
    pub oid: i64,
    pub name: String,
    pub namespace: i64,
    /// 'r' table, 'v' view, 'm' materialized view, 'i' index.
    pub kind: char,
    pub desc: RelationDesc,
    pub has_index: bool,
    /// For an index: the relation it arranges and its key expressions as SQL.
    pub index: Option<(i64, Vec<String>)>,
    /// For an index that enforces a constraint: whether it is the primary key.
    pub primary: Option<bool>,
    /// For a view or materialized view: its defining query.
    pub sql: Option<String>,
    /// For a table: each column's DEFAULT as PostgreSQL prints it (empty if none has one).
    pub defaults: Vec<Option<String>>,
}

pub struct Snapshot {
    pub relations: Vec<Relation>,
}

/// The column number in relation `on` of each index key (SQL text), 0 for an expression.
fn attnums(s: &Snapshot, on: i64, keys: &[String]) -> Vec<i16> {
    let desc = s.relations.iter().find(|t| t.oid == on).map(|t| &t.desc);
    keys.iter()
        .map(|key| {
            desc.and_then(|d| d.names().position(|c| quote_ident(c) == *key))
                .map_or(0, |p| p as i16 + 1)
        })
        .collect()
}

/// The schemas the current session sees: its temporary one too if it holds anything.
pub fn namespaces(s: &Snapshot) -> Vec<i64> {
    let mut out = vec![NS_PG_CATALOG, NS_PUBLIC, NS_INFORMATION_SCHEMA];
    if s.relations.iter().any(|r| r.namespace == NS_PG_TEMP) {
        out.push(NS_PG_TEMP);
    }
    out
}

fn key_sql(key: &ScalarExpr, desc: &RelationDesc) -> String {
    match key {
        ScalarExpr::Column(c) => desc
            .columns
            .get(*c)
            .map_or_else(|| format!("#{c}"), |(n, _)| quote_ident(n)),
        other => {
            // Display writes columns as #i: name them, highest index first.
            let mut s = other.to_string();
            for (i, (n, _)) in desc.columns.iter().enumerate().rev() {
                s = s.replace(&format!("#{i}"), &quote_ident(n));
            }
            format!("({s})")
        }
    }
}

impl Snapshot {
    pub fn new(catalog: &Catalog) -> Snapshot {
        let mut relations = Vec::new();
        for item in catalog.items() {
            let kind = match item.kind {
                // Sources are relations of rows as tables are (as in Materialize's pg_class).
                ItemKind::Table | ItemKind::Source => 'r',
                ItemKind::View => 'v',
                ItemKind::MaterializedView => 'm',
            };
            let entry = catalog.get(item.id);
            relations.push(Relation {
                oid: user_oid(item.id),
                name: item.name.clone(),
                namespace: namespace_of(catalog, item.id),
                kind,
                desc: item.desc.clone(),
                has_index: !kpg_sql::Catalog::indexes_on(catalog, item.id).is_empty(),
                index: None,
                primary: None,
                // The defining query of a view (a source keeps its CREATE SOURCE statement).
                sql: entry
                    .filter(|_| matches!(kind, 'v' | 'm'))
                    .and_then(|e| e.sql.clone()),
                defaults: entry.map_or_else(Vec::new, |e| {
                    e.defaults
                        .iter()
                        .map(|d| d.as_ref().map(|d| d.sql.clone()))
                        .collect()
                }),
            });
        }
        for index in catalog.all_indexes() {
            let Some(on) = catalog.get(index.on) else {
                continue;
            };
            let keys: Vec<String> = index
                .key
                .iter()
                .map(|k| key_sql(k, &on.item.desc))
                .collect();
            let columns = index
                .key
                .iter()
                .zip(&keys)
                .map(|(k, text)| {
                    let ty = kpg_types::ColumnType::new(key_type(k, &on.item.desc), true);
                    let name = match k {
                        ScalarExpr::Column(_) => text.trim_matches('"').to_string(),
                        _ => "expr".to_string(),
                    };
                    (name, ty)
                })
                .collect();
            relations.push(Relation {
                oid: user_oid(index.id),
                name: index.name.clone(),
                namespace: namespace_of(catalog, index.id),
                kind: 'i',
                desc: RelationDesc::new(columns),
                has_index: false,
                index: Some((user_oid(index.on), keys)),
                primary: catalog.constraint_of(index.id).map(|(_, key)| key.primary),
                sql: None,
                defaults: Vec::new(),
            });
        }
        for (i, r) in RELATIONS.iter().enumerate() {
            let _ = pg_catalog::id_of(i);
            relations.push(Relation {
                oid: r.oid,
                name: r.name.to_string(),
                namespace: if r.schema == "pg_catalog" {
                    NS_PG_CATALOG
                } else {
                    NS_INFORMATION_SCHEMA
                },
                kind: 'v',
                desc: pg_catalog::desc(r),
                has_index: false,
                index: None,
                primary: None,
                sql: None,
                defaults: Vec::new(),
            });
        }
        for (oid, name, desc) in super::introspection::relations() {
            relations.push(Relation {
                oid,
                name: name.to_string(),
                namespace: NS_PG_CATALOG,
                kind: 'v',
                desc,
                has_index: false,
                index: None,
                primary: None,
                sql: None,
                defaults: Vec::new(),
            });
        }
        Snapshot { relations }
    }

    /// Whether a relation is found by its bare name: pg_catalog is searched before public,
    /// and information_schema is not on the search path.
    fn visible(&self, r: &Relation) -> bool {
        match r.namespace {
            NS_PG_CATALOG | NS_PG_TEMP => true,
            NS_PUBLIC => !self
                .relations
                .iter()
                .any(|o| matches!(o.namespace, NS_PG_CATALOG | NS_PG_TEMP) && o.name == r.name),
            _ => false,
        }
    }
}

/// The type of an index key expression.
fn key_type(k: &ScalarExpr, desc: &RelationDesc) -> ScalarType {
    match k {
        ScalarExpr::Column(c) => desc
            .columns
            .get(*c)
            .map_or(ScalarType::Text, |(_, t)| t.scalar),
        _ => ScalarType::Text,
    }
}

fn t(s: impl Into<String>) -> Datum {
    Datum::String(s.into())
}
fn o(v: i64) -> Datum {
    Datum::Int64(v)
}
fn i(v: i32) -> Datum {
    Datum::Int32(v)
}
fn b(v: bool) -> Datum {
    Datum::Bool(v)
}
const N: Datum = Datum::Null;

pub fn nspname(oid: i64) -> String {
    match oid {
        NS_PG_CATALOG => "pg_catalog".into(),
        NS_PUBLIC => "public".into(),
        NS_PG_TEMP => temp::schema(temp::current().unwrap_or(0)),
        _ => "information_schema".into(),
    }
}

/// The schema of the object or index `id`: its session's temporary one, or public.
fn namespace_of(catalog: &Catalog, id: u64) -> i64 {
    match catalog.temp_of(id) {
        Some(_) => NS_PG_TEMP,
        None => NS_PUBLIC,
    }
}

/// (typlen, byval, storage) of a type.
fn type_layout(ty: &ScalarType) -> (i32, bool, &'static str) {
    match ty {
        ScalarType::Bool => (1, true, "p"),
        ScalarType::Int16 => (2, true, "p"),
        ScalarType::Int32 | ScalarType::Float32 => (4, true, "p"),
        ScalarType::Int64
        | ScalarType::Float64
        | ScalarType::Timestamp
        | ScalarType::TimestampOf(_)
        | ScalarType::TimestampTz
        | ScalarType::TimestampTzOf(_)
        | ScalarType::Time
        | ScalarType::TimeOf(_) => (8, true, "p"),
        ScalarType::Uuid => (16, false, "p"),
        ScalarType::Date => (4, true, "p"),
        ScalarType::Interval | ScalarType::IntervalOf(_) => (16, false, "p"),
        // PostgreSQL compresses a numeric in place but never moves it out of line.
        ScalarType::Numeric { .. } => (-1, false, "m"),
        _ => (-1, false, "x"),
    }
}

fn collation(ty: &ScalarType) -> i64 {
    if ty.is_string() {
        COLLATION_DEFAULT
    } else {
        0
    }
}

pub fn rows(r: &SystemRelation, s: &Snapshot) -> Vec<Vec<Datum>> {
    match (r.schema, r.name) {
        (_, "pg_namespace") => namespaces(s)
            .iter()
            .map(|n| vec![o(*n), t(nspname(*n)), o(ROLE.0), N])
            .collect(),
        (_, "pg_class") => s
            .relations
            .iter()
            .map(|r| {
                let kind = r.kind.to_string();
                let am = if r.kind == 'i' { AM_ARRANGEMENT.0 } else { 0 };
                let replident = if matches!(r.kind, 'r' | 'm') {
                    "d"
                } else {
                    "n"
                };
                vec![
                    o(r.oid),
                    t(&r.name),
                    o(r.namespace),
                    o(0),
                    o(0),
                    o(ROLE.0),
                    o(am),
                    o(0),
                    o(0),
                    i(0),
                    Datum::Float64((-1.0).into()),
                    i(0),
                    o(0),
                    b(r.has_index),
                    b(false),
                    t("p"),
                    t(kind),
                    i(r.desc.columns.len() as i32),
                    i(0),
                    b(false),
                    b(false),
                    b(false),
                    b(false),
                    b(false),
                    b(true),
                    t(replident),
                    b(false),
                    o(0),
                    N,
                    N,
                    N,
                ]
            })
            .collect(),
        (_, "pg_attribute") => s
            .relations
            .iter()
            .flat_map(|r| {
                r.desc
                    .columns
                    .iter()
                    .enumerate()
                    .map(move |(n, (name, ty))| {
                        let (len, byval, storage) = type_layout(&ty.scalar);
                        vec![
                            o(r.oid),
                            t(name),
                            o(ty.scalar.oid().into()),
                            i(-1),
                            i(len),
                            i(n as i32 + 1),
                            i(0),
                            i(-1),
                            i(ty.scalar.typmod()),
                            b(byval),
                            t("d"),
                            // NOT NULL is a constraint: only tables have one.
                            t(storage),
                            t(""),
                            b(!ty.nullable && r.kind == 'r'),
                            b(r.defaults.get(n).is_some_and(Option::is_some)),
                            b(false),
                            t(""),
                            t(""),
                            b(false),
                            b(true),
                            i(0),
                            o(collation(&ty.scalar)),
                            N,
                            N,
                        ]
                    })
            })
            .collect(),
        (_, "pg_type") => PG_TYPES
            .iter()
            .flat_map(|(oid, _, array)| {
                let name = type_name(*oid);
                let scalar = [
                    o(*oid),
                    t(name),
                    o(NS_PG_CATALOG),
                    o(ROLE.0),
                    i(-1),
                    b(false),
                    t("b"),
                    t("U"),
                    b(false),
                    b(true),
                    t(","),
                    o(0),
                    o(0),
                    o(*array),
                    b(false),
                    o(0),
                    i(-1),
                    i(0),
                    o(if matches!(*oid, 25 | 1042 | 1043) {
                        100
                    } else {
                        0
                    }),
                    N,
                ];
                let arr = [
                    o(*array),
                    t(format!("_{name}")),
                    o(NS_PG_CATALOG),
                    o(ROLE.0),
                    i(-1),
                    b(false),
                    t("b"),
                    t("A"),
                    b(false),
                    b(true),
                    t(","),
                    o(0),
                    o(*oid),
                    o(0),
                    b(false),
                    o(0),
                    i(-1),
                    i(0),
                    o(0),
                    N,
                ];
                [scalar.to_vec(), arr.to_vec()]
            })
            .collect(),
        // A default's adbin holds its text, which pg_get_expr returns (see pg_compat.rs).
        (_, "pg_attrdef") => s
            .relations
            .iter()
            .flat_map(|r| {
                r.defaults.iter().enumerate().filter_map(move |(n, d)| {
                    let sql = d.as_ref()?;
                    Some(vec![
                        o(attrdef_oid(r.oid, n)),
                        o(r.oid),
                        i(n as i32 + 1),
                        t(pretty(sql)),
                    ])
                })
            })
            .collect(),
        (_, "pg_index") => s
            .relations
            .iter()
            .filter_map(|r| {
                let (on, keys) = r.index.as_ref()?;
                let n = keys.len() as i32;
                // indkey: each key's column number; indoption: no DESC or NULLS FIRST keys.
                let indkey = Datum::Int2Vector(attnums(s, *on, keys));
                let indoption = Datum::Int2Vector(vec![0; keys.len()]);
                Some(vec![
                    o(r.oid),
                    o(*on),
                    i(n),
                    i(n),
                    b(r.primary.is_some()),
                    b(false),
                    b(r.primary == Some(true)),
                    b(false),
                    b(true),
                    b(false),
                    b(true),
                    b(false),
                    b(true),
                    b(true),
                    b(false),
                    indkey,
                    Datum::Array(vec![Datum::Int64(0); keys.len()]),
                    indoption,
                    N,
                    N,
                ])
            })
            .collect(),
        // A primary key or unique constraint for each index that enforces one (named as its
        // index); its OID is the index's plus CONSTRAINT_OID_OFFSET.
        (_, "pg_constraint") => s
            .relations
            .iter()
            .filter_map(|r| {
                let primary = r.primary?;
                let (on, keys) = r.index.as_ref()?;
                let conkey = attnums(s, *on, keys)
                    .into_iter()
                    .map(Datum::Int16)
                    .collect();
                Some(vec![
                    o(r.oid + CONSTRAINT_OID_OFFSET),
                    t(r.name.clone()),
                    o(r.namespace),
                    t(if primary { "p" } else { "u" }),
                    b(false),
                    b(false),
                    b(true),
                    o(*on),
                    o(0),
                    o(r.oid),
                    o(0),
                    o(0),
                    Datum::Array(conkey),
                    N,
                ])
            })
            .collect(),
        (_, "pg_am") => vec![vec![o(AM_ARRANGEMENT.0), t(AM_ARRANGEMENT.1), o(0), t("i")]],
        (_, "pg_database") => vec![vec![
            o(DATABASE_OID),
            t(kpg_sql::DATABASE),
            o(ROLE.0),
            i(6),
            t("c"),
            b(false),
            b(true),
            i(-1),
            t("C"),
            t("C"),
            N,
            N,
            N,
        ]],
        (_, "pg_roles" | "pg_authid") => vec![vec![
            o(ROLE.0),
            t(ROLE.1),
            b(true),
            b(true),
            b(true),
            b(true),
            b(true),
            b(false),
            i(-1),
            t("********"),
            N,
            b(true),
            N,
        ]],
        (_, "pg_user") => vec![vec![
            t(ROLE.1),
            o(ROLE.0),
            b(true),
            b(true),
            b(false),
            b(true),
            t("********"),
            N,
            N,
        ]],
        (_, "pg_collation") => [(100, "default", "d"), (950, "C", "c"), (951, "POSIX", "c")]
            .iter()
            .map(|(oid, name, provider)| {
                let locale = if *provider == "d" { N } else { t(*name) };
                vec![
                    o(*oid),
                    t(*name),
                    o(NS_PG_CATALOG),
                    o(ROLE.0),
                    t(*provider),
                    b(true),
                    i(-1),
                    locale.clone(),
                    locale,
                ]
            })
            .collect(),
        (_, "pg_settings") => SETTINGS
            .iter()
            .map(|(name, setting)| {
                vec![
                    t(*name),
                    t(*setting),
                    N,
                    t("kpg"),
                    t(""),
                    t("user"),
                    t("string"),
                    t("default"),
                ]
            })
            .collect(),
        ("information_schema", name) => super::info_schema::rows(name, s),
        _ => Vec::new(),
    }
}

/// Settings as the session reports them (`SHOW`).
const SETTINGS: &[(&str, &str)] = &[
    ("client_encoding", "UTF8"),
    ("DateStyle", "ISO, MDY"),
    ("integer_datetimes", "on"),
    ("search_path", "\"$user\", public"),
    ("server_encoding", "UTF8"),
    ("server_version", "16.6"),
    ("standard_conforming_strings", "on"),
    ("TimeZone", "UTC"),
];

/// PostgreSQL's internal name of a built-in type (`typname`).
pub fn type_name(oid: i64) -> &'static str {
    match oid {
        16 => "bool",
        17 => "bytea",
        18 => "char",
        19 => "name",
        20 => "int8",
        21 => "int2",
        23 => "int4",
        24 => "regproc",
        25 => "text",
        26 => "oid",
        700 => "float4",
        701 => "float8",
        1042 => "bpchar",
        1043 => "varchar",
        1082 => "date",
        1083 => "time",
        1114 => "timestamp",
        1184 => "timestamptz",
        1186 => "interval",
        1700 => "numeric",
        2205 => "regclass",
        2950 => "uuid",
        2206 => "regtype",
        4089 => "regnamespace",
        _ => "???",
    }
}

pub fn lookup(what: PgLookup, s: &Snapshot) -> Vec<(i64, i64, String)> {
    match what {
        PgLookup::RelationName => s
            .relations
            .iter()
            .map(|r| {
                let name = quote_ident(&r.name);
                let shown = if s.visible(r) {
                    name
                } else {
                    format!("{}.{name}", nspname(r.namespace))
                };
                (r.oid, 0, shown)
            })
            .collect(),
        PgLookup::Visible => s
            .relations
            .iter()
            .filter(|r| s.visible(r))
            .map(|r| (r.oid, 0, String::new()))
            .collect(),
        PgLookup::ViewDefinition => s
            .relations
            .iter()
            .filter_map(|r| Some((r.oid, 0, format!("{};", r.sql.as_ref()?))))
            .collect(),
        PgLookup::IndexDefinition => s
            .relations
            .iter()
            .filter_map(|r| {
                let (on, keys) = r.index.as_ref()?;
                let table = s.relations.iter().find(|t| t.oid == *on)?;
                let mut out = vec![(
                    r.oid,
                    0,
                    format!(
                        "CREATE INDEX {} ON {}.{} USING {} ({})",
                        quote_ident(&r.name),
                        nspname(table.namespace),
                        quote_ident(&table.name),
                        AM_ARRANGEMENT.1,
                        keys.join(", ")
                    ),
                )];
                out.extend(
                    keys.iter()
                        .enumerate()
                        .map(|(k, text)| (r.oid, k as i64 + 1, text.clone())),
                );
                Some(out)
            })
            .flatten()
            .collect(),
        PgLookup::RoleName => vec![(ROLE.0, 0, ROLE.1.to_string())],
        PgLookup::NamespaceName => namespaces(s).iter().map(|n| (*n, 0, nspname(*n))).collect(),
    }
}

//! The rows of the system catalogs listed in `pg_catalog.rs` — each relation's columns declared
//! once with its builder here (`system_row!`; information_schema's in `info_schema.rs`) — and the
//! planner's lookups by OID, computed from one `Snapshot` of the server's catalog.
//!
//! A snapshot lists every relation a client can see: users' tables, views, materialized views
//! and indexes in `public`, and the system relations themselves (pg_catalog's, the
//! introspection relations, information_schema's), each with its OID, kind and columns.

use kpg_sql::{ItemKind, PgLookup};
use kpg_types::{quote_ident, Datum, RelationDesc, ScalarExpr, ScalarType, PG_TYPES};

use super::pg_catalog::{self, system_row, RELATIONS};
use crate::catalog::{temp, Catalog};

pub const NS_PG_CATALOG: i64 = 11;
pub const NS_PUBLIC: i64 = 2200;
/// The session's schema of temporary objects (`pg_temp_<session>`), listed once it has one.
pub const NS_PG_TEMP: i64 = 16000;
pub const NS_INFORMATION_SCHEMA: i64 = 13000;
/// The one role, which owns every object.
pub const ROLE: (i64, &str) = (10, kpg_sql::OWNER);
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

system_row! {
    /// A row of `pg_namespace`.
    PgNamespace {
        oid: 'o',
        nspname: 't',
        nspowner: 'o',
        nspacl: 't',
    }
}

pub fn pg_namespace(s: &Snapshot) -> Vec<Vec<Datum>> {
    namespaces(s)
        .iter()
        .map(|n| {
            PgNamespace {
                oid: o(*n),
                nspname: t(nspname(*n)),
                nspowner: o(ROLE.0),
                nspacl: N,
            }
            .into_row()
        })
        .collect()
}

system_row! {
    /// A row of `pg_class`.
    PgClass {
        oid: 'o',
        relname: 't',
        relnamespace: 'o',
        reltype: 'o',
        reloftype: 'o',
        relowner: 'o',
        relam: 'o',
        relfilenode: 'o',
        reltablespace: 'o',
        relpages: 'i',
        reltuples: 'f',
        relallvisible: 'i',
        reltoastrelid: 'o',
        relhasindex: 'b',
        relisshared: 'b',
        relpersistence: 't',
        relkind: 't',
        relnatts: 'i',
        relchecks: 'i',
        relhasrules: 'b',
        relhastriggers: 'b',
        relhassubclass: 'b',
        relrowsecurity: 'b',
        relforcerowsecurity: 'b',
        relispopulated: 'b',
        relreplident: 't',
        relispartition: 'b',
        relrewrite: 'o',
        relacl: 't',
        reloptions: 'T',
        relpartbound: 't',
    }
}

pub fn pg_class(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .map(|r| {
            let kind = r.kind.to_string();
            let am = if r.kind == 'i' { AM_ARRANGEMENT.0 } else { 0 };
            let replident = if matches!(r.kind, 'r' | 'm') {
                "d"
            } else {
                "n"
            };
            PgClass {
                oid: o(r.oid),
                relname: t(&r.name),
                relnamespace: o(r.namespace),
                reltype: o(0),
                reloftype: o(0),
                relowner: o(ROLE.0),
                relam: o(am),
                relfilenode: o(0),
                reltablespace: o(0),
                relpages: i(0),
                reltuples: Datum::Float64((-1.0).into()),
                relallvisible: i(0),
                reltoastrelid: o(0),
                relhasindex: b(r.has_index),
                relisshared: b(false),
                relpersistence: t("p"),
                relkind: t(kind),
                relnatts: i(r.desc.columns.len() as i32),
                relchecks: i(0),
                relhasrules: b(false),
                relhastriggers: b(false),
                relhassubclass: b(false),
                relrowsecurity: b(false),
                relforcerowsecurity: b(false),
                relispopulated: b(true),
                relreplident: t(replident),
                relispartition: b(false),
                relrewrite: o(0),
                relacl: N,
                reloptions: N,
                relpartbound: N,
            }
            .into_row()
        })
        .collect()
}

system_row! {
    /// A row of `pg_attribute`.
    PgAttribute {
        attrelid: 'o',
        attname: 't',
        atttypid: 'o',
        attstattarget: 'i',
        attlen: 'i',
        attnum: 'i',
        attndims: 'i',
        attcacheoff: 'i',
        atttypmod: 'i',
        attbyval: 'b',
        attalign: 't',
        attstorage: 't',
        attcompression: 't',
        attnotnull: 'b',
        atthasdef: 'b',
        atthasmissing: 'b',
        attidentity: 't',
        attgenerated: 't',
        attisdropped: 'b',
        attislocal: 'b',
        attinhcount: 'i',
        attcollation: 'o',
        attacl: 't',
        attoptions: 'T',
    }
}

pub fn pg_attribute(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .flat_map(|r| {
            r.desc
                .columns
                .iter()
                .enumerate()
                .map(move |(n, (name, ty))| {
                    let (len, byval, storage) = type_layout(&ty.scalar);
                    PgAttribute {
                        attrelid: o(r.oid),
                        attname: t(name),
                        atttypid: o(ty.scalar.oid().into()),
                        attstattarget: i(-1),
                        attlen: i(len),
                        attnum: i(n as i32 + 1),
                        attndims: i(0),
                        attcacheoff: i(-1),
                        atttypmod: i(ty.scalar.typmod()),
                        attbyval: b(byval),
                        attalign: t("d"),
                        attstorage: t(storage),
                        attcompression: t(""),
                        // NOT NULL is a constraint: only tables have one.
                        attnotnull: b(!ty.nullable && r.kind == 'r'),
                        atthasdef: b(r.defaults.get(n).is_some_and(Option::is_some)),
                        atthasmissing: b(false),
                        attidentity: t(""),
                        attgenerated: t(""),
                        attisdropped: b(false),
                        attislocal: b(true),
                        attinhcount: i(0),
                        attcollation: o(collation(&ty.scalar)),
                        attacl: N,
                        attoptions: N,
                    }
                    .into_row()
                })
        })
        .collect()
}

system_row! {
    /// A row of `pg_type`.
    PgType {
        oid: 'o',
        typname: 't',
        typnamespace: 'o',
        typowner: 'o',
        typlen: 'i',
        typbyval: 'b',
        typtype: 't',
        typcategory: 't',
        typispreferred: 'b',
        typisdefined: 'b',
        typdelim: 't',
        typrelid: 'o',
        typelem: 'o',
        typarray: 'o',
        typnotnull: 'b',
        typbasetype: 'o',
        typtypmod: 'i',
        typndims: 'i',
        typcollation: 'o',
        typdefault: 't',
    }
}

pub fn pg_type(_: &Snapshot) -> Vec<Vec<Datum>> {
    PG_TYPES
        .iter()
        .flat_map(|(oid, _, array)| {
            let name = type_name(*oid);
            let scalar = PgType {
                oid: o(*oid),
                typname: t(name),
                typnamespace: o(NS_PG_CATALOG),
                typowner: o(ROLE.0),
                typlen: i(-1),
                typbyval: b(false),
                typtype: t("b"),
                typcategory: t("U"),
                typispreferred: b(false),
                typisdefined: b(true),
                typdelim: t(","),
                typrelid: o(0),
                typelem: o(0),
                typarray: o(*array),
                typnotnull: b(false),
                typbasetype: o(0),
                typtypmod: i(-1),
                typndims: i(0),
                typcollation: o(if matches!(*oid, 25 | 1042 | 1043) {
                    100
                } else {
                    0
                }),
                typdefault: N,
            }
            .into_row();
            let arr = PgType {
                oid: o(*array),
                typname: t(format!("_{name}")),
                typnamespace: o(NS_PG_CATALOG),
                typowner: o(ROLE.0),
                typlen: i(-1),
                typbyval: b(false),
                typtype: t("b"),
                typcategory: t("A"),
                typispreferred: b(false),
                typisdefined: b(true),
                typdelim: t(","),
                typrelid: o(0),
                typelem: o(*oid),
                typarray: o(0),
                typnotnull: b(false),
                typbasetype: o(0),
                typtypmod: i(-1),
                typndims: i(0),
                typcollation: o(0),
                typdefault: N,
            }
            .into_row();
            [scalar, arr]
        })
        .collect()
}

system_row! {
    /// A row of `pg_attrdef`.
    PgAttrdef {
        oid: 'o',
        adrelid: 'o',
        adnum: 'i',
        adbin: 't',
    }
}

/// A default's adbin holds its text, which pg_get_expr returns (see pg_compat.rs).
pub fn pg_attrdef(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .flat_map(|r| {
            r.defaults.iter().enumerate().filter_map(move |(n, d)| {
                let sql = d.as_ref()?;
                Some(
                    PgAttrdef {
                        oid: o(attrdef_oid(r.oid, n)),
                        adrelid: o(r.oid),
                        adnum: i(n as i32 + 1),
                        adbin: t(pretty(sql)),
                    }
                    .into_row(),
                )
            })
        })
        .collect()
}

system_row! {
    /// A row of `pg_index`.
    PgIndex {
        indexrelid: 'o',
        indrelid: 'o',
        indnatts: 'i',
        indnkeyatts: 'i',
        indisunique: 'b',
        indnullsnotdistinct: 'b',
        indisprimary: 'b',
        indisexclusion: 'b',
        indimmediate: 'b',
        indisclustered: 'b',
        indisvalid: 'b',
        indcheckxmin: 'b',
        indisready: 'b',
        indislive: 'b',
        indisreplident: 'b',
        indkey: 'v',
        indclass: 'O',
        indoption: 'v',
        indexprs: 't',
        indpred: 't',
    }
}

pub fn pg_index(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .filter_map(|r| {
            let (on, keys) = r.index.as_ref()?;
            let n = keys.len() as i32;
            // indkey: each key's column number; indoption: no DESC or NULLS FIRST keys.
            let indkey = Datum::Int2Vector(attnums(s, *on, keys));
            let indoption = Datum::Int2Vector(vec![0; keys.len()]);
            Some(
                PgIndex {
                    indexrelid: o(r.oid),
                    indrelid: o(*on),
                    indnatts: i(n),
                    indnkeyatts: i(n),
                    indisunique: b(r.primary.is_some()),
                    indnullsnotdistinct: b(false),
                    indisprimary: b(r.primary == Some(true)),
                    indisexclusion: b(false),
                    indimmediate: b(true),
                    indisclustered: b(false),
                    indisvalid: b(true),
                    indcheckxmin: b(false),
                    indisready: b(true),
                    indislive: b(true),
                    indisreplident: b(false),
                    indkey,
                    indclass: Datum::Array(vec![Datum::Int64(0); keys.len()]),
                    indoption,
                    indexprs: N,
                    indpred: N,
                }
                .into_row(),
            )
        })
        .collect()
}

system_row! {
    /// A row of `pg_constraint`.
    PgConstraint {
        oid: 'o',
        conname: 't',
        connamespace: 'o',
        contype: 't',
        condeferrable: 'b',
        condeferred: 'b',
        convalidated: 'b',
        conrelid: 'o',
        contypid: 'o',
        conindid: 'o',
        conparentid: 'o',
        confrelid: 'o',
        conkey: 'a',
        confkey: 'a',
    }
}

/// A primary key or unique constraint for each index that enforces one (named as its
/// index); its OID is the index's plus CONSTRAINT_OID_OFFSET.
pub fn pg_constraint(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .filter_map(|r| {
            let primary = r.primary?;
            let (on, keys) = r.index.as_ref()?;
            let conkey = attnums(s, *on, keys)
                .into_iter()
                .map(Datum::Int16)
                .collect();
            Some(
                PgConstraint {
                    oid: o(r.oid + CONSTRAINT_OID_OFFSET),
                    conname: t(r.name.clone()),
                    connamespace: o(r.namespace),
                    contype: t(if primary { "p" } else { "u" }),
                    condeferrable: b(false),
                    condeferred: b(false),
                    convalidated: b(true),
                    conrelid: o(*on),
                    contypid: o(0),
                    conindid: o(r.oid),
                    conparentid: o(0),
                    confrelid: o(0),
                    conkey: Datum::Array(conkey),
                    confkey: N,
                }
                .into_row(),
            )
        })
        .collect()
}

system_row! {
    /// A row of `pg_am`.
    PgAm {
        oid: 'o',
        amname: 't',
        amhandler: 'o',
        amtype: 't',
    }
}

pub fn pg_am(_: &Snapshot) -> Vec<Vec<Datum>> {
    vec![PgAm {
        oid: o(AM_ARRANGEMENT.0),
        amname: t(AM_ARRANGEMENT.1),
        amhandler: o(0),
        amtype: t("i"),
    }
    .into_row()]
}

system_row! {
    /// A row of `pg_database`.
    PgDatabase {
        oid: 'o',
        datname: 't',
        datdba: 'o',
        encoding: 'i',
        datlocprovider: 't',
        datistemplate: 'b',
        datallowconn: 'b',
        datconnlimit: 'i',
        datcollate: 't',
        datctype: 't',
        daticulocale: 't',
        datcollversion: 't',
        datacl: 't',
    }
}

pub fn pg_database(_: &Snapshot) -> Vec<Vec<Datum>> {
    vec![PgDatabase {
        oid: o(DATABASE_OID),
        datname: t(kpg_sql::DATABASE),
        datdba: o(ROLE.0),
        encoding: i(6),
        datlocprovider: t("c"),
        datistemplate: b(false),
        datallowconn: b(true),
        datconnlimit: i(-1),
        datcollate: t("C"),
        datctype: t("C"),
        daticulocale: N,
        datcollversion: N,
        datacl: N,
    }
    .into_row()]
}

system_row! {
    /// A row of `pg_roles / pg_authid`.
    PgAuthid {
        oid: 'o',
        rolname: 't',
        rolsuper: 'b',
        rolinherit: 'b',
        rolcreaterole: 'b',
        rolcreatedb: 'b',
        rolcanlogin: 'b',
        rolreplication: 'b',
        rolconnlimit: 'i',
        rolpassword: 't',
        rolvaliduntil: 's',
        rolbypassrls: 'b',
        rolconfig: 't',
    }
}

pub fn pg_roles(_: &Snapshot) -> Vec<Vec<Datum>> {
    vec![PgAuthid {
        oid: o(ROLE.0),
        rolname: t(ROLE.1),
        rolsuper: b(true),
        rolinherit: b(true),
        rolcreaterole: b(true),
        rolcreatedb: b(true),
        rolcanlogin: b(true),
        rolreplication: b(false),
        rolconnlimit: i(-1),
        rolpassword: t("********"),
        rolvaliduntil: N,
        rolbypassrls: b(true),
        rolconfig: N,
    }
    .into_row()]
}

system_row! {
    /// A row of `pg_user`.
    PgUser {
        usename: 't',
        usesysid: 'o',
        usecreatedb: 'b',
        usesuper: 'b',
        userepl: 'b',
        usebypassrls: 'b',
        passwd: 't',
        valuntil: 's',
        useconfig: 't',
    }
}

pub fn pg_user(_: &Snapshot) -> Vec<Vec<Datum>> {
    vec![PgUser {
        usename: t(ROLE.1),
        usesysid: o(ROLE.0),
        usecreatedb: b(true),
        usesuper: b(true),
        userepl: b(false),
        usebypassrls: b(true),
        passwd: t("********"),
        valuntil: N,
        useconfig: N,
    }
    .into_row()]
}

system_row! {
    /// A row of `pg_collation`.
    PgCollation {
        oid: 'o',
        collname: 't',
        collnamespace: 'o',
        collowner: 'o',
        collprovider: 't',
        collisdeterministic: 'b',
        collencoding: 'i',
        collcollate: 't',
        collctype: 't',
    }
}

pub fn pg_collation(_: &Snapshot) -> Vec<Vec<Datum>> {
    [(100, "default", "d"), (950, "C", "c"), (951, "POSIX", "c")]
        .iter()
        .map(|(oid, name, provider)| {
            let locale = if *provider == "d" { N } else { t(*name) };
            PgCollation {
                oid: o(*oid),
                collname: t(*name),
                collnamespace: o(NS_PG_CATALOG),
                collowner: o(ROLE.0),
                collprovider: t(*provider),
                collisdeterministic: b(true),
                collencoding: i(-1),
                collcollate: locale.clone(),
                collctype: locale,
            }
            .into_row()
        })
        .collect()
}

system_row! {
    /// A row of `pg_settings`.
    PgSettings {
        name: 't',
        setting: 't',
        unit: 't',
        category: 't',
        short_desc: 't',
        context: 't',
        vartype: 't',
        source: 't',
    }
}

pub fn pg_settings(_: &Snapshot) -> Vec<Vec<Datum>> {
    SETTINGS
        .iter()
        .map(|(name, setting)| {
            PgSettings {
                name: t(*name),
                setting: t(*setting),
                unit: N,
                category: t("kpg"),
                short_desc: t(""),
                context: t("user"),
                vartype: t("string"),
                source: t("default"),
            }
            .into_row()
        })
        .collect()
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

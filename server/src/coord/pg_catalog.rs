//! PostgreSQL's system catalogs (`pg_catalog`) and `information_schema`, computed from the
//! server's catalog when a statement reads them, so that psql's backslash commands and
//! drivers' metadata calls work.
//!
//! Each relation is a view whose definition is a constant built at planning time from the
//! catalog (as the introspection relations are), so it always shows the objects that exist
//! when the statement is planned. kpg's objects live in schema `public`; the system relations
//! in `pg_catalog` (with the introspection relations) and `information_schema`. OIDs are
//! stable per object: `16384 + GlobalId` for users' objects, PostgreSQL's own OIDs for the
//! built-in types, schemas and well-known catalogs. One role, `kpg` (OID 10), owns everything.
//!
//! Relations about features kpg does not have (policies, inheritance, check and foreign-key
//! constraints, extended statistics, publications, rules, comments, role membership) exist
//! and are empty (pg_constraint holds the primary keys and unique constraints),
//! which is the true answer; `empty_from.rs` in the planner relies on that. Array-valued
//! columns hold PostgreSQL's text form of the array (all are NULL or empty here since kpg has
//! no ACLs or options), except pg_index's `indkey` and `indoption`, real `int2vector`s, and
//! pg_constraint's `conkey` and `confkey`, real `int2[]`s, the options columns
//! (`reloptions`, `attoptions`: NULL `text[]`s), and pg_index's `indclass` (an
//! `oidvector` there, a `bigint[]` of zeros here: kpg has no operator classes).

use kpg_sql::PgLookup;
use kpg_types::{ColumnType, Datum, GlobalId, RelationDesc, ScalarType};

use super::pg_rows::{self, Snapshot};
use crate::catalog::ids::ObjectId;
use crate::catalog::Catalog;

/// Column types, by letter: `o` oid (bigint), `i` integer, `t` text, `b` boolean, `f` double,
/// `s` timestamp, `v` int2vector, `a` int2[], `O` a list of OIDs (bigint[]; PostgreSQL's
/// `oidvector`), `T` text[].
pub type Columns = &'static [(&'static str, char)];

pub struct SystemRelation {
    pub schema: &'static str,
    pub name: &'static str,
    pub oid: i64,
    pub columns: Columns,
    /// Empty by construction: describes something kpg does not have.
    pub empty: bool,
}

const PG: &str = "pg_catalog";
const INFO: &str = "information_schema";

const fn rel(
    schema: &'static str,
    name: &'static str,
    oid: i64,
    columns: Columns,
) -> SystemRelation {
    SystemRelation {
        schema,
        name,
        oid,
        columns,
        empty: false,
    }
}

const fn empty(name: &'static str, oid: i64, columns: Columns) -> SystemRelation {
    SystemRelation {
        schema: PG,
        name,
        oid,
        columns,
        empty: true,
    }
}

pub const RELATIONS: &[SystemRelation] = &[
    rel(
        PG,
        "pg_namespace",
        2615,
        &[
            ("oid", 'o'),
            ("nspname", 't'),
            ("nspowner", 'o'),
            ("nspacl", 't'),
        ],
    ),
    rel(
        PG,
        "pg_class",
        1259,
        &[
            ("oid", 'o'),
            ("relname", 't'),
            ("relnamespace", 'o'),
            ("reltype", 'o'),
            ("reloftype", 'o'),
            ("relowner", 'o'),
            ("relam", 'o'),
            ("relfilenode", 'o'),
            ("reltablespace", 'o'),
            ("relpages", 'i'),
            ("reltuples", 'f'),
            ("relallvisible", 'i'),
            ("reltoastrelid", 'o'),
            ("relhasindex", 'b'),
            ("relisshared", 'b'),
            ("relpersistence", 't'),
            ("relkind", 't'),
            ("relnatts", 'i'),
            ("relchecks", 'i'),
            ("relhasrules", 'b'),
            ("relhastriggers", 'b'),
            ("relhassubclass", 'b'),
            ("relrowsecurity", 'b'),
            ("relforcerowsecurity", 'b'),
            ("relispopulated", 'b'),
            ("relreplident", 't'),
            ("relispartition", 'b'),
            ("relrewrite", 'o'),
            ("relacl", 't'),
            ("reloptions", 'T'),
            ("relpartbound", 't'),
        ],
    ),
    rel(
        PG,
        "pg_attribute",
        1249,
        &[
            ("attrelid", 'o'),
            ("attname", 't'),
            ("atttypid", 'o'),
            ("attstattarget", 'i'),
            ("attlen", 'i'),
            ("attnum", 'i'),
            ("attndims", 'i'),
            ("attcacheoff", 'i'),
            ("atttypmod", 'i'),
            ("attbyval", 'b'),
            ("attalign", 't'),
            ("attstorage", 't'),
            ("attcompression", 't'),
            ("attnotnull", 'b'),
            ("atthasdef", 'b'),
            ("atthasmissing", 'b'),
            ("attidentity", 't'),
            ("attgenerated", 't'),
            ("attisdropped", 'b'),
            ("attislocal", 'b'),
            ("attinhcount", 'i'),
            ("attcollation", 'o'),
            ("attacl", 't'),
            ("attoptions", 'T'),
        ],
    ),
    rel(
        PG,
        "pg_type",
        1247,
        &[
            ("oid", 'o'),
            ("typname", 't'),
            ("typnamespace", 'o'),
            ("typowner", 'o'),
            ("typlen", 'i'),
            ("typbyval", 'b'),
            ("typtype", 't'),
            ("typcategory", 't'),
            ("typispreferred", 'b'),
            ("typisdefined", 'b'),
            ("typdelim", 't'),
            ("typrelid", 'o'),
            ("typelem", 'o'),
            ("typarray", 'o'),
            ("typnotnull", 'b'),
            ("typbasetype", 'o'),
            ("typtypmod", 'i'),
            ("typndims", 'i'),
            ("typcollation", 'o'),
            ("typdefault", 't'),
        ],
    ),
    rel(
        PG,
        "pg_index",
        2610,
        &[
            ("indexrelid", 'o'),
            ("indrelid", 'o'),
            ("indnatts", 'i'),
            ("indnkeyatts", 'i'),
            ("indisunique", 'b'),
            ("indnullsnotdistinct", 'b'),
            ("indisprimary", 'b'),
            ("indisexclusion", 'b'),
            ("indimmediate", 'b'),
            ("indisclustered", 'b'),
            ("indisvalid", 'b'),
            ("indcheckxmin", 'b'),
            ("indisready", 'b'),
            ("indislive", 'b'),
            ("indisreplident", 'b'),
            ("indkey", 'v'),
            ("indclass", 'O'),
            ("indoption", 'v'),
            ("indexprs", 't'),
            ("indpred", 't'),
        ],
    ),
    rel(
        PG,
        "pg_am",
        2601,
        &[
            ("oid", 'o'),
            ("amname", 't'),
            ("amhandler", 'o'),
            ("amtype", 't'),
        ],
    ),
    rel(
        PG,
        "pg_database",
        1262,
        &[
            ("oid", 'o'),
            ("datname", 't'),
            ("datdba", 'o'),
            ("encoding", 'i'),
            ("datlocprovider", 't'),
            ("datistemplate", 'b'),
            ("datallowconn", 'b'),
            ("datconnlimit", 'i'),
            ("datcollate", 't'),
            ("datctype", 't'),
            ("daticulocale", 't'),
            ("datcollversion", 't'),
            ("datacl", 't'),
        ],
    ),
    rel(PG, "pg_roles", 12001, ROLE_COLUMNS),
    rel(PG, "pg_authid", 1260, ROLE_COLUMNS),
    rel(
        PG,
        "pg_user",
        12002,
        &[
            ("usename", 't'),
            ("usesysid", 'o'),
            ("usecreatedb", 'b'),
            ("usesuper", 'b'),
            ("userepl", 'b'),
            ("usebypassrls", 'b'),
            ("passwd", 't'),
            ("valuntil", 's'),
            ("useconfig", 't'),
        ],
    ),
    rel(
        PG,
        "pg_collation",
        3456,
        &[
            ("oid", 'o'),
            ("collname", 't'),
            ("collnamespace", 'o'),
            ("collowner", 'o'),
            ("collprovider", 't'),
            ("collisdeterministic", 'b'),
            ("collencoding", 'i'),
            ("collcollate", 't'),
            ("collctype", 't'),
        ],
    ),
    rel(
        PG,
        "pg_settings",
        12003,
        &[
            ("name", 't'),
            ("setting", 't'),
            ("unit", 't'),
            ("category", 't'),
            ("short_desc", 't'),
            ("context", 't'),
            ("vartype", 't'),
            ("source", 't'),
        ],
    ),
    empty(
        "pg_description",
        2609,
        &[
            ("objoid", 'o'),
            ("classoid", 'o'),
            ("objsubid", 'i'),
            ("description", 't'),
        ],
    ),
    rel(
        PG,
        "pg_constraint",
        2606,
        &[
            ("oid", 'o'),
            ("conname", 't'),
            ("connamespace", 'o'),
            ("contype", 't'),
            ("condeferrable", 'b'),
            ("condeferred", 'b'),
            ("convalidated", 'b'),
            ("conrelid", 'o'),
            ("contypid", 'o'),
            ("conindid", 'o'),
            ("conparentid", 'o'),
            ("confrelid", 'o'),
            ("conkey", 'a'),
            ("confkey", 'a'),
        ],
    ),
    empty(
        "pg_opclass",
        2616,
        &[
            ("oid", 'o'),
            ("opcmethod", 'o'),
            ("opcname", 't'),
            ("opcnamespace", 'o'),
            ("opcowner", 'o'),
            ("opcfamily", 'o'),
            ("opcintype", 'o'),
            ("opcdefault", 'b'),
            ("opckeytype", 'o'),
        ],
    ),
    empty(
        "pg_enum",
        3501,
        &[
            ("oid", 'o'),
            ("enumtypid", 'o'),
            ("enumsortorder", 'f'),
            ("enumlabel", 't'),
        ],
    ),
    empty(
        "pg_sequence",
        2224,
        &[
            ("seqrelid", 'o'),
            ("seqtypid", 'o'),
            ("seqstart", 'o'),
            ("seqincrement", 'o'),
            ("seqmax", 'o'),
            ("seqmin", 'o'),
            ("seqcache", 'o'),
            ("seqcycle", 'b'),
        ],
    ),
    empty(
        "pg_inherits",
        2611,
        &[
            ("inhrelid", 'o'),
            ("inhparent", 'o'),
            ("inhseqno", 'i'),
            ("inhdetachpending", 'b'),
        ],
    ),
    rel(
        PG,
        "pg_attrdef",
        2604,
        &[
            ("oid", 'o'),
            ("adrelid", 'o'),
            ("adnum", 'i'),
            ("adbin", 't'),
        ],
    ),
    empty(
        "pg_policy",
        3256,
        &[
            ("oid", 'o'),
            ("polname", 't'),
            ("polrelid", 'o'),
            ("polcmd", 't'),
            ("polpermissive", 'b'),
            ("polroles", 't'),
            ("polqual", 't'),
            ("polwithcheck", 't'),
        ],
    ),
    empty(
        "pg_statistic_ext",
        3381,
        &[
            ("oid", 'o'),
            ("stxrelid", 'o'),
            ("stxname", 't'),
            ("stxnamespace", 'o'),
            ("stxowner", 'o'),
            ("stxstattarget", 'i'),
            ("stxkeys", 't'),
            ("stxkind", 't'),
            ("stxexprs", 't'),
        ],
    ),
    empty(
        "pg_publication",
        6104,
        &[
            ("oid", 'o'),
            ("pubname", 't'),
            ("pubowner", 'o'),
            ("puballtables", 'b'),
            ("pubinsert", 'b'),
            ("pubupdate", 'b'),
            ("pubdelete", 'b'),
            ("pubtruncate", 'b'),
            ("pubviaroot", 'b'),
        ],
    ),
    empty(
        "pg_publication_rel",
        6106,
        &[
            ("oid", 'o'),
            ("prpubid", 'o'),
            ("prrelid", 'o'),
            ("prqual", 't'),
            ("prattrs", 't'),
        ],
    ),
    empty(
        "pg_publication_namespace",
        6237,
        &[("oid", 'o'), ("pnpubid", 'o'), ("pnnspid", 'o')],
    ),
    empty(
        "pg_rewrite",
        2618,
        &[
            ("oid", 'o'),
            ("rulename", 't'),
            ("ev_class", 'o'),
            ("ev_type", 't'),
            ("ev_enabled", 't'),
            ("is_instead", 'b'),
            ("ev_qual", 't'),
            ("ev_action", 't'),
        ],
    ),
    empty(
        "pg_trigger",
        2620,
        &[
            ("oid", 'o'),
            ("tgrelid", 'o'),
            ("tgname", 't'),
            ("tgenabled", 't'),
            ("tgisinternal", 'b'),
        ],
    ),
    empty(
        "pg_auth_members",
        1261,
        &[
            ("roleid", 'o'),
            ("member", 'o'),
            ("grantor", 'o'),
            ("admin_option", 'b'),
        ],
    ),
    rel(
        INFO,
        "schemata",
        13001,
        &[
            ("catalog_name", 't'),
            ("schema_name", 't'),
            ("schema_owner", 't'),
            ("default_character_set_catalog", 't'),
            ("default_character_set_schema", 't'),
            ("default_character_set_name", 't'),
            ("sql_path", 't'),
        ],
    ),
    rel(
        INFO,
        "tables",
        13002,
        &[
            ("table_catalog", 't'),
            ("table_schema", 't'),
            ("table_name", 't'),
            ("table_type", 't'),
            ("self_referencing_column_name", 't'),
            ("reference_generation", 't'),
            ("user_defined_type_catalog", 't'),
            ("user_defined_type_schema", 't'),
            ("user_defined_type_name", 't'),
            ("is_insertable_into", 't'),
            ("is_typed", 't'),
            ("commit_action", 't'),
        ],
    ),
    rel(
        INFO,
        "columns",
        13003,
        &[
            ("table_catalog", 't'),
            ("table_schema", 't'),
            ("table_name", 't'),
            ("column_name", 't'),
            ("ordinal_position", 'i'),
            ("column_default", 't'),
            ("is_nullable", 't'),
            ("data_type", 't'),
            ("character_maximum_length", 'i'),
            ("character_octet_length", 'i'),
            ("numeric_precision", 'i'),
            ("numeric_precision_radix", 'i'),
            ("numeric_scale", 'i'),
            ("datetime_precision", 'i'),
            ("udt_catalog", 't'),
            ("udt_schema", 't'),
            ("udt_name", 't'),
            ("is_identity", 't'),
            ("is_generated", 't'),
            ("is_updatable", 't'),
        ],
    ),
    rel(
        INFO,
        "views",
        13004,
        &[
            ("table_catalog", 't'),
            ("table_schema", 't'),
            ("table_name", 't'),
            ("view_definition", 't'),
            ("check_option", 't'),
            ("is_updatable", 't'),
            ("is_insertable_into", 't'),
            ("is_trigger_updatable", 't'),
            ("is_trigger_deletable", 't'),
            ("is_trigger_insertable_into", 't'),
        ],
    ),
];

const ROLE_COLUMNS: Columns = &[
    ("oid", 'o'),
    ("rolname", 't'),
    ("rolsuper", 'b'),
    ("rolinherit", 'b'),
    ("rolcreaterole", 'b'),
    ("rolcreatedb", 'b'),
    ("rolcanlogin", 'b'),
    ("rolreplication", 'b'),
    ("rolconnlimit", 'i'),
    ("rolpassword", 't'),
    ("rolvaliduntil", 's'),
    ("rolbypassrls", 'b'),
    ("rolconfig", 't'),
];

/// The system ids of the system relations are this plus their index in `RELATIONS` (the
/// introspection relations' are below it).
const FIRST_SYSTEM_ID: u64 = 1000;

pub fn id_of(index: usize) -> GlobalId {
    ObjectId::System(FIRST_SYSTEM_ID + index as u64).global()
}

/// The relation called `name` (qualified by its schema, `pg_catalog.pg_class`).
pub fn by_name(name: &str) -> Option<(GlobalId, &'static SystemRelation)> {
    let (schema, n) = name.split_once('.')?;
    RELATIONS
        .iter()
        .enumerate()
        .find(|(_, r)| r.schema == schema && r.name == n)
        .map(|(i, r)| (id_of(i), r))
}

pub fn by_id(id: GlobalId) -> Option<&'static SystemRelation> {
    match ObjectId::of(id) {
        ObjectId::System(n) if n >= FIRST_SYSTEM_ID => {
            RELATIONS.get((n - FIRST_SYSTEM_ID) as usize)
        }
        _ => None,
    }
}

fn column_type(c: char) -> ScalarType {
    match c {
        'o' => ScalarType::Int64,
        'i' => ScalarType::Int32,
        'b' => ScalarType::Bool,
        'f' => ScalarType::Float64,
        's' => ScalarType::Timestamp,
        'v' => ScalarType::Int2Vector,
        'a' => ScalarType::array_of(ScalarType::Int16),
        'O' => ScalarType::array_of(ScalarType::Int64),
        'T' => ScalarType::array_of(ScalarType::Text),
        _ => ScalarType::Text,
    }
}

pub fn desc(r: &SystemRelation) -> RelationDesc {
    RelationDesc::new(
        r.columns
            .iter()
            .map(|(n, c)| (n.to_string(), ColumnType::new(column_type(*c), true)))
            .collect(),
    )
}

/// The rows of `r` as the catalog stands now.
pub fn rows(r: &SystemRelation, catalog: &Catalog) -> Vec<Vec<Datum>> {
    if r.empty {
        return Vec::new();
    }
    let snap = Snapshot::new(catalog);
    let rows = pg_rows::rows(r, &snap);
    debug_assert!(
        rows.iter().all(|row| row.len() == r.columns.len()),
        "{}",
        r.name
    );
    rows
}

/// What the planner's pg_catalog functions look up.
pub fn lookup(what: PgLookup, catalog: &Catalog) -> Vec<(i64, i64, String)> {
    pg_rows::lookup(what, &Snapshot::new(catalog))
}

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

use super::info_schema;
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
    /// Its rows as the catalog stands; `None` if it is empty by construction (it describes
    /// something kpg does not have).
    pub rows: Option<Rows>,
}

/// What computes a system relation's rows from a snapshot of the catalog.
pub type Rows = fn(&Snapshot) -> Vec<Vec<Datum>>;

impl SystemRelation {
    /// Empty by construction.
    pub fn empty(&self) -> bool {
        self.rows.is_none()
    }
}

/// Declares the row of a system relation once: its columns in order, each with its type
/// letter (`Columns`). A row is built as a struct literal, so the compiler sees that every
/// column gets a value, by name; `COLUMNS` is the relation's schema and `into_row` the values
/// in its order.
macro_rules! system_row {
    ($(#[$doc:meta])* $row:ident { $($column:ident: $ty:literal),* $(,)? }) => {
        $(#[$doc])*
        pub struct $row {
            $(pub $column: kpg_types::Datum),*
        }

        impl $row {
            pub const COLUMNS: $crate::coord::pg_catalog::Columns =
                &[$((stringify!($column), $ty)),*];

            pub fn into_row(self) -> Vec<kpg_types::Datum> {
                vec![$(self.$column),*]
            }
        }
    };
}
pub(crate) use system_row;

const PG: &str = "pg_catalog";
const INFO: &str = "information_schema";

const fn rel(
    schema: &'static str,
    name: &'static str,
    oid: i64,
    columns: Columns,
    rows: Rows,
) -> SystemRelation {
    SystemRelation {
        schema,
        name,
        oid,
        columns,
        rows: Some(rows),
    }
}

const fn empty(name: &'static str, oid: i64, columns: Columns) -> SystemRelation {
    SystemRelation {
        schema: PG,
        name,
        oid,
        columns,
        rows: None,
    }
}

pub const RELATIONS: &[SystemRelation] = &[
    rel(
        PG,
        "pg_namespace",
        2615,
        pg_rows::PgNamespace::COLUMNS,
        pg_rows::pg_namespace,
    ),
    rel(
        PG,
        "pg_class",
        1259,
        pg_rows::PgClass::COLUMNS,
        pg_rows::pg_class,
    ),
    rel(
        PG,
        "pg_attribute",
        1249,
        pg_rows::PgAttribute::COLUMNS,
        pg_rows::pg_attribute,
    ),
    rel(
        PG,
        "pg_type",
        1247,
        pg_rows::PgType::COLUMNS,
        pg_rows::pg_type,
    ),
    rel(
        PG,
        "pg_index",
        2610,
        pg_rows::PgIndex::COLUMNS,
        pg_rows::pg_index,
    ),
    rel(PG, "pg_am", 2601, pg_rows::PgAm::COLUMNS, pg_rows::pg_am),
    rel(
        PG,
        "pg_database",
        1262,
        pg_rows::PgDatabase::COLUMNS,
        pg_rows::pg_database,
    ),
    rel(
        PG,
        "pg_roles",
        12001,
        pg_rows::PgAuthid::COLUMNS,
        pg_rows::pg_roles,
    ),
    rel(
        PG,
        "pg_authid",
        1260,
        pg_rows::PgAuthid::COLUMNS,
        pg_rows::pg_roles,
    ),
    rel(
        PG,
        "pg_user",
        12002,
        pg_rows::PgUser::COLUMNS,
        pg_rows::pg_user,
    ),
    rel(
        PG,
        "pg_collation",
        3456,
        pg_rows::PgCollation::COLUMNS,
        pg_rows::pg_collation,
    ),
    rel(
        PG,
        "pg_settings",
        12003,
        pg_rows::PgSettings::COLUMNS,
        pg_rows::pg_settings,
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
        pg_rows::PgConstraint::COLUMNS,
        pg_rows::pg_constraint,
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
        pg_rows::PgAttrdef::COLUMNS,
        pg_rows::pg_attrdef,
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
        info_schema::InfoSchemata::COLUMNS,
        info_schema::schemata,
    ),
    rel(
        INFO,
        "tables",
        13002,
        info_schema::InfoTables::COLUMNS,
        info_schema::tables,
    ),
    rel(
        INFO,
        "columns",
        13003,
        info_schema::InfoColumns::COLUMNS,
        info_schema::columns,
    ),
    rel(
        INFO,
        "views",
        13004,
        info_schema::InfoViews::COLUMNS,
        info_schema::views,
    ),
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
    match r.rows {
        Some(rows) => rows(&Snapshot::new(catalog)),
        None => Vec::new(),
    }
}

/// What the planner's pg_catalog functions look up.
pub fn lookup(what: PgLookup, catalog: &Catalog) -> Vec<(i64, i64, String)> {
    pg_rows::lookup(what, &Snapshot::new(catalog))
}

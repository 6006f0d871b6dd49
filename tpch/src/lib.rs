//! TPC-H for kpg: the schema of the 8 tables in PostgreSQL types that kpg supports, data
//! generation with the `tpchgen` crate (the same rows `dbgen` would produce for a scale
//! factor), the 22 queries with the specification's validation parameters (files under
//! `tpch/queries/`, PostgreSQL syntax), and a small loader API that turns generated rows
//! into multi-row `INSERT` statements. The same statements load kpg and PostgreSQL, so the
//! end-to-end test (`tests/tests/tpch.rs`) can compare both. The streaming demo's SQL is in
//! [`demo`]; the `kpg-tpch` binary (src/bin) streams the tables into Kafka and runs the demo.
//!
//! Columns the specification declares `CHAR(n)` are `char(n)` with [`CharColumns::Char`] (the
//! specification's types, which the end-to-end test uses), or `varchar(n)` with
//! [`CharColumns::Varchar`]. Generated values never have trailing blanks, so the two differ
//! only in PostgreSQL's blank padding of `char(n)` in results.

use std::fmt::Write as _;

mod cardinality;
pub mod demo;
mod generate;

pub use cardinality::{cardinality, Cardinality};

pub use generate::{
    generate, orders_with_lineitems, rows, OrderWithLineitems, OrdersWithLineitems,
};

/// The 8 tables in an order that respects foreign keys (referenced tables first).
pub const TABLES: [&str; 8] = [
    "region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem",
];

/// How columns that the specification declares `CHAR(n)` are declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharColumns {
    /// `varchar(n)`.
    Varchar,
    /// `char(n)`, as in the specification.
    Char,
}

/// The SQL type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// `integer` (identifiers and small counts; every key fits at the scale factors used here).
    Integer,
    /// `numeric(15,2)` (the specification's decimal).
    Decimal,
    /// Fixed text `CHAR(n)` in the specification.
    Char(u32),
    /// `varchar(n)`.
    Varchar(u32),
    /// `date`.
    Date,
}

impl ColumnType {
    /// The PostgreSQL type name.
    pub fn sql(self, chars: CharColumns) -> String {
        match self {
            ColumnType::Integer => "integer".into(),
            ColumnType::Decimal => "numeric(15,2)".into(),
            ColumnType::Char(n) => match chars {
                CharColumns::Varchar => format!("varchar({n})"),
                CharColumns::Char => format!("char({n})"),
            },
            ColumnType::Varchar(n) => format!("varchar({n})"),
            ColumnType::Date => "date".into(),
        }
    }
}

use ColumnType::{Char, Date, Decimal, Integer, Varchar};

/// Columns (name, type) of each table, in the specification's order.
pub fn columns(table: &str) -> &'static [(&'static str, ColumnType)] {
    match table {
        "region" => &[
            ("r_regionkey", Integer),
            ("r_name", Char(25)),
            ("r_comment", Varchar(152)),
        ],
        "nation" => &[
            ("n_nationkey", Integer),
            ("n_name", Char(25)),
            ("n_regionkey", Integer),
            ("n_comment", Varchar(152)),
        ],
        "supplier" => &[
            ("s_suppkey", Integer),
            ("s_name", Char(25)),
            ("s_address", Varchar(40)),
            ("s_nationkey", Integer),
            ("s_phone", Char(15)),
            ("s_acctbal", Decimal),
            ("s_comment", Varchar(101)),
        ],
        "part" => &[
            ("p_partkey", Integer),
            ("p_name", Varchar(55)),
            ("p_mfgr", Char(25)),
            ("p_brand", Char(10)),
            ("p_type", Varchar(25)),
            ("p_size", Integer),
            ("p_container", Char(10)),
            ("p_retailprice", Decimal),
            ("p_comment", Varchar(23)),
        ],
        "partsupp" => &[
            ("ps_partkey", Integer),
            ("ps_suppkey", Integer),
            ("ps_availqty", Integer),
            ("ps_supplycost", Decimal),
            ("ps_comment", Varchar(199)),
        ],
        "customer" => &[
            ("c_custkey", Integer),
            ("c_name", Varchar(25)),
            ("c_address", Varchar(40)),
            ("c_nationkey", Integer),
            ("c_phone", Char(15)),
            ("c_acctbal", Decimal),
            ("c_mktsegment", Char(10)),
            ("c_comment", Varchar(117)),
        ],
        "orders" => &[
            ("o_orderkey", Integer),
            ("o_custkey", Integer),
            ("o_orderstatus", Char(1)),
            ("o_totalprice", Decimal),
            ("o_orderdate", Date),
            ("o_orderpriority", Char(15)),
            ("o_clerk", Char(15)),
            ("o_shippriority", Integer),
            ("o_comment", Varchar(79)),
        ],
        "lineitem" => &[
            ("l_orderkey", Integer),
            ("l_partkey", Integer),
            ("l_suppkey", Integer),
            ("l_linenumber", Integer),
            ("l_quantity", Decimal),
            ("l_extendedprice", Decimal),
            ("l_discount", Decimal),
            ("l_tax", Decimal),
            ("l_returnflag", Char(1)),
            ("l_linestatus", Char(1)),
            ("l_shipdate", Date),
            ("l_commitdate", Date),
            ("l_receiptdate", Date),
            ("l_shipinstruct", Char(25)),
            ("l_shipmode", Char(10)),
            ("l_comment", Varchar(44)),
        ],
        other => panic!("not a TPC-H table: {other}"),
    }
}

/// `CREATE TABLE` statement of one table (no constraints: kpg has none yet).
pub fn create_table(table: &str, chars: CharColumns) -> String {
    let cols = columns(table)
        .iter()
        .map(|(name, ty)| format!("{name} {}", ty.sql(chars)))
        .collect::<Vec<_>>()
        .join(", ");
    format!("CREATE TABLE {table} ({cols})")
}

/// `CREATE TABLE` statements of all 8 tables, in [`TABLES`] order.
pub fn create_tables(chars: CharColumns) -> Vec<String> {
    TABLES.iter().map(|t| create_table(t, chars)).collect()
}

/// One value of a generated row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    Int(i64),
    /// A decimal with two fractional digits, in hundredths (`1234` is `12.34`).
    Decimal(i64),
    Text(String),
    /// `YYYY-MM-DD`.
    Date(String),
}

impl Value {
    /// Appends the value as a SQL literal: `12`, `12.34`, `'text'` (quotes doubled),
    /// `'1996-01-02'` (an untyped literal, assigned to the `date` column on insert).
    pub fn write_sql(&self, out: &mut String) {
        match self {
            Value::Int(i) => write!(out, "{i}").unwrap(),
            Value::Decimal(d) => {
                let sign = if *d < 0 { "-" } else { "" };
                let a = d.unsigned_abs();
                write!(out, "{sign}{}.{:02}", a / 100, a % 100).unwrap()
            }
            Value::Text(s) | Value::Date(s) => {
                out.push('\'');
                for c in s.chars() {
                    if c == '\'' {
                        out.push('\'');
                    }
                    out.push(c);
                }
                out.push('\'');
            }
        }
    }

    /// The value as an integer, for keys.
    pub fn as_int(&self) -> i64 {
        match self {
            Value::Int(i) => *i,
            other => panic!("not an integer: {other:?}"),
        }
    }
}

/// A generated row, values in column order.
pub type Row = Vec<Value>;

/// The generated rows of one table.
#[derive(Debug, Clone)]
pub struct TableData {
    pub name: &'static str,
    pub rows: Vec<Row>,
}

impl TableData {
    /// Multi-row `INSERT INTO <table> VALUES (...), ...` statements for `rows`, at most
    /// `per_statement` rows each.
    pub fn insert_statements_for(&self, rows: &[Row], per_statement: usize) -> Vec<String> {
        insert_statements(self.name, rows, per_statement)
    }

    /// [`TableData::insert_statements_for`] for all rows of the table.
    pub fn insert_statements(&self, per_statement: usize) -> Vec<String> {
        insert_statements(self.name, &self.rows, per_statement)
    }
}

/// Multi-row `INSERT` statements for `rows` of `table`, at most `per_statement` rows each.
pub fn insert_statements(table: &str, rows: &[Row], per_statement: usize) -> Vec<String> {
    assert!(per_statement > 0, "per_statement must be positive");
    rows.chunks(per_statement)
        .map(|chunk| {
            let mut sql = format!("INSERT INTO {table} VALUES ");
            for (i, row) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push_str(", ");
                }
                sql.push('(');
                for (j, v) in row.iter().enumerate() {
                    if j > 0 {
                        sql.push_str(", ");
                    }
                    v.write_sql(&mut sql);
                }
                sql.push(')');
            }
            sql
        })
        .collect()
}

/// All 8 tables generated for one scale factor.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub scale_factor: f64,
    /// In [`TABLES`] order.
    pub tables: Vec<TableData>,
}

impl Dataset {
    /// The data of `table`.
    pub fn table(&self, name: &str) -> &TableData {
        self.tables
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("not a TPC-H table: {name}"))
    }

    /// Total number of rows.
    pub fn row_count(&self) -> usize {
        self.tables.iter().map(|t| t.rows.len()).sum()
    }

    /// `INSERT` statements loading every table, in [`TABLES`] order.
    pub fn insert_statements(&self, per_statement: usize) -> Vec<String> {
        self.tables
            .iter()
            .flat_map(|t| t.insert_statements(per_statement))
            .collect()
    }
}

/// One of the 22 queries.
#[derive(Debug, Clone, Copy)]
pub struct Query {
    /// 1 to 22.
    pub number: usize,
    /// The file's text: leading `--` comment lines (title and validation parameters), then
    /// one SQL statement without a trailing semicolon.
    pub source: &'static str,
}

impl Query {
    /// A short name, `q01` ... `q22` (also the file name without `.sql`).
    pub fn name(&self) -> String {
        format!("q{:02}", self.number)
    }

    /// The statement without the leading comment lines.
    pub fn sql(&self) -> String {
        self.source
            .lines()
            .skip_while(|l| l.trim_start().starts_with("--") || l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

const QUERY_SOURCES: [&str; 22] = [
    include_str!("../queries/q01.sql"),
    include_str!("../queries/q02.sql"),
    include_str!("../queries/q03.sql"),
    include_str!("../queries/q04.sql"),
    include_str!("../queries/q05.sql"),
    include_str!("../queries/q06.sql"),
    include_str!("../queries/q07.sql"),
    include_str!("../queries/q08.sql"),
    include_str!("../queries/q09.sql"),
    include_str!("../queries/q10.sql"),
    include_str!("../queries/q11.sql"),
    include_str!("../queries/q12.sql"),
    include_str!("../queries/q13.sql"),
    include_str!("../queries/q14.sql"),
    include_str!("../queries/q15.sql"),
    include_str!("../queries/q16.sql"),
    include_str!("../queries/q17.sql"),
    include_str!("../queries/q18.sql"),
    include_str!("../queries/q19.sql"),
    include_str!("../queries/q20.sql"),
    include_str!("../queries/q21.sql"),
    include_str!("../queries/q22.sql"),
];

/// Query `number` (1 to 22).
pub fn query(number: usize) -> Query {
    assert!(
        (1..=22).contains(&number),
        "TPC-H queries are numbered 1 to 22, not {number}"
    );
    Query {
        number,
        source: QUERY_SOURCES[number - 1],
    }
}

/// The 22 queries in order.
pub fn queries() -> Vec<Query> {
    (1..=22).map(query).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_counts_at_sf_001() {
        let d = generate(0.01);
        let counts: Vec<(&str, usize)> = d.tables.iter().map(|t| (t.name, t.rows.len())).collect();
        assert_eq!(
            counts[..7],
            [
                ("region", 5),
                ("nation", 25),
                ("supplier", 100),
                ("part", 2000),
                ("partsupp", 8000),
                ("customer", 1500),
                ("orders", 15000),
            ]
        );
        // lineitem has 1 to 7 lines per order.
        let lines = d.table("lineitem").rows.len();
        assert!((15000..=105000).contains(&lines), "{lines}");
        for t in &d.tables {
            let width = columns(t.name).len();
            assert!(t.rows.iter().all(|r| r.len() == width), "{}", t.name);
        }
    }

    #[test]
    fn first_lineitem_matches_dbgen() {
        // The first line of lineitem.tbl at SF 1, as printed by dbgen.
        let d = generate(1.0 / 1000.0);
        let first = &d.table("lineitem").rows[0];
        let mut sql = String::new();
        for v in first {
            v.write_sql(&mut sql);
            sql.push('|');
        }
        assert!(sql.starts_with("1|"), "{sql}");
        assert!(
            sql.contains(
                "'N'|'O'|'1996-03-13'|'1996-02-12'|'1996-03-22'|'DELIVER IN PERSON'|'TRUCK'|"
            ),
            "{sql}"
        );
    }

    #[test]
    fn literals() {
        let mut s = String::new();
        for v in [
            Value::Int(-3),
            Value::Decimal(-5),
            Value::Decimal(123456),
            Value::Text("it's".into()),
            Value::Date("1998-12-01".into()),
        ] {
            v.write_sql(&mut s);
            s.push(' ');
        }
        assert_eq!(s, "-3 -0.05 1234.56 'it''s' '1998-12-01' ");
    }

    #[test]
    fn insert_statements_chunk_rows() {
        let rows = vec![
            vec![Value::Int(1), Value::Text("a".into())],
            vec![Value::Int(2), Value::Text("b".into())],
            vec![Value::Int(3), Value::Text("c".into())],
        ];
        assert_eq!(
            insert_statements("t", &rows, 2),
            [
                "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
                "INSERT INTO t VALUES (3, 'c')"
            ]
        );
    }

    #[test]
    fn ddl() {
        assert_eq!(
            create_table("region", CharColumns::Varchar),
            "CREATE TABLE region (r_regionkey integer, r_name varchar(25), r_comment varchar(152))"
        );
        assert!(create_table("orders", CharColumns::Char).contains("o_orderstatus char(1)"));
    }

    #[test]
    fn queries_are_single_statements() {
        let qs = queries();
        assert_eq!(qs.len(), 22);
        for q in qs {
            let sql = q.sql();
            assert!(
                sql.starts_with("select") || sql.starts_with("with"),
                "{}",
                q.name()
            );
            assert!(!sql.contains(';'), "{}", q.name());
            assert!(!sql.contains("--"), "{}", q.name());
            assert!(q.source.starts_with(&format!("-- TPC-H Q{}:", q.number)));
        }
    }
}

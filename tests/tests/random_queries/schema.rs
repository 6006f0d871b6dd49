//! The tables of the random-query test and their contents: four small tables whose columns
//! cover int4, int8, numeric(p,s), text, boolean and date, filled with few distinct values
//! (duplicates, negatives, many NULLs), and random batches of INSERT/UPDATE/DELETE. Every
//! statement here is valid on both systems for every generated state (no overflow of the
//! numeric typmods, no casts that can fail), so a write that fails is a kpg bug.

use kpg_tests::rng::Rng;

/// The SQL types the generator types its expressions with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    Int4,
    Int8,
    Num,
    Text,
    Bool,
    Date,
}

impl Ty {
    pub fn is_number(self) -> bool {
        matches!(self, Ty::Int4 | Ty::Int8 | Ty::Num)
    }

    /// The type a comparison with `self` may use on the other side.
    pub fn family(self) -> u8 {
        match self {
            Ty::Int4 | Ty::Int8 | Ty::Num => 0,
            Ty::Text => 1,
            Ty::Bool => 2,
            Ty::Date => 3,
        }
    }

    pub fn sql(self) -> &'static str {
        match self {
            Ty::Int4 => "int4",
            Ty::Int8 => "int8",
            Ty::Num => "numeric",
            Ty::Text => "text",
            Ty::Bool => "boolean",
            Ty::Date => "date",
        }
    }
}

pub struct Column {
    pub name: &'static str,
    pub ty: Ty,
    /// The declared type (numeric columns carry a typmod).
    pub decl: &'static str,
}

pub struct Table {
    pub name: &'static str,
    pub cols: &'static [Column],
}

const fn col(name: &'static str, ty: Ty, decl: &'static str) -> Column {
    Column { name, ty, decl }
}

pub const TABLES: &[Table] = &[
    Table {
        name: "t1",
        cols: &[
            col("a", Ty::Int4, "int4"),
            col("b", Ty::Int8, "int8"),
            col("c", Ty::Num, "numeric(6,2)"),
            col("d", Ty::Text, "text"),
            col("e", Ty::Bool, "boolean"),
            col("f", Ty::Date, "date"),
        ],
    },
    Table {
        name: "t2",
        cols: &[
            col("a", Ty::Int4, "int4"),
            col("b", Ty::Int4, "int4"),
            col("c", Ty::Num, "numeric(8,3)"),
            col("d", Ty::Text, "text"),
        ],
    },
    Table {
        name: "t3",
        cols: &[
            col("k", Ty::Int8, "int8"),
            col("v", Ty::Int4, "int4"),
            col("w", Ty::Text, "text"),
            col("g", Ty::Date, "date"),
            col("h", Ty::Bool, "boolean"),
        ],
    },
    Table {
        name: "t4",
        cols: &[
            col("p", Ty::Int4, "int4"),
            col("q", Ty::Num, "numeric(4,1)"),
        ],
    },
];

pub fn create_sql(t: &Table) -> String {
    let cols: Vec<String> = t
        .cols
        .iter()
        .map(|c| format!("{} {}", c.name, c.decl))
        .collect();
    format!("CREATE TABLE {} ({})", t.name, cols.join(", "))
}

const TEXTS: &[&str] = &[
    "a", "b", "ab", "B", "", "a b", "abc", "%", "x_y", "Ab", "ba",
];

/// A random stored value of column `c` as an SQL literal (NULL about a quarter of the time).
pub fn value(rng: &mut Rng, c: &Column) -> String {
    if rng.chance(25) {
        return "NULL".into();
    }
    match c.ty {
        Ty::Int4 => rng.range(-3, 8).to_string(),
        Ty::Int8 => {
            if rng.chance(5) {
                "3000000000".into()
            } else {
                rng.range(-4, 6).to_string()
            }
        }
        Ty::Num => {
            // Within every table's typmod: numeric(4,1) holds up to 999.9.
            let cents = rng.range(-400, 900);
            let v = match rng.below(3) {
                0 => cents - cents % 100,
                1 => cents - cents % 25,
                _ => cents,
            };
            format!(
                "{}{}.{:02}",
                if v < 0 { "-" } else { "" },
                v.abs() / 100,
                v.abs() % 100
            )
        }
        Ty::Text => format!("'{}'", rng.pick(TEXTS)),
        Ty::Bool => rng.pick(&["true", "false"]).to_string(),
        Ty::Date => format!("DATE '2024-01-01' + {}", rng.range(0, 40)),
    }
}

/// `INSERT INTO t VALUES ...` with `n` random rows (some duplicated), or `None` for `n == 0`.
pub fn insert_sql(rng: &mut Rng, t: &Table, n: usize) -> Option<String> {
    if n == 0 {
        return None;
    }
    let mut rows: Vec<String> = Vec::with_capacity(n);
    for _ in 0..n {
        if !rows.is_empty() && rng.chance(15) {
            let dup = rows[rng.below(rows.len())].clone();
            rows.push(dup);
            continue;
        }
        let vals: Vec<String> = t.cols.iter().map(|c| value(rng, c)).collect();
        rows.push(format!("({})", vals.join(", ")));
    }
    Some(format!("INSERT INTO {} VALUES {}", t.name, rows.join(", ")))
}

/// Statements that replace every table's contents with 0..=30 random rows.
pub fn refill(rng: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for t in TABLES {
        out.push(format!("DELETE FROM {}", t.name));
        let n = if rng.chance(10) {
            0
        } else {
            rng.range(1, 30) as usize
        };
        out.extend(insert_sql(rng, t, n));
    }
    out
}

/// A WHERE condition on one column of `t` for UPDATE/DELETE.
fn row_filter(rng: &mut Rng, t: &Table) -> String {
    let c = rng.pick(t.cols);
    match rng.below(4) {
        0 => format!("{} IS NULL", c.name),
        1 => format!("{} = {}", c.name, value_not_null(rng, c)),
        2 if c.ty != Ty::Bool => format!("{} < {}", c.name, value_not_null(rng, c)),
        _ => format!("{} <> {}", c.name, value_not_null(rng, c)),
    }
}

fn value_not_null(rng: &mut Rng, c: &Column) -> String {
    loop {
        let v = value(rng, c);
        if v != "NULL" {
            return v;
        }
    }
}

/// A new value for column `c` in an UPDATE that always fits the column's type.
fn new_value(rng: &mut Rng, c: &Column) -> String {
    match (c.ty, rng.below(3)) {
        (Ty::Int4, 0) => format!("{} + 1", c.name),
        (Ty::Int8, 0) => format!("{} - 2", c.name),
        (Ty::Text, 0) => format!("{} || 'z'", c.name),
        (Ty::Bool, 0) => format!("NOT {}", c.name),
        (Ty::Date, 0) => format!("{} + 3", c.name),
        _ => value(rng, c),
    }
}

/// A batch of 1..=6 writes over random tables.
pub fn write_batch(rng: &mut Rng) -> Vec<String> {
    let n = rng.range(1, 6) as usize;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = rng.pick(TABLES);
        match rng.below(3) {
            0 => {
                let rows = rng.range(1, 5) as usize;
                out.extend(insert_sql(rng, t, rows));
            }
            1 => {
                let c = rng.pick(t.cols);
                out.push(format!(
                    "UPDATE {} SET {} = {} WHERE {}",
                    t.name,
                    c.name,
                    new_value(rng, c),
                    row_filter(rng, t)
                ));
            }
            _ => out.push(format!(
                "DELETE FROM {} WHERE {}",
                t.name,
                row_filter(rng, t)
            )),
        }
    }
    out
}

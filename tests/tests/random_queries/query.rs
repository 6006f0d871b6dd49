//! Random queries: FROM clauses with tables, derived tables, inner/left/right/full/cross
//! joins and LATERAL items (`generate_series` over a column, correlated derived tables);
//! WHERE; plain and DISTINCT selects; GROUP BY with aggregates and HAVING; global
//! aggregates; UNION/INTERSECT/EXCEPT [ALL]; `DISTINCT ON` at an unordered top level; and at
//! the top level sometimes ORDER BY over
//! every output column (a total order, so LIMIT/OFFSET pick the same rows on both systems).
//!
//! Aliases are unique per query (`x1`, `x2`, ...) and every column reference is qualified,
//! so correlated references are never ambiguous. Output columns are named `c0`, `c1`, ...
//! except sometimes at the top level, where the default names are compared too.

use crate::expr::{canonical_num, Ctx, Mode, Rel};
use crate::schema::{Ty, TABLES};
use kpg_tests::rng::Rng;

pub struct Gen<'r> {
    pub rng: &'r mut Rng,
    next_alias: usize,
    /// How many query levels enclose the expression being generated (0: the top level).
    pub nesting: u32,
    /// The next set operation must not parenthesize its first branch: kpg's SQL parser
    /// (sqlparser 0.63) fails `x < ANY ((SELECT 1) EXCEPT (SELECT 2))` with 42601 (known
    /// gap, see the report of `random_queries`).
    pub plain_first_branch: bool,
    /// Whether a divisor may be a raw expression (see `Gen::divisor`).
    pub raw_division_ok: bool,
    /// The WITH queries of the top-level query: name and column types (`c0`, `c1`, ...).
    ctes: Vec<(String, Vec<Ty>)>,
}

/// A generated top-level query.
pub struct TopQuery {
    pub sql: String,
    /// Whether the query fixes the order of its rows (compare in order).
    pub ordered: bool,
}

/// Options of one SELECT block.
#[derive(Clone, Copy, Default)]
struct Block {
    /// Round numeric outputs to a fixed scale (see `canonical_num`).
    canon: bool,
    /// The top level: some output columns keep their default names.
    top: bool,
}

impl<'r> Gen<'r> {
    pub fn new(rng: &'r mut Rng) -> Gen<'r> {
        Gen {
            rng,
            next_alias: 0,
            nesting: 0,
            plain_first_branch: false,
            raw_division_ok: false,
            ctes: Vec::new(),
        }
    }

    fn alias(&mut self) -> String {
        self.next_alias += 1;
        format!("x{}", self.next_alias)
    }

    pub fn top_query(&mut self) -> TopQuery {
        let with = if self.rng.chance(12) {
            self.with_clause()
        } else {
            String::new()
        };
        let ordered = self.rng.chance(12);
        // Subqueries nest two levels deep in a third of the queries: deeper plans take kpg's
        // debug build seconds to render, and the test should stay quick.
        let subq = if self.rng.chance(33) { 2 } else { 1 };
        let (sql, types) = if self.rng.chance(15) {
            self.set_query(&[], None, subq)
        } else {
            let block = Block {
                canon: ordered,
                top: true,
            };
            self.select(&[], None, subq, block)
        };
        let sql = with + &sql;
        if !ordered {
            return TopQuery {
                sql,
                ordered: false,
            };
        }
        let keys: Vec<String> = (1..=types.len())
            .map(|i| {
                let dir = self
                    .rng
                    .pick(&["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]);
                format!("{i}{dir}")
            })
            .collect();
        let mut sql = format!("{sql} ORDER BY {}", keys.join(", "));
        if self.rng.chance(70) {
            sql += &format!(" LIMIT {}", self.rng.range(0, 6));
        }
        if self.rng.chance(25) {
            sql += &format!(" OFFSET {}", self.rng.range(0, 3));
        }
        TopQuery { sql, ordered: true }
    }

    /// `WITH w1 AS (...), ... ` (uncorrelated SELECTs the FROM clauses may read).
    fn with_clause(&mut self) -> String {
        let mut defs = Vec::new();
        for i in 1..=self.rng.range(1, 2) {
            let block = Block {
                canon: true,
                top: false,
            };
            self.nesting += 1;
            let (q, types) = self.select(&[], None, 1, block);
            self.nesting -= 1;
            let name = format!("w{i}");
            defs.push(format!("{name} AS ({q})"));
            self.ctes.push((name, types));
        }
        format!("WITH {} ", defs.join(", "))
    }

    /// A query producing columns of types `want` (or any), possibly correlated with `outer`,
    /// with at most `subq` further levels of nested subqueries.
    pub fn query(
        &mut self,
        outer: &[Vec<Rel>],
        want: Option<&[Ty]>,
        subq: u32,
    ) -> (String, Vec<Ty>) {
        self.nesting += 1;
        let q = if self.rng.chance(12) {
            // Uncorrelated: decorrelating a set operation copies the plan of the outer values
            // into every branch, and nested ones grew plans past 10,000 lines that kpg (debug
            // build) did not render within 30 s (known gap, see the report).
            self.set_query(&[], want, subq)
        } else {
            self.select(outer, want, subq, Block::default())
        };
        self.nesting -= 1;
        q
    }

    fn set_query(
        &mut self,
        outer: &[Vec<Rel>],
        want: Option<&[Ty]>,
        subq: u32,
    ) -> (String, Vec<Ty>) {
        let block = Block {
            canon: true,
            top: false,
        };
        let plain_first = std::mem::take(&mut self.plain_first_branch);
        let (first, types) = self.select(outer, want, subq, block);
        let mut sql = if plain_first {
            first
        } else {
            self.parenthesize(first)
        };
        for _ in 0..self.rng.range(1, 2) {
            let (next, _) = self.select(outer, Some(&types), subq, block);
            let op = self.rng.pick(&[
                "UNION",
                "UNION ALL",
                "INTERSECT",
                "INTERSECT ALL",
                "EXCEPT",
                "EXCEPT ALL",
            ]);
            sql = format!("{sql} {op} {}", self.parenthesize(next));
        }
        (sql, types)
    }

    fn parenthesize(&mut self, q: String) -> String {
        if self.rng.chance(30) {
            format!("({q})")
        } else {
            q
        }
    }

    /// `SELECT agg(...) FROM ... [WHERE ...]`: one row of type `ty`.
    pub fn scalar_query(&mut self, outer: &[Vec<Rel>], ty: Ty, subq: u32) -> String {
        self.nesting += 1;
        let q = self.scalar_select(outer, ty, subq);
        self.nesting -= 1;
        q
    }

    fn scalar_select(&mut self, outer: &[Vec<Rel>], ty: Ty, subq: u32) -> String {
        let (from, scope) = self.from_clause(outer, subq, 2);
        let scopes = with_scope(outer, scope);
        let row = Ctx {
            scopes: &scopes,
            mode: Mode::Row,
            subq,
        };
        let filter = self.filter(row);
        let grouped = Ctx {
            mode: Mode::Grouped(&[]),
            ..row
        };
        let mut agg = self.aggregate_of(grouped, ty);
        if self.rng.chance(30) {
            agg = format!("COALESCE({agg}, {})", self.literal(ty));
        }
        format!("SELECT {agg} FROM {from}{filter}")
    }

    /// ` WHERE ...` (or nothing), often with an equality that correlates with an outer query.
    fn filter(&mut self, ctx: Ctx) -> String {
        let mut conds = Vec::new();
        if ctx.scopes.len() > 1 && self.rng.chance(60) {
            conds.extend(self.correlation(ctx.scopes));
        }
        if self.rng.chance(60) {
            conds.push(self.expr(ctx, Ty::Bool, 2));
        }
        if conds.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conds.join(" AND "))
        }
    }

    /// `inner.col = outer.col` for columns of one type family, if there are such columns.
    fn correlation(&mut self, scopes: &[Vec<Rel>]) -> Option<String> {
        let (inner, outer) = scopes.split_last()?;
        let inner_cols = columns(inner);
        let outer_cols: Vec<(String, Ty)> = outer.iter().flat_map(|s| columns(s)).collect();
        let (ic, it) = self.rng.pick(&inner_cols).clone();
        let partners: Vec<&String> = outer_cols
            .iter()
            .filter(|(_, t)| t.family() == it.family())
            .map(|(c, _)| c)
            .collect();
        if partners.is_empty() {
            return None;
        }
        let oc = self.rng.pick(&partners).to_string();
        Some(format!("({ic} = {oc})"))
    }

    fn select(
        &mut self,
        outer: &[Vec<Rel>],
        want: Option<&[Ty]>,
        subq: u32,
        block: Block,
    ) -> (String, Vec<Ty>) {
        let (from, scope) = self.from_clause(outer, subq, 3);
        let scope_len = scope.len();
        let scopes = with_scope(outer, scope);
        let row = Ctx {
            scopes: &scopes,
            mode: Mode::Row,
            subq,
        };
        let filter = self.filter(row);
        let types: Vec<Ty> = match want {
            Some(w) => w.to_vec(),
            None => (0..self.rng.range(1, 3)).map(|_| self.any_type()).collect(),
        };
        let mut canon = block.canon;
        // One base table (not a derived table or WITH query): see `Gen::divisor`.
        self.raw_division_ok =
            block.top && scope_len == 1 && !from.starts_with('(') && !from.starts_with('w');
        let (head, items, tail) = if self.rng.chance(40) {
            let keys = self.grouping_keys(row);
            let grouped = Ctx {
                mode: Mode::Grouped(&keys),
                ..row
            };
            let items: Vec<String> = types.iter().map(|t| self.expr(grouped, *t, 2)).collect();
            let mut tail = String::new();
            if !keys.is_empty() {
                let k: Vec<&str> = keys.iter().map(|(s, _)| s.as_str()).collect();
                // Grouping sets (not in correlated subqueries, where kpg refuses them).
                tail = match outer.is_empty() && self.rng.chance(20) {
                    true if self.rng.chance(50) => format!(" GROUP BY ROLLUP ({})", k.join(", ")),
                    true => format!(" GROUP BY CUBE ({})", k.join(", ")),
                    false => format!(" GROUP BY {}", k.join(", ")),
                };
            }
            if self.rng.chance(35) {
                tail += &format!(" HAVING {}", self.expr(grouped, Ty::Bool, 2));
            }
            ("SELECT", items, tail)
        } else {
            let distinct = self.rng.chance(15);
            canon |= distinct;
            let mut items: Vec<String> = types.iter().map(|t| self.expr(row, *t, 2)).collect();
            // Sometimes, at an unordered top level, `DISTINCT ON (first item)` ordered by
            // every item: among the rows of a group that tie on the order, the items are
            // equal, so the first row's items are the same on both systems.
            if !distinct && block.top && !block.canon && self.rng.chance(10) {
                let order: Vec<String> = (1..=items.len()).map(|i| i.to_string()).collect();
                let sql = format!(
                    "SELECT DISTINCT ON ({}) {} FROM {from}{filter} ORDER BY {}",
                    items[0],
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, e)| format!("{e} AS c{i}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    order.join(", ")
                );
                self.raw_division_ok = false;
                return (sql, types);
            }
            // Sometimes a bigint item is a window function whose value the rows' values
            // decide (no row numbers among ties).
            if let Some(i) = types.iter().position(|t| *t == Ty::Int8) {
                if self.rng.chance(15) {
                    items[i] = self.window_item(row);
                }
            }
            (
                if distinct {
                    "SELECT DISTINCT"
                } else {
                    "SELECT"
                },
                items,
                String::new(),
            )
        };
        let list: Vec<String> = items
            .into_iter()
            .zip(&types)
            .enumerate()
            .map(|(i, (e, t))| {
                let e = if canon && *t == Ty::Num {
                    canonical_num(&e)
                } else {
                    e
                };
                if block.top && self.rng.chance(25) {
                    e
                } else {
                    format!("{e} AS c{i}")
                }
            })
            .collect();
        self.raw_division_ok = false;
        let sql = format!("{head} {} FROM {from}{filter}{tail}", list.join(", "));
        (sql, types)
    }

    /// A bigint window function over the innermost scope's columns whose value does not
    /// depend on how ties are ordered.
    fn window_item(&mut self, row: Ctx) -> String {
        let inner = columns(row.scopes.last().expect("a scope"));
        let (a, _) = self.rng.pick(&inner).clone();
        let (b, _) = self.rng.pick(&inner).clone();
        let ints: Vec<String> = inner
            .iter()
            .filter(|(_, t)| *t == Ty::Int4)
            .map(|(c, _)| c.clone())
            .collect();
        match self.rng.below(5) {
            0 => format!("count(*) OVER (PARTITION BY {a})"),
            1 => format!("rank() OVER (PARTITION BY {a} ORDER BY {b} DESC)"),
            2 => format!("dense_rank() OVER (ORDER BY {a} NULLS FIRST, {b})"),
            3 if !ints.is_empty() => {
                let c = self.rng.pick(&ints).clone();
                format!("sum({c}) OVER (PARTITION BY {a} ORDER BY {b} RANGE UNBOUNDED PRECEDING)")
            }
            _ => format!("count({b}) OVER (ORDER BY {a})"),
        }
    }

    /// 0..=2 grouping keys, mostly columns of the innermost scope.
    fn grouping_keys(&mut self, row: Ctx) -> Vec<(String, Ty)> {
        let n = *self.rng.pick(&[0, 1, 1, 2]);
        let inner = columns(row.scopes.last().expect("a scope"));
        let plain = Ctx {
            scopes: &row.scopes[row.scopes.len() - 1..],
            subq: 0,
            ..row
        };
        let mut keys: Vec<(String, Ty)> = Vec::new();
        for _ in 0..n {
            let key = if self.rng.chance(75) {
                self.rng.pick(&inner).clone()
            } else {
                let t = self.any_type();
                let e = self.expr(plain, t, 1);
                // PostgreSQL reads a constant key as an output position (or rejects it).
                if !reads_column(&e) {
                    continue;
                }
                if t == Ty::Num {
                    (canonical_num(&e), t)
                } else {
                    (e, t)
                }
            };
            if !keys.iter().any(|(k, _)| *k == key.0) {
                keys.push(key);
            }
        }
        keys
    }

    /// A FROM clause of 1..=`max_items` relations and the scope it defines.
    #[allow(clippy::wrong_self_convention)] // SQL's FROM clause (as `with_clause`), no conversion
    fn from_clause(&mut self, outer: &[Vec<Rel>], subq: u32, max_items: i64) -> (String, Vec<Rel>) {
        let n = match self.rng.below(10) {
            0..=3 => 1,
            4..=8 => 2,
            _ => 3,
        }
        .min(max_items);
        let kinds: Vec<&str> = (1..n)
            .map(|_| {
                let kind = *self.rng.pick(&[
                    "JOIN",
                    "JOIN",
                    "LEFT JOIN",
                    "LEFT JOIN",
                    "RIGHT JOIN",
                    "FULL JOIN",
                    "CROSS JOIN",
                    ",",
                ]);
                // At most one product, and only of two relations.
                if (kind == "CROSS JOIN" || kind == ",") && n > 2 {
                    "JOIN"
                } else {
                    kind
                }
            })
            .collect();
        let (mut sql, first) = self.table_ref(subq);
        let mut scope = vec![first];
        for kind in kinds {
            let (tsql, rel) = self.table_ref(subq);
            let left_cols = columns(&scope);
            let right_cols = columns(std::slice::from_ref(&rel));
            scope.push(rel);
            if kind == "CROSS JOIN" || kind == "," {
                let sep = if kind == "," { "," } else { " CROSS JOIN" };
                sql = format!("{sql}{sep} {tsql}");
                continue;
            }
            // Sometimes USING a column name the new relation shares with exactly one
            // relation before it (same type family).
            let shared: Vec<&String> = rel_cols(scope.last().expect("just pushed"))
                .filter(|(n, t)| {
                    let mut owners = scope[..scope.len() - 1].iter().filter(|r| {
                        r.cols
                            .iter()
                            .any(|(m, u)| m == *n && u.family() == t.family())
                    });
                    let mut clashing = scope[..scope.len() - 1]
                        .iter()
                        .filter(|r| r.cols.iter().any(|(m, _)| m == *n));
                    owners.next().is_some() && clashing.nth(1).is_none()
                })
                .map(|(n, _)| n)
                .collect();
            if !shared.is_empty() && self.rng.chance(20) {
                let n = self.rng.pick(&shared).to_string();
                sql = format!("{sql} {kind} {tsql} USING ({n})");
                continue;
            }
            let mut conds = Vec::new();
            for _ in 0..*self.rng.pick(&[1, 1, 2]) {
                let (rc, rt) = self.rng.pick(&right_cols).clone();
                let partners: Vec<&String> = left_cols
                    .iter()
                    .filter(|(_, t)| t.family() == rt.family())
                    .map(|(c, _)| c)
                    .collect();
                if !partners.is_empty() {
                    let lc = self.rng.pick(&partners).to_string();
                    conds.push(format!("{lc} = {rc}"));
                }
            }
            // PostgreSQL runs FULL JOIN only with equality conditions.
            if kind != "FULL JOIN" && (conds.is_empty() || self.rng.chance(40)) {
                let scopes = with_scope(outer, scope.clone());
                let ctx = Ctx {
                    scopes: &scopes,
                    mode: Mode::Row,
                    subq: 0,
                };
                conds.push(self.expr(ctx, Ty::Bool, 2));
            }
            if conds.is_empty() {
                conds.push("TRUE".into());
            }
            sql = format!("{sql} {kind} {tsql} ON {}", conds.join(" AND "));
        }
        // Sometimes a LATERAL item reading the items before it: a set-returning function or
        // a correlated derived table.
        if self.rng.chance(10) {
            let ints: Vec<String> = columns(&scope)
                .into_iter()
                .filter(|(_, t)| *t == Ty::Int4)
                .map(|(c, _)| c)
                .collect();
            let alias = self.alias();
            if !ints.is_empty() && self.rng.chance(50) {
                let c = self.rng.pick(&ints).clone();
                let join = self.rng.pick(&[", LATERAL", " CROSS JOIN LATERAL"]);
                sql = format!(
                    "{sql}{join} generate_series({c} % 3, {}) AS {alias}(g)",
                    self.rng.range(0, 2)
                );
                scope.push(Rel {
                    alias,
                    cols: vec![("g".into(), Ty::Int4)],
                });
            } else if subq > 0 {
                let scopes = with_scope(outer, scope.clone());
                let block = Block {
                    canon: true,
                    top: false,
                };
                self.nesting += 1;
                let (q, types) = self.select(&scopes, None, subq - 1, block);
                self.nesting -= 1;
                let cols = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (format!("c{i}"), *t))
                    .collect();
                sql = if self.rng.chance(50) {
                    format!("{sql} CROSS JOIN LATERAL ({q}) AS {alias}")
                } else {
                    format!("{sql} LEFT JOIN LATERAL ({q}) AS {alias} ON TRUE")
                };
                scope.push(Rel { alias, cols });
            }
        }
        (sql, scope)
    }

    /// A base table or (sometimes) a derived table, with a fresh alias.
    fn table_ref(&mut self, subq: u32) -> (String, Rel) {
        if subq > 0 && self.rng.chance(12) {
            let block = Block {
                canon: true,
                top: false,
            };
            self.nesting += 1;
            let (q, types) = self.select(&[], None, subq - 1, block);
            self.nesting -= 1;
            let alias = self.alias();
            let cols = types
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("c{i}"), *t))
                .collect();
            return (format!("({q}) AS {alias}"), Rel { alias, cols });
        }
        if !self.ctes.is_empty() && self.rng.chance(30) {
            let (name, types) = self.rng.pick(&self.ctes).clone();
            let alias = self.alias();
            let cols = types
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("c{i}"), *t))
                .collect();
            return (format!("{name} AS {alias}"), Rel { alias, cols });
        }
        let t = self.rng.pick(TABLES);
        let alias = self.alias();
        let cols = t.cols.iter().map(|c| (c.name.to_string(), c.ty)).collect();
        (format!("{} AS {alias}", t.name), Rel { alias, cols })
    }
}

fn with_scope(outer: &[Vec<Rel>], scope: Vec<Rel>) -> Vec<Vec<Rel>> {
    let mut v = outer.to_vec();
    v.push(scope);
    v
}

/// Qualified columns of a scope.
fn columns(scope: &[Rel]) -> Vec<(String, Ty)> {
    scope
        .iter()
        .flat_map(|r| {
            r.cols
                .iter()
                .map(move |(c, t)| (format!("{}.{c}", r.alias), *t))
        })
        .collect()
}

/// Whether generated SQL references a column (`x<n>.<name>`).
fn reads_column(sql: &str) -> bool {
    let b = sql.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'x'
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
            && b[i + 1..]
                .iter()
                .position(|c| !c.is_ascii_digit())
                .is_some_and(|n| n > 0 && b[i + 1 + n] == b'.')
    })
}

fn rel_cols(rel: &Rel) -> impl Iterator<Item = (&String, Ty)> {
    rel.cols.iter().map(|(n, t)| (n, *t))
}

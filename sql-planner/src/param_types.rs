//! Inferring the types of a statement's parameters from their context, as PostgreSQL does when
//! a client prepares a statement without declaring them (tokio-postgres, psycopg's strings).
//!
//! The rules cover the common cases the way PostgreSQL resolves an unknown operand: a
//! parameter compared with, or combined by an operator with, an expression takes that
//! expression's type (`varchar` operands resolve to `text`, since the operators are text's);
//! one assigned to a column (INSERT values, UPDATE SET) takes the column's type; one in
//! `IN (...)`, `BETWEEN`, `CASE` or `coalesce` takes the type of the other operands; LIKE
//! patterns and `||` operands are text; `NOT $1` and `CASE WHEN $1` are boolean; LIMIT and
//! OFFSET are bigint; an explicit cast gives its type. Whatever nothing constrains is text.
//!
//! Column types come from the FROM clause: tables straight from the catalog, anything else
//! (subqueries, WITH queries) by planning `SELECT * FROM item`. The type of an operand that
//! is neither a column, a literal nor a cast (a function call, arithmetic) is found by
//! planning `SELECT operand FROM <the same FROM>`. An operand that cannot be typed this way
//! (it refers to an outer query, say) leaves the parameter to the next rule, and in the end to
//! text; binding plans the statement again with the values as untyped literals, so a value
//! still gets the type its context gives it.

mod exprs;

use crate::catalog::Catalog;
use crate::names::{fold, object_name};
use crate::statement::{ParsedStatement, PlannedStatement, SubscribeTarget};
use kpg_types::ScalarType;
use sqlparser::ast::{
    AssignmentTarget, Expr, FromTable, GroupByExpr, JoinConstraint, JoinOperator, ObjectNamePart,
    Query, Select, SelectItem, SetExpr, Statement, TableFactor, TableObject, TableWithJoins, Value,
    With,
};

/// The type of each parameter `$1..$count`: `declared[i]` where the client declared one,
/// else the type inferred from the statement, else `None` (unknown, which clients see as text).
pub fn parameter_types(
    stmt: &ParsedStatement,
    declared: &[Option<ScalarType>],
    count: usize,
    catalog: &dyn Catalog,
) -> Vec<Option<ScalarType>> {
    let count = count.max(declared.len());
    let mut types: Vec<Option<ScalarType>> = (0..count)
        .map(|i| declared.get(i).copied().flatten())
        .collect();
    let fixed = types.iter().map(Option::is_some).collect();
    let mut cx = Infer {
        catalog,
        types: &mut types,
        fixed,
        frames: Vec::new(),
    };
    cx.statement(stmt);
    types
}

/// A relation in scope: its name (alias) and columns.
struct Rel {
    name: String,
    columns: Vec<(String, ScalarType)>,
}

/// The relations of one SELECT (or UPDATE/DELETE target), with the text needed to plan an
/// operand against them.
struct Frame {
    rels: Vec<Rel>,
    /// `WITH ... ` prefix and `FROM ...` clause, if operands can be typed by planning.
    probe: Option<(String, String)>,
}

struct Infer<'a> {
    catalog: &'a dyn Catalog,
    types: &'a mut Vec<Option<ScalarType>>,
    fixed: Vec<bool>,
    frames: Vec<Frame>,
}

/// The 0-based index of the parameter `e` is (through parentheses), if it is one.
fn placeholder(e: &Expr) -> Option<usize> {
    match e {
        Expr::Nested(e) => placeholder(e),
        Expr::Value(v) => match &v.value {
            Value::Placeholder(p) => p.strip_prefix('$')?.parse::<usize>().ok()?.checked_sub(1),
            _ => None,
        },
        _ => None,
    }
}

impl Infer<'_> {
    fn set(&mut self, i: usize, ty: ScalarType) {
        if i < self.types.len() && !self.fixed[i] && self.types[i].is_none() {
            self.types[i] = Some(ty);
        }
    }

    fn statement(&mut self, stmt: &ParsedStatement) {
        match stmt {
            ParsedStatement::Subscribe {
                target: SubscribeTarget::Query(q),
                ..
            } => self.query(q),
            ParsedStatement::Sql(Statement::Query(q)) => self.query(q),
            ParsedStatement::Sql(Statement::Insert(ins)) => {
                let TableObject::TableName(name) = &ins.table else {
                    return;
                };
                let Some(table) = self.table(name) else {
                    return;
                };
                let targets: Vec<Option<ScalarType>> = if ins.columns.is_empty() {
                    table.columns.iter().map(|(_, t)| Some(*t)).collect()
                } else {
                    ins.columns
                        .iter()
                        .map(|c| match c.0.as_slice() {
                            [ObjectNamePart::Identifier(i)] => {
                                let n = fold(i);
                                table.columns.iter().find(|(c, _)| *c == n).map(|(_, t)| *t)
                            }
                            _ => None,
                        })
                        .collect()
                };
                let Some(source) = &ins.source else {
                    return;
                };
                let assign = |cx: &mut Self, exprs: &[&Expr]| {
                    for (e, ty) in exprs.iter().zip(&targets) {
                        if let (Some(i), Some(ty)) = (placeholder(e), ty) {
                            cx.set(i, assignment_type(*ty));
                        }
                    }
                };
                match source.body.as_ref() {
                    SetExpr::Values(values) => {
                        for row in &values.rows {
                            assign(self, &row.content.iter().collect::<Vec<_>>());
                        }
                    }
                    SetExpr::Select(sel) => {
                        let exprs: Vec<&Expr> = sel
                            .projection
                            .iter()
                            .map(|item| match item {
                                SelectItem::UnnamedExpr(e)
                                | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
                                _ => None,
                            })
                            .collect::<Option<_>>()
                            .unwrap_or_default();
                        assign(self, &exprs);
                    }
                    _ => {}
                }
                self.query(source);
            }
            ParsedStatement::Sql(Statement::Update(up)) => {
                let rels = self.rels_of(&up.table);
                let target = rels.first().map(|r| r.columns.clone()).unwrap_or_default();
                self.frames.push(Frame { rels, probe: None });
                for a in &up.assignments {
                    let col = match &a.target {
                        AssignmentTarget::ColumnName(n) => match n.0.as_slice() {
                            [ObjectNamePart::Identifier(i)] => Some(fold(i)),
                            _ => None,
                        },
                        _ => None,
                    };
                    let ty = col.and_then(|c| target.iter().find(|(n, _)| *n == c).map(|x| x.1));
                    match (placeholder(&a.value), ty) {
                        (Some(i), Some(ty)) => self.set(i, assignment_type(ty)),
                        _ => self.expr(&a.value),
                    }
                }
                if let Some(w) = &up.selection {
                    self.expr(w);
                }
                self.frames.pop();
            }
            ParsedStatement::Sql(Statement::Delete(del)) => {
                let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) =
                    &del.from;
                let rels = from.iter().flat_map(|t| self.rels_of(t)).collect();
                self.frames.push(Frame { rels, probe: None });
                if let Some(w) = &del.selection {
                    self.expr(w);
                }
                self.frames.pop();
            }
            _ => {}
        }
    }

    fn table(&self, name: &sqlparser::ast::ObjectName) -> Option<Rel> {
        let n = object_name(name).ok()?;
        let item = self.catalog.resolve(&n)?;
        Some(Rel {
            name: n,
            columns: item
                .desc
                .columns
                .iter()
                .map(|(c, t)| (c.clone(), t.scalar))
                .collect(),
        })
    }

    /// The relations of one FROM item (a table and its joins), without join conditions.
    fn rels_of(&mut self, twj: &TableWithJoins) -> Vec<Rel> {
        let mut rels = Vec::new();
        let with = self.with_prefix();
        for factor in std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)) {
            let rel = match factor {
                TableFactor::Table { name, alias, .. } => self.table(name).map(|mut r| {
                    if let Some(a) = alias {
                        r.name = fold(&a.name);
                    }
                    r
                }),
                _ => None,
            };
            let rel = rel.or_else(|| {
                // Anything else (a subquery, a WITH query) is typed by planning it.
                let columns = self.probe_columns(&format!("{with}SELECT * FROM {factor}"))?;
                let name = match factor {
                    TableFactor::Table { alias: Some(a), .. }
                    | TableFactor::Derived { alias: Some(a), .. } => fold(&a.name),
                    TableFactor::Table { name, .. } => object_name(name).ok()?,
                    _ => String::new(),
                };
                Some(Rel { name, columns })
            });
            rels.extend(rel);
        }
        rels
    }

    /// The WITH clause of the innermost query being walked, as a prefix for probe queries.
    fn with_prefix(&self) -> String {
        self.frames
            .last()
            .and_then(|f| f.probe.as_ref())
            .map(|(w, _)| w.clone())
            .unwrap_or_default()
    }

    /// Plans `sql` and returns its columns, or `None` if it does not plan.
    fn probe_columns(&self, sql: &str) -> Option<Vec<(String, ScalarType)>> {
        let mut stmts = crate::parse(sql).ok()?;
        if stmts.len() != 1 {
            return None;
        }
        match crate::plan(&stmts.remove(0), self.catalog).ok()? {
            PlannedStatement::Select { desc, .. } => Some(
                desc.columns
                    .iter()
                    .map(|(n, t)| (n.clone(), t.scalar))
                    .collect(),
            ),
            _ => None,
        }
    }

    fn query(&mut self, q: &Query) {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.query_with(&cte.query, None);
            }
        }
        self.query_with(q, q.with.as_ref());
    }

    fn query_with(&mut self, q: &Query, with: Option<&With>) {
        self.set_expr(&q.body, with);
        if let Some(sqlparser::ast::LimitClause::LimitOffset { limit, offset, .. }) =
            &q.limit_clause
        {
            for e in limit.iter().chain(offset.as_ref().map(|o| &o.value)) {
                match placeholder(e) {
                    Some(i) => self.set(i, ScalarType::Int64),
                    None => self.expr(e),
                }
            }
        }
    }

    fn set_expr(&mut self, body: &SetExpr, with: Option<&With>) {
        match body {
            SetExpr::Select(sel) => self.select(sel, with),
            SetExpr::Query(q) => self.query(q),
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left, with);
                self.set_expr(right, with);
            }
            SetExpr::Values(values) => {
                for e in values.rows.iter().flat_map(|r| &r.content) {
                    self.expr(e);
                }
            }
            _ => {}
        }
    }

    fn select(&mut self, sel: &Select, with: Option<&With>) {
        let with_text = with.map(|w| format!("{w} ")).unwrap_or_default();
        let from_text = sel
            .from
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        // Derived tables may hold parameters of their own.
        for twj in &sel.from {
            for factor in
                std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation))
            {
                if let TableFactor::Derived { subquery, .. } = factor {
                    self.query(subquery);
                }
            }
        }
        self.frames.push(Frame {
            rels: Vec::new(),
            probe: Some((with_text, from_text)),
        });
        let rels: Vec<Rel> = sel.from.iter().flat_map(|t| self.rels_of(t)).collect();
        self.frames.last_mut().expect("frame").rels = rels;
        for twj in &sel.from {
            for join in &twj.joins {
                if let Some(JoinConstraint::On(e)) = join_constraint(&join.join_operator) {
                    self.expr(e);
                }
            }
        }
        for item in &sel.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
                self.expr(e);
            }
        }
        if let Some(w) = &sel.selection {
            self.expr(w);
        }
        if let GroupByExpr::Expressions(exprs, _) = &sel.group_by {
            for e in exprs {
                self.expr(e);
            }
        }
        if let Some(h) = &sel.having {
            self.expr(h);
        }
        self.frames.pop();
    }

    /// The column `name` (of relation `rel`, if qualified), innermost scope first.
    fn column(&self, rel: Option<&str>, name: &str) -> Option<ScalarType> {
        self.frames.iter().rev().find_map(|f| {
            f.rels
                .iter()
                .filter(|r| rel.is_none_or(|q| r.name == q))
                .find_map(|r| r.columns.iter().find(|(c, _)| c == name).map(|(_, t)| *t))
        })
    }
}

/// The type a parameter assigned to a column of type `t` gets (PostgreSQL reports it without
/// modifiers).
fn assignment_type(t: ScalarType) -> ScalarType {
    match t {
        ScalarType::Numeric { .. } => ScalarType::NUMERIC,
        ScalarType::VarChar { .. } => ScalarType::VarChar { max_length: None },
        other => other,
    }
}

fn join_constraint(op: &JoinOperator) -> Option<&JoinConstraint> {
    use JoinOperator::*;
    match op {
        Join(c) | Inner(c) | Left(c) | LeftOuter(c) | Right(c) | RightOuter(c) | FullOuter(c)
        | CrossJoin(c) | Semi(c) | LeftSemi(c) | RightSemi(c) | Anti(c) | LeftAnti(c)
        | RightAnti(c) | StraightJoin(c) => Some(c),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{CatalogItem, ItemKind};
    use kpg_types::{ColumnType, RelationDesc};

    struct OneTable;

    impl Catalog for OneTable {
        fn resolve(&self, name: &str) -> Option<CatalogItem> {
            (name == "t").then(|| CatalogItem {
                id: 1,
                name: "t".into(),
                kind: ItemKind::Table,
                desc: RelationDesc::new(
                    [
                        ("id", ScalarType::Int32),
                        ("big", ScalarType::Int64),
                        ("name", ScalarType::Text),
                        (
                            "code",
                            ScalarType::VarChar {
                                max_length: Some(8),
                            },
                        ),
                        ("ok", ScalarType::Bool),
                        (
                            "price",
                            ScalarType::Numeric {
                                precision: Some(10),
                                scale: Some(2),
                            },
                        ),
                        ("score", ScalarType::Float64),
                        ("day", ScalarType::Date),
                    ]
                    .into_iter()
                    .map(|(n, t)| (n.to_string(), ColumnType::new(t, true)))
                    .collect(),
                ),
            })
        }
    }

    /// The inferred types, by PostgreSQL's internal names (`text` where unknown).
    fn infer(sql: &str) -> Vec<&'static str> {
        let stmt = crate::parse(sql).unwrap().remove(0);
        let n = crate::params::parameter_count(sql).unwrap();
        parameter_types(&stmt, &[], n, &OneTable)
            .iter()
            .map(|t| crate::types::internal_name(&t.unwrap_or(ScalarType::Text)))
            .collect()
    }

    // The expectations are PostgreSQL 15's answers (pg_prepared_statements.parameter_types).
    #[test]
    fn infers_like_postgres() {
        assert_eq!(infer("SELECT $1"), ["text"]);
        assert_eq!(infer("SELECT $1 + 1"), ["int4"]);
        assert_eq!(
            infer(
                "SELECT * FROM t WHERE id = $1 AND name LIKE $2 AND code = $3 AND day > $4 \
                 AND price BETWEEN $5 AND $6 AND big IN ($7, $8) AND $9 < score"
            ),
            ["int4", "text", "text", "date", "numeric", "numeric", "int8", "int8", "float8"]
        );
        assert_eq!(
            infer("INSERT INTO t (id, name, price) VALUES ($1, $2, $3)"),
            ["int4", "text", "numeric"]
        );
        assert_eq!(
            infer("UPDATE t SET name = $1, big = big + $2 WHERE ok = $3"),
            ["text", "int8", "bool"]
        );
        assert_eq!(
            infer(
                "SELECT * FROM t WHERE id IN (SELECT id FROM t WHERE big = $1) AND EXISTS \
                 (SELECT 1 FROM t t2 WHERE t2.code = $2 AND t2.id = t.id)"
            ),
            ["int8", "text"]
        );
        assert_eq!(
            infer("DELETE FROM t WHERE day = $1 OR NOT $2"),
            ["date", "bool"]
        );
        assert_eq!(infer("INSERT INTO t SELECT $1, $2"), ["int4", "int8"]);
        assert_eq!(infer("SELECT $1 = $2"), ["text", "text"]);
        assert_eq!(
            infer("SELECT $1 FROM t WHERE $2 IN (SELECT id FROM t)"),
            ["text", "int4"]
        );
        assert_eq!(
            infer("SELECT CASE id WHEN $1 THEN $2 ELSE name END FROM t"),
            ["int4", "text"]
        );
        assert_eq!(
            infer(
                "SELECT upper($1), coalesce($2, 5), $3 = $4, abs(id - $6), lower(name) = $7, $5 \
                 FROM t LIMIT $8 OFFSET $9"
            ),
            ["text", "int4", "text", "text", "text", "int4", "text", "int8", "int8"]
        );
        assert_eq!(
            infer("SELECT x.n FROM (SELECT name AS n FROM t) x WHERE x.n = $1 AND $2::int8 > 0"),
            ["text", "int8"]
        );
        assert_eq!(
            infer("SELECT id * $1, price * $2 FROM t"),
            ["int4", "numeric"]
        );
    }

    #[test]
    fn declared_types_win() {
        let stmt = crate::parse("SELECT * FROM t WHERE id = $1 AND $2 = big")
            .unwrap()
            .remove(0);
        let types = parameter_types(&stmt, &[Some(ScalarType::Int64)], 2, &OneTable);
        assert_eq!(types, [Some(ScalarType::Int64), Some(ScalarType::Int64)]);
    }
}

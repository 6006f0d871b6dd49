//! Indexes: `CREATE [DEFAULT] INDEX`, `DROP INDEX`, and the rewrite that makes plans reuse the
//! indexes the catalog holds.
//!
//! An index is an arrangement of a table or view keyed by expressions over its columns. The
//! rewrite that makes later plans import it is in `index_reuse.rs`.

use kpg_types::ScalarExpr;
use sqlparser::ast::{CreateIndex, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};

use crate::catalog::Catalog;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::names::object_name;
use crate::scope::Scope;
use crate::statement::{ParsedStatement, PlannedStatement};

/// Whether the parser is at `CREATE DEFAULT INDEX`, which sqlparser does not know.
pub(crate) fn at_default_index(parser: &Parser) -> bool {
    parser.peek_keyword(Keyword::CREATE)
        && matches!(parser.peek_nth_token_ref(1).token, sqlparser::tokenizer::Token::Word(ref w) if w.keyword == Keyword::DEFAULT)
}

/// Parses `CREATE DEFAULT INDEX [IF NOT EXISTS] ON name`.
pub(crate) fn parse_default_index(parser: &mut Parser) -> Result<ParsedStatement, ParserError> {
    parser.expect_keyword(Keyword::CREATE)?;
    parser.expect_keyword(Keyword::DEFAULT)?;
    parser.expect_keyword(Keyword::INDEX)?;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    parser.expect_keyword(Keyword::ON)?;
    let on = parser.parse_object_name(false)?;
    Ok(ParsedStatement::CreateDefaultIndex { on, if_not_exists })
}

/// Plans `CREATE INDEX [name] ON obj (expr, ...)`.
pub(crate) fn plan_create_index(
    ci: &CreateIndex,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    if ci.unique
        || ci.predicate.is_some()
        || !ci.include.is_empty()
        || ci.using.is_some()
        || !ci.with.is_empty()
    {
        return Err(PlanError::unsupported(
            "CREATE INDEX with UNIQUE, USING, INCLUDE, WITH or WHERE",
        ));
    }
    let on_name = object_name(&ci.table_name)?;
    let item = catalog
        .resolve(&on_name)
        .ok_or_else(|| PlanError::undefined_table(&on_name))?;
    let scope = Scope::from_desc(Some(&on_name), &item.desc.value_types());
    let ctx = ExprContext::new(&scope, "CREATE INDEX");
    let mut key = Vec::with_capacity(ci.columns.len());
    let mut name_parts = vec![on_name.clone()];
    for column in &ci.columns {
        let bound = ctx.bind(&column.column.expr)?;
        if let ScalarExpr::Column(c) = bound.expr {
            name_parts.push(item.desc.columns[c].0.clone());
        }
        key.push(bound.expr);
    }
    if key.is_empty() {
        return Err(PlanError::syntax(
            "an index needs at least one key expression",
        ));
    }
    if name_parts.len() == 1 {
        name_parts.push("expr".into());
    }
    name_parts.push("idx".into());
    let name = match &ci.name {
        Some(n) => object_name(n)?,
        None => name_parts.join("_"),
    };
    check_name_free(&name, ci.if_not_exists, catalog)?;
    Ok(PlannedStatement::CreateIndex {
        name,
        on: item.id,
        key,
        if_not_exists: ci.if_not_exists,
        create_sql: None,
    })
}

/// Plans `CREATE DEFAULT INDEX ON obj`: an index keyed by all of the object's columns.
pub(crate) fn plan_default_index(
    on: &ObjectName,
    if_not_exists: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let on_name = object_name(on)?;
    let item = catalog
        .resolve(&on_name)
        .ok_or_else(|| PlanError::undefined_table(&on_name))?;
    let name = format!("{on_name}_primary_idx");
    check_name_free(&name, if_not_exists, catalog)?;
    let key = (0..item.desc.arity()).map(ScalarExpr::Column).collect();
    Ok(PlannedStatement::CreateIndex {
        name,
        on: item.id,
        key,
        if_not_exists,
        create_sql: None,
    })
}

fn check_name_free(
    name: &str,
    if_not_exists: bool,
    catalog: &dyn Catalog,
) -> Result<(), PlanError> {
    if !if_not_exists && (catalog.resolve(name).is_some() || catalog.resolve_index(name).is_some())
    {
        return Err(PlanError::new(
            "42P07",
            format!("relation \"{name}\" already exists"),
        ));
    }
    Ok(())
}

/// Plans `DROP INDEX [IF EXISTS] name, ...`.
pub(crate) fn plan_drop_index(
    names: &[ObjectName],
    if_exists: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let mut ids = Vec::with_capacity(names.len());
    for n in names {
        let name = object_name(n)?;
        match catalog.resolve_index(&name) {
            Some(index) => ids.push(index.id),
            None if if_exists => {}
            None if catalog.resolve(&name).is_some() => {
                return Err(PlanError::new(
                    "42809",
                    format!("\"{name}\" is not an index"),
                ));
            }
            None => {
                return Err(PlanError::new(
                    "42704",
                    format!("index \"{name}\" does not exist"),
                ))
            }
        }
    }
    Ok(PlannedStatement::Drop {
        ids,
        cascade: false,
        tag: "DROP INDEX",
        sql: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::IndexItem;
    use crate::catalog::{CatalogItem, ItemKind};
    use crate::index_reuse::use_indexes;
    use kpg_types::{ColumnType, RelationDesc, ScalarType};
    use kpg_types::{GlobalId, Plan};

    struct Cat;
    impl Catalog for Cat {
        fn resolve(&self, name: &str) -> Option<CatalogItem> {
            let id = match name {
                "a" => 1,
                "b" => 2,
                _ => return None,
            };
            let col = ColumnType::new(ScalarType::Int32, true);
            Some(CatalogItem {
                id,
                name: name.into(),
                kind: ItemKind::Table,
                desc: RelationDesc::new(vec![("k".into(), col), ("v".into(), col)]),
            })
        }
        fn name_of(&self, id: GlobalId) -> Option<String> {
            ["a", "b"]
                .get((id as usize).wrapping_sub(1))
                .map(|n| n.to_string())
        }
        fn indexes_on(&self, id: GlobalId) -> Vec<IndexItem> {
            if id == 2 {
                vec![IndexItem {
                    id: 9,
                    name: "b_k_idx".into(),
                    on: 2,
                    key: vec![ScalarExpr::Column(0)],
                }]
            } else {
                Vec::new()
            }
        }
    }

    #[test]
    fn join_input_with_matching_index_is_read_through_it() {
        let stmts = crate::parse("SELECT * FROM a JOIN b ON a.v = b.k").unwrap();
        let PlannedStatement::Select { plan, .. } = crate::plan(&stmts[0], &Cat).unwrap() else {
            panic!("select")
        };
        let plan = use_indexes(plan, &Cat);
        assert_eq!(plan.index_imports(), vec![9], "{plan}");
        let mut indexed_gets = 0;
        plan.visit(&mut |p| {
            if let Plan::IndexedGet { id, .. } = p {
                assert_eq!(*id, 2);
                indexed_gets += 1;
            }
        });
        assert_eq!(indexed_gets, 1);
        // Joined on another key, the index does not fit.
        let stmts = crate::parse("SELECT * FROM a JOIN b ON a.k = b.v").unwrap();
        let PlannedStatement::Select { plan, .. } = crate::plan(&stmts[0], &Cat).unwrap() else {
            panic!("select")
        };
        assert!(use_indexes(plan, &Cat).index_imports().is_empty());
    }

    #[test]
    fn create_index_names_and_keys() {
        let stmts = crate::parse("CREATE INDEX ON b (v, k + 1)").unwrap();
        let PlannedStatement::CreateIndex { name, on, key, .. } =
            crate::plan(&stmts[0], &Cat).unwrap()
        else {
            panic!()
        };
        assert_eq!((name.as_str(), on), ("b_v_idx", 2));
        assert_eq!(key[0], ScalarExpr::Column(1));
        let stmts = crate::parse("CREATE DEFAULT INDEX ON a").unwrap();
        let PlannedStatement::CreateIndex { name, key, .. } = crate::plan(&stmts[0], &Cat).unwrap()
        else {
            panic!()
        };
        assert_eq!((name.as_str(), key.len()), ("a_primary_idx", 2));
        let stmts = crate::parse("DROP INDEX nope").unwrap();
        assert_eq!(crate::plan(&stmts[0], &Cat).unwrap_err().code, "42704");
    }
}

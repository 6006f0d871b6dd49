//! EXPLAIN: `EXPLAIN [RAW | DECORRELATED | OPTIMIZED | PHYSICAL] PLAN FOR <query | VIEW v |
//! MATERIALIZED VIEW v | INDEX i>`, and `EXPLAIN <query>` (the optimized plan).
//!
//! `RAW` is the plan as bound from the SQL text: names resolved, types checked, constants
//! folded, and every subquery still nested in the expression that uses it (bound with
//! `QueryContext::raw`; its plan is printed below the operator, reading its outer values from
//! a `Get outer row` leaf). `DECORRELATED` is the plan the binder makes in its normal mode,
//! with subqueries turned into joins and reductions; `OPTIMIZED` is that plan after the logical
//! rewrites (`optimize.rs`: predicate and projection pushdown). `PHYSICAL` is the plan the
//! runtime renders (`optimize::physical_plan`: joins ordered, inputs narrowed, indexes used):
//! every arrangement a dataflow would build is marked `ArrangeBy ... [new]`, every index it
//! imports is named, and a footer lists both. The text is rendered by `explain_text.rs`.

use crate::words::word_is;
use sqlparser::ast::Query;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::catalog::{read_plan, Catalog, CatalogItem, ItemKind};
use crate::error::PlanError;
use crate::explain_text::{physical_text, plan_text};
use crate::names::object_name;
use crate::optimize::{optimize, physical_plan};
use crate::query::{plan_query, plan_read, QueryContext};
use crate::statement::{ParsedStatement, PlannedStatement};
use kpg_types::{Plan, ScalarExpr};

/// Which stage of planning to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainStage {
    Raw,
    Decorrelated,
    Optimized,
    Physical,
}

/// What to explain.
#[derive(Clone, Debug, PartialEq)]
pub enum ExplainTarget {
    Query(Box<sqlparser::ast::Query>),
    View(String),
    MaterializedView(String),
    Index(String),
}

fn stage_word(t: &Token) -> Option<ExplainStage> {
    [
        ("raw", ExplainStage::Raw),
        ("decorrelated", ExplainStage::Decorrelated),
        ("optimized", ExplainStage::Optimized),
        ("physical", ExplainStage::Physical),
    ]
    .into_iter()
    .find(|(w, _)| word_is(t, w))
    .map(|(_, s)| s)
}

/// Whether the parser stands at an EXPLAIN that kpg parses itself: `EXPLAIN [stage] PLAN FOR`
/// or `EXPLAIN` directly followed by a query.
pub fn at_explain(parser: &Parser<'_>) -> bool {
    if !word_is(&parser.peek_nth_token_ref(0).token, "explain") {
        return false;
    }
    let next = &parser.peek_nth_token_ref(1).token;
    stage_word(next).is_some()
        || word_is(next, "plan")
        || matches!(next, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES))
        || *next == Token::LParen && !word_is(&parser.peek_nth_token_ref(2).token, "analyze")
}

/// Parses an EXPLAIN the parser is `at_explain`.
pub fn parse_explain(parser: &mut Parser<'_>) -> Result<ParsedStatement, ParserError> {
    parser.next_token(); // EXPLAIN
    let stage = stage_word(&parser.peek_token_ref().token);
    if stage.is_some() {
        parser.next_token();
    }
    let explicit = stage.is_some() || word_is(&parser.peek_token_ref().token, "plan");
    if explicit {
        if !word_is(&parser.next_token().token, "plan") {
            return parser.expected("PLAN", parser.peek_token());
        }
        parser.expect_keyword_is(Keyword::FOR)?;
    }
    let target = if explicit && parser.parse_keyword(Keyword::VIEW) {
        ExplainTarget::View(folded_name(parser)?)
    } else if explicit && parser.parse_keywords(&[Keyword::MATERIALIZED, Keyword::VIEW]) {
        ExplainTarget::MaterializedView(folded_name(parser)?)
    } else if explicit && parser.parse_keyword(Keyword::INDEX) {
        ExplainTarget::Index(folded_name(parser)?)
    } else {
        ExplainTarget::Query(parser.parse_query()?)
    };
    Ok(ParsedStatement::Explain {
        stage: stage.unwrap_or(ExplainStage::Optimized),
        target,
    })
}

fn folded_name(parser: &mut Parser<'_>) -> Result<String, ParserError> {
    let name = parser.parse_object_name(false)?;
    Ok(object_name(&name).unwrap_or_else(|_| name.to_string()))
}

/// Plans an EXPLAIN: the text of the requested stage, one line per row.
pub fn plan_explain(
    stage: ExplainStage,
    target: &ExplainTarget,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let column = match stage {
        ExplainStage::Raw => "Raw Plan",
        ExplainStage::Decorrelated => "Decorrelated Plan",
        ExplainStage::Optimized => "Optimized Plan",
        ExplainStage::Physical => "Physical Plan",
    };
    // The plan to explain, and for an index the key its dataflow arranges the result by.
    let raw = stage == ExplainStage::Raw;
    let (plan, index_key): (Plan, Option<Vec<ScalarExpr>>) = match target {
        ExplainTarget::Query(q) => (bind(catalog, q, raw, true)?, None),
        ExplainTarget::View(name) => (definition(catalog, name, ItemKind::View, raw)?, None),
        ExplainTarget::MaterializedView(name) => (
            definition(catalog, name, ItemKind::MaterializedView, raw)?,
            None,
        ),
        ExplainTarget::Index(name) => {
            let index = catalog.resolve_index(name).ok_or_else(|| {
                PlanError::new("42704", format!("index \"{name}\" does not exist"))
            })?;
            let on = catalog_item_by_id(catalog, index.on)?;
            let plan = match on.kind {
                ItemKind::View => defining_plan(catalog, &on, raw)?,
                _ => read_plan(catalog, &on)?,
            };
            (plan, Some(index.key))
        }
    };
    let text = match stage {
        ExplainStage::Physical => physical_text(
            &physical_plan(plan, catalog)?,
            index_key.as_deref(),
            catalog,
        ),
        ExplainStage::Optimized => {
            plan_text(&optimize(plan, catalog), index_key.as_deref(), catalog)
        }
        ExplainStage::Raw | ExplainStage::Decorrelated => {
            plan_text(&plan, index_key.as_deref(), catalog)
        }
    };
    Ok(PlannedStatement::Explain {
        column: column.to_string(),
        text,
    })
}

/// The plan of a query: bound raw, or as the binder makes it; `ad_hoc` for a SELECT run as
/// such (which may read a table with its rows' positions, see `plan_read`).
fn bind(catalog: &dyn Catalog, q: &Query, raw: bool, ad_hoc: bool) -> Result<Plan, PlanError> {
    let cx = if raw {
        QueryContext::raw(catalog)
    } else {
        QueryContext::new(catalog)
    };
    let planned = match ad_hoc {
        true => plan_read(&cx, q)?,
        false => plan_query(&cx, q)?,
    };
    Ok(planned.plan)
}

/// The defining plan of a view or materialized view; raw, its SQL bound again.
fn defining_plan(catalog: &dyn Catalog, item: &CatalogItem, raw: bool) -> Result<Plan, PlanError> {
    let missing = || PlanError::new("XX000", format!("{} has no definition", item.name));
    if !raw {
        return catalog.definition(item.id).ok_or_else(missing);
    }
    let sql = catalog.definition_sql(item.id).ok_or_else(missing)?;
    let q = Parser::new(&PostgreSqlDialect {})
        .try_with_sql(&sql)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| PlanError::new("XX000", format!("stored definition does not parse: {e}")))?;
    bind(catalog, &q, true, false)
}

fn definition(
    catalog: &dyn Catalog,
    name: &str,
    kind: ItemKind,
    raw: bool,
) -> Result<Plan, PlanError> {
    let item = catalog.resolve(name).ok_or_else(|| {
        PlanError::new(
            "42P01",
            format!("{} \"{name}\" does not exist", kind.noun()),
        )
    })?;
    if item.kind != kind {
        return Err(PlanError::wrong_object_type(format!(
            "\"{name}\" is not a {}",
            kind.noun()
        )));
    }
    defining_plan(catalog, &item, raw)
}

/// The object with id `id`, found through its name (the trait resolves names only).
fn catalog_item_by_id(
    catalog: &dyn Catalog,
    id: kpg_types::GlobalId,
) -> Result<crate::catalog::CatalogItem, PlanError> {
    catalog
        .name_of(id)
        .and_then(|n| catalog.resolve(&n))
        .ok_or_else(|| PlanError::new("42P01", format!("relation u{id} does not exist")))
}

//! Rendering `Plan::FlatMap`: a set-returning function in FROM, applied to each input row
//! independently, so it is linear (a retraction of the row retracts its copies) and needs no
//! state. An evaluation error (a zero step) goes to the error stream in place of the row's
//! values.

use kpg_types::table_func::TableFunc;
use kpg_types::{Datum, EvalError, Row, ScalarExpr};

use super::Rendered;

pub fn render_flat_map<'s>(
    input: Rendered<'s>,
    func: TableFunc,
    exprs: Vec<ScalarExpr>,
    ordinality: bool,
) -> Rendered<'s> {
    let results = input.oks.flat_map(move |row: Row| {
        // Unpacked once for every argument and every output row.
        let datums = row.datums();
        let values = exprs
            .iter()
            .map(|e| e.eval(&datums))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|args| func.eval(&args));
        let out: Vec<Result<Row, EvalError>> = match values {
            Err(e) => vec![Err(e)],
            Ok(values) => values
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut datums = datums.clone();
                    func.append(v, &mut datums)?;
                    if ordinality {
                        datums.push(Datum::Int64(i as i64 + 1));
                    }
                    Ok(Row::new(datums))
                })
                .collect(),
        };
        out
    });
    let oks = results.clone().flat_map(|r| r.ok());
    let errs = results.flat_map(|r| r.err());
    Rendered {
        oks,
        errs: input.errs.concat(errs),
    }
}

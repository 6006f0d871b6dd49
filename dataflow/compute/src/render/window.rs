//! Rendering `Plan::Window`: each partition's rows with their window functions' values,
//! maintained by the engine's reduce, which recomputes a partition whenever its input changes
//! (and emits only the difference). A change therefore costs work proportional to its
//! partition's size; a window without PARTITION BY is one partition on one worker.
//!
//! Partitions are SQL-equal classes of keys (`3` and `3.00` together), keyed by the canonical
//! form as top-k and reductions are. An evaluation error (ntile's argument, an aggregate's
//! overflow) is the partition's output instead of its rows, and reaches readers as an error.

use kpg_types::plan::ColumnOrder;
use kpg_types::window::{evaluate, WindowExpr};
use kpg_types::{EvalError, Row};

use super::{Rendered, Renderer};

pub fn render_window<'s>(
    input: Rendered<'s>,
    partition_by: Vec<usize>,
    order_by: Vec<ColumnOrder>,
    funcs: Vec<WindowExpr>,
    renderer: &mut Renderer<'_, 's>,
) -> Rendered<'s> {
    let arranged = input
        .oks
        .map(move |row: Row| (row.project(&partition_by).into_canonical(), row))
        .arrange_by_key();
    renderer.register("window input", "(partition)".into(), &arranged.trace);
    let reduced = arranged.reduce_abelian(
        "Window",
        move |_key: &Row, vals: &[(&Row, i64)], output: &mut Vec<(Result<Row, EvalError>, i64)>| {
            let rows = vals.iter().map(|(r, n)| ((*r).clone(), *n));
            match evaluate(rows, &order_by, &funcs) {
                Ok(rows) => output.extend(rows.into_iter().map(|r| (Ok(r), 1))),
                Err(e) => output.push((Err(e), 1)),
            }
            output.sort();
            output.dedup_by(|later, first| {
                let same = later.0 == first.0;
                if same {
                    first.1 += later.1;
                }
                same
            });
        },
    );
    renderer.register("window output", "(partition)".into(), &reduced.trace);
    let results = reduced.as_collection(|_key: &Row, out: &Result<Row, EvalError>| out.clone());
    let oks = results.clone().flat_map(|r| r.ok());
    let errs = results.flat_map(|r| r.err());
    Rendered {
        oks,
        errs: input.errs.concat(errs),
    }
}

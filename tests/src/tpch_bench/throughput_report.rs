//! The markdown section and the PNG plot of the throughput experiment (Figure 12): each
//! query's rate for every worker count beside the paper's differential dataflow with one
//! worker (SF 10 on its hardware: a reference, not a peer run here) and PostgreSQL's
//! `REFRESH MATERIALIZED VIEW` per batch.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::plot::{line_chart, Axis, Series};
use super::stats::median;
use super::throughput::Throughput;
use super::{Config, PAPER_DD_W1};

fn m(rate: f64) -> String {
    let v = rate / 1e6;
    if v < 0.1 {
        format!("{v:.4}")
    } else {
        format!("{v:.2}")
    }
}

pub fn markdown(config: &Config, t: &Throughput) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(
        w,
        "## Update throughput (Figure 12)\n\nThe {} rows of the 8 relations dealt round-robin \
         into {} logical batches of {} rows (one COPY per relation per batch) through each \
         query's materialized view on empty tables; per batch a read of the view waits until it \
         reflects the batch. Million tuples per second over all rows, from the first COPY to \
         the last read.\n",
        t.rows, t.batches, config.batch_rows
    );
    for (workers, load, _) in &t.kpg {
        let _ = writeln!(
            w,
            "- kpg, {workers} worker(s), the same batches with no view (the load alone): {} M/s",
            m(*load)
        );
    }
    let mut header = String::from("\n| query |");
    let mut rule = String::from("|---|");
    for (workers, _, _) in &t.kpg {
        header += &format!(" kpg {workers}w M/s |");
        rule += "---|";
    }
    header += " paper DD w=1 M/s | kpg 1st / paper |";
    rule += "---|---|";
    if t.postgres.is_some() {
        header += " PostgreSQL REFRESH per batch M/s | kpg 1st / PostgreSQL |";
        rule += "---|---|";
    }
    let _ = writeln!(w, "{header}\n{rule}");
    for (i, q) in config.queries.iter().enumerate() {
        let paper = PAPER_DD_W1[q.number - 1];
        let first = t.kpg.first().map_or(f64::NAN, |k| k.2[i]);
        let mut line = format!("| {} |", q.name());
        for (_, _, rates) in &t.kpg {
            line += &format!(" {} |", m(rates[i]));
        }
        line += &format!(" {} | {:.3} |", m(paper), first / paper);
        if let Some(pg) = &t.postgres {
            let (rate, cut) = pg[i];
            let bound = if cut { "< " } else { "" };
            line += &format!(
                " {bound}{} | {}{:.1} |",
                m(rate),
                if cut { "> " } else { "" },
                first / rate
            );
        }
        let _ = writeln!(w, "{line}");
    }
    for (workers, _, rates) in &t.kpg {
        let at_paper = config
            .queries
            .iter()
            .zip(rates)
            .filter(|(q, r)| **r >= PAPER_DD_W1[q.number - 1])
            .count();
        let _ = writeln!(
            w,
            "\nkpg {workers} worker(s): median {} M/s; at or above the paper's DD w=1 rate: {at_paper} of {}.",
            m(median(rates)),
            rates.len()
        );
    }
    if let Some(pg) = &t.postgres {
        let first = &t.kpg[0].2;
        let ratios: Vec<f64> = first.iter().zip(pg).map(|(k, (p, _))| k / p).collect();
        let _ = writeln!(
            w,
            "\nmedian kpg ({} worker(s)) / PostgreSQL REFRESH: {:.1}x\n",
            t.kpg[0].0,
            median(&ratios)
        );
    }
    let _ = writeln!(
        w,
        "![throughput per query](tpch-streaming-throughput.png)\n"
    );
    md
}

/// Rates per query (x: query number), log scale.
pub fn plot(dir: &Path, config: &Config, t: &Throughput) -> Result<PathBuf, String> {
    let numbers: Vec<f64> = config.queries.iter().map(|q| q.number as f64).collect();
    let mut series: Vec<Series> = t
        .kpg
        .iter()
        .map(|(workers, _, rates)| Series {
            label: format!("kpg, {workers} worker(s)"),
            points: numbers.iter().copied().zip(rates.iter().copied()).collect(),
        })
        .collect();
    series.push(Series {
        label: "paper: DD, 1 worker (SF 10)".into(),
        points: config
            .queries
            .iter()
            .map(|q| (q.number as f64, PAPER_DD_W1[q.number - 1]))
            .collect(),
    });
    if let Some(pg) = &t.postgres {
        series.push(Series {
            label: "PostgreSQL, REFRESH per batch".into(),
            points: numbers
                .iter()
                .copied()
                .zip(pg.iter().map(|p| p.0))
                .collect(),
        });
    }
    let path = dir.join("tpch-streaming-throughput.png");
    line_chart(
        &path,
        "Update throughput per TPC-H query (batches of 100,000)",
        &Axis::linear("query"),
        &Axis::log("tuples per second"),
        &series,
    )?;
    Ok(path)
}

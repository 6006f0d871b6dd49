//! `kpg-tpch watch`: a live line per demo view every second until Ctrl-C: the updates the view
//! had in that second (counted from a `SUBSCRIBE ... WITH (SNAPSHOT = false)` per view, so
//! every change kpg emits is counted, none sampled) and its current top rows (the view's top
//! query, `kpg_tpch::demo::DemoView::top`). Views of the demo that do not exist are skipped
//! (the load generator's setup has no windowed view).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use futures::StreamExt;
use tokio_postgres::SimpleQueryMessage;

use crate::KpgArgs;

#[derive(Args)]
pub struct WatchArgs {
    #[command(flatten)]
    kpg: KpgArgs,
    /// Seconds between lines.
    #[arg(long, default_value_t = 1.0)]
    interval: f64,
    /// Stop after this many seconds (0: until Ctrl-C).
    #[arg(long, default_value_t = 0)]
    seconds: u64,
}

/// The text of the rows of a simple query, cells separated by a space (trimmed: `char(n)`
/// pads), rows by " | ".
async fn top_rows(
    client: &tokio_postgres::Client,
    sql: &str,
) -> Result<String, tokio_postgres::Error> {
    let mut rows = Vec::new();
    for m in client.simple_query(sql).await? {
        if let SimpleQueryMessage::Row(r) = m {
            let cells: Vec<&str> = (0..r.len())
                .map(|i| r.get(i).map_or("NULL", str::trim))
                .collect();
            rows.push(cells.join(" "));
        }
    }
    Ok(if rows.is_empty() {
        "(empty)".into()
    } else {
        rows.join(" | ")
    })
}

pub async fn watch(args: WatchArgs) -> anyhow::Result<()> {
    let client = args.kpg.connect(120).await?;
    let mut watched = Vec::new();
    for view in kpg_tpch::demo::views(true) {
        if top_rows(&client, &view.top).await.is_err() {
            continue;
        }
        let updates = Arc::new(AtomicU64::new(0));
        let sub = args.kpg.connect(10).await?;
        let count = updates.clone();
        let sql = format!(
            "COPY (SUBSCRIBE {} WITH (SNAPSHOT = false)) TO STDOUT",
            view.name
        );
        tokio::spawn(async move {
            let stream = match sub.copy_out(&sql).await {
                Ok(s) => s,
                Err(e) => return eprintln!("kpg-tpch: {sql}: {e}"),
            };
            futures::pin_mut!(stream);
            while let Some(Ok(chunk)) = stream.next().await {
                let lines = chunk.iter().filter(|&&b| b == b'\n').count();
                count.fetch_add(lines as u64, Ordering::Relaxed);
            }
        });
        watched.push((view, updates));
    }
    anyhow::ensure!(
        !watched.is_empty(),
        "none of the demo's views exist in kpg (run setup first)"
    );
    let width = watched.iter().map(|(v, _)| v.name.len()).max().unwrap_or(0);
    let started = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs_f64(args.interval.max(0.1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last = Instant::now();
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        tokio::select! {
            _ = &mut ctrl_c => break,
            _ = tick.tick() => {}
        }
        let secs = last.elapsed().as_secs_f64().max(1e-3);
        last = Instant::now();
        println!("--- {:.0}s", started.elapsed().as_secs_f64());
        for (view, updates) in &watched {
            let n = updates.swap(0, Ordering::Relaxed);
            let top = top_rows(&client, &view.top)
                .await
                .unwrap_or_else(|e| format!("error: {e}"));
            println!(
                "{:<width$} {:>7.0} upd/s | {top}",
                view.name,
                n as f64 / secs
            );
        }
        if args.seconds > 0 && started.elapsed() >= Duration::from_secs(args.seconds) {
            break;
        }
    }
    Ok(())
}

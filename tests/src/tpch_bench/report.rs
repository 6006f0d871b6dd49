//! The markdown results file and the PNG plots of the streaming experiments: per query install
//! times shared and not shared with their ratio, the distributions, RSS and update latency,
//! each target printed as met or not met, and where and when it ran.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::experiment::StreamingRun;
use super::plot::{line_chart, steps, Axis, Series};
use super::stats::{ccdf, cdf, distribution_cells, fmt_ms, mean, median, ms};
use super::{mib, Config};

/// Where and when the benchmark ran.
pub struct Machine {
    pub date: String,
    pub commit: String,
    pub cpu: String,
    pub memory: String,
    pub load_before: String,
    pub kpg_bin: PathBuf,
}

fn command(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

impl Machine {
    pub fn describe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let model = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = cpuinfo
            .lines()
            .filter(|l| l.starts_with("processor"))
            .count();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or("unknown".into(), |kb| {
                format!("{:.0} GiB", kb as f64 / 1048576.0)
            });
        Machine {
            date: command("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            commit: command(
                "git",
                &[
                    "-C",
                    &crate::workspace_root().display().to_string(),
                    "rev-parse",
                    "--short",
                    "HEAD",
                ],
            ),
            cpu: format!("{cores} x {model}"),
            memory,
            load_before: super::load_average(),
            kpg_bin: crate::kpg_bin(),
        }
    }
}

/// Install times (ms) of one run, all queries or only those reading lineitem.
pub fn install_ms(run: &StreamingRun, lineitem_only: bool) -> Vec<f64> {
    run.installs
        .iter()
        .filter(|i| i.lineitem || !lineitem_only)
        .map(|i| ms(i.took))
        .collect()
}

/// Mean RSS (MiB) while queries arrived and retired.
pub fn mean_rss(run: &StreamingRun) -> f64 {
    mean(&run.rss.iter().map(|(_, b)| mib(*b)).collect::<Vec<_>>())
}

fn met(ok: bool) -> &'static str {
    if ok {
        "**met**"
    } else {
        "**not met**"
    }
}

/// The markdown of the streaming experiments (`shared` and `not` are the two configurations).
pub fn streaming_markdown(
    config: &Config,
    machine: &Machine,
    rows: u64,
    shared: &StreamingRun,
    not: &StreamingRun,
) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(
        w,
        "# Streaming TPC-H, shared vs not shared (the shared-arrangements paper, §6.1.1)\n"
    );
    let _ = writeln!(
        w,
        "{} · commit {} · {} · {} RAM · load average before: {} · kpg `{}` · {} worker(s)\n",
        machine.date,
        machine.commit,
        machine.cpu,
        machine.memory,
        machine.load_before,
        machine.kpg_bin.display(),
        config.workers
    );
    let _ = writeln!(
        w,
        "TPC-H SF {}: {rows} rows. The seven keyed relations are loaded whole; lineitem is a \
         table of events (`lineitem_events`, plus `l_arrival` ms) that starts with every line \
         item at time 0 and receives {} events every {} ms while the queries run; the queries \
         read `lineitem`, a view of the events of the last {} ms (`WHERE mz_now() < l_arrival \
         + {}`). Shared: the seven primary-key indexes and an index of the windowed lineitem \
         (by `l_orderkey`) are built once and imported by every query. Not shared: no index, \
         each query arranges its own inputs and windows the events itself.\n",
        config.scale_factor,
        config.round_events,
        config.tick.as_millis(),
        config.window_ms,
        config.window_ms
    );
    let _ = writeln!(
        w,
        "| | load s | RSS loaded MiB | stream rounds |\n|---|---|---|---|\n| shared | {:.1} | {:.0} | {} |\n| not shared | {:.1} | {:.0} | {} |\n",
        shared.load.as_secs_f64(),
        mib(shared.loaded_rss),
        shared.rounds,
        not.load.as_secs_f64(),
        mib(not.loaded_rss),
        not.rounds
    );

    let _ = writeln!(
        w,
        "## Install latency (Figure 1a)\n\nTime from `CREATE MATERIALIZED VIEW` until a \
         `SELECT count(*)` of it answers, ms.\n"
    );
    let _ = writeln!(
        w,
        "| query | reads lineitem | shared ms | not shared ms | not shared / shared |\n|---|---|---|---|---|"
    );
    for (s, n) in shared.installs.iter().zip(&not.installs) {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {:.1}x |",
            s.name,
            if s.lineitem { "yes" } else { "no" },
            fmt_ms(ms(s.took)),
            fmt_ms(ms(n.took)),
            ms(n.took) / ms(s.took)
        );
    }
    let _ = writeln!(
        w,
        "\n| install ms | min | p25 | median | p75 | p90 | max |\n|---|---|---|---|---|---|---|"
    );
    for (run, which) in [(shared, "shared"), (not, "not shared")] {
        for (only, label) in [(false, "all"), (true, "lineitem-derived")] {
            let _ = writeln!(
                w,
                "| {which}, {label} |{}",
                distribution_cells(&install_ms(run, only))
            );
        }
    }
    let s_med = median(&install_ms(shared, true));
    let n_med = median(&install_ms(not, true));
    let _ = writeln!(
        w,
        "\nTarget (SF 0.1): median install of the lineitem-derived queries <= 10 ms shared: \
         {} ms, {}; >= 100x faster than not shared: {:.1}x ({} ms), {}.\n",
        fmt_ms(s_med),
        met(s_med <= 10.0),
        n_med / s_med,
        fmt_ms(n_med),
        met(n_med / s_med >= 100.0)
    );
    let _ = writeln!(w, "![install latency CDF](tpch-streaming-install.png)\n");

    let (s_rss, n_rss) = (mean_rss(shared), mean_rss(not));
    let max = |r: &StreamingRun| r.rss.iter().map(|(_, b)| mib(*b)).fold(0.0, f64::max);
    let _ = writeln!(
        w,
        "## Memory (Figure 1c)\n\nkpg's RSS sampled every 100 ms while {} queries arrive \
         (in the same pseudo-random order for both), {} active at a time, {} ms apart.\n\n\
         | | mean RSS MiB | max RSS MiB |\n|---|---|---|\n| shared | {s_rss:.0} | {:.0} |\n\
         | not shared | {n_rss:.0} | {:.0} |\n\nTarget: shared <= 0.5x not shared: \
         {:.2}x (mean), {}.\n\n![RSS over time](tpch-streaming-memory.png)\n",
        config.arrivals,
        config.active,
        config.dwell.as_millis(),
        max(shared),
        max(not),
        s_rss / n_rss,
        met(s_rss / n_rss <= 0.5)
    );

    let up = |r: &StreamingRun| r.update.iter().map(|d| ms(*d)).collect::<Vec<_>>();
    let _ = writeln!(
        w,
        "## Update latency (Figure 1b)\n\n{} rounds of {} events through the {} views \
         installed last: per round, the time from the `INSERT` until every view has answered \
         a read after it, ms.\n\n| update ms | min | p25 | median | p75 | p90 | max |\n\
         |---|---|---|---|---|---|---|\n| shared |{}\n| not shared |{}\n\nmedian not shared / \
         shared: {:.2}x\n\n![update latency CCDF](tpch-streaming-update.png)\n",
        config.update_rounds,
        config.round_events,
        config.active,
        distribution_cells(&up(shared)),
        distribution_cells(&up(not)),
        median(&up(not)) / median(&up(shared))
    );
    md
}

/// Draws the three plots of the streaming experiments into `dir`; returns the files written
/// and the errors of those that could not be drawn.
pub fn streaming_plots(
    dir: &Path,
    shared: &StreamingRun,
    not: &StreamingRun,
) -> (Vec<PathBuf>, Vec<String>) {
    let pair = |f: &dyn Fn(&StreamingRun) -> Vec<(f64, f64)>| {
        vec![
            Series {
                label: "shared".into(),
                points: f(shared),
            },
            Series {
                label: "not shared".into(),
                points: f(not),
            },
        ]
    };
    let charts: [(&str, &str, Axis, Axis, Vec<Series>); 3] = [
        (
            "tpch-streaming-install.png",
            "Install latency, 22 TPC-H queries (CDF)",
            Axis::log("install latency, ms"),
            Axis::linear("fraction of queries"),
            pair(&|r| steps(&cdf(&install_ms(r, false)))),
        ),
        (
            "tpch-streaming-memory.png",
            "kpg RSS while queries arrive and retire (10 active)",
            Axis::linear("time, s"),
            Axis::linear("RSS, MiB"),
            pair(&|r| r.rss.iter().map(|(t, b)| (*t, mib(*b))).collect()),
        ),
        (
            "tpch-streaming-update.png",
            "Update latency per round, 10 views (CCDF)",
            Axis::log("update latency, ms"),
            Axis::log("fraction of rounds with a greater latency"),
            pair(&|r| {
                let points = ccdf(&r.update.iter().map(|d| ms(*d)).collect::<Vec<_>>());
                // The last point's fraction is 0, which a log axis cannot show.
                let floor = 0.5 / r.update.len().max(1) as f64;
                steps(&points)
                    .into_iter()
                    .map(|(x, f)| (x, f.max(floor)))
                    .collect()
            }),
        ),
    ];
    let (mut written, mut errors) = (Vec::new(), Vec::new());
    for (file, title, x, y, series) in charts {
        let path = dir.join(file);
        match line_chart(&path, title, &x, &y, &series) {
            Ok(()) => written.push(path),
            Err(e) => errors.push(e),
        }
    }
    (written, errors)
}

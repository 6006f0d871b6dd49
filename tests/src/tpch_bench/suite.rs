//! The whole benchmark: the data generated once, the streaming experiments shared and not
//! shared (each on a fresh kpg), the throughput experiment, then the results files and the
//! plots written to `config.out_dir` (`tpch-streaming.md`, `tpch-throughput.md`,
//! `tpch-streaming-*.png`). `config.streaming` / `config.throughput` pick the parts.

use std::path::PathBuf;
use std::time::Instant;

use super::experiment::{self, StreamingRun};
use super::report::{self, Machine};
use super::setup::Data;
use super::throughput::{self, Throughput};
use super::{load_average, throughput_report, Config, Sharing};

/// What a run produced.
#[derive(Default)]
pub struct Outcome {
    /// Shared, then not shared.
    pub streaming: Option<(StreamingRun, StreamingRun)>,
    pub throughput: Option<Throughput>,
    pub markdown: String,
    pub results_files: Vec<PathBuf>,
    pub plots: Vec<PathBuf>,
    pub plot_errors: Vec<String>,
}

pub async fn run_suite(config: &Config) -> Outcome {
    std::fs::create_dir_all(&config.out_dir).expect("create the results directory");
    let mut outcome = Outcome::default();
    if config.streaming {
        let machine = Machine::describe();
        let started = Instant::now();
        let data = Data::generate(config.scale_factor);
        println!(
            "TPC-H SF {}: {} rows generated in {:.1} s",
            config.scale_factor,
            data.rows(),
            started.elapsed().as_secs_f64()
        );
        let shared = experiment::streaming(config, &data, Sharing::Shared).await;
        let not_shared = experiment::streaming(config, &data, Sharing::NotShared).await;
        let mut md =
            report::streaming_markdown(config, &machine, data.rows(), &shared, &not_shared);
        md += &format!(
            "Load average after the streaming experiments: {}.\n",
            load_average()
        );
        let file = config.out_dir.join("tpch-streaming.md");
        std::fs::write(&file, &md).expect("write the results file");
        let (plots, errors) = report::streaming_plots(&config.out_dir, &shared, &not_shared);
        outcome.plots.extend(plots);
        outcome.plot_errors.extend(errors);
        outcome.results_files.push(file);
        outcome.markdown += &md;
        outcome.streaming = Some((shared, not_shared));
    }
    if config.throughput {
        let machine = Machine::describe();
        let t = throughput::measure(config).await;
        let mut md = format!(
            "# TPC-H update throughput (the shared-arrangements paper, Figure 12)\n\n{} · commit \
             {} · {} · {} RAM · load average before: {}, after: {} · kpg `{}` · TPC-H SF {}\n\n",
            machine.date,
            machine.commit,
            machine.cpu,
            machine.memory,
            machine.load_before,
            load_average(),
            machine.kpg_bin.display(),
            config.scale_factor
        );
        md += &throughput_report::markdown(config, &t);
        let file = config.out_dir.join("tpch-throughput.md");
        std::fs::write(&file, &md).expect("write the results file");
        match throughput_report::plot(&config.out_dir, config, &t) {
            Ok(p) => outcome.plots.push(p),
            Err(e) => outcome.plot_errors.push(e),
        }
        outcome.results_files.push(file);
        outcome.markdown += &md;
        outcome.throughput = Some(t);
    }
    outcome
}

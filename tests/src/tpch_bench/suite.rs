//! The whole benchmark: the data generated once, the streaming experiments shared and not
//! shared (each on a fresh kpg), then the results file and the plots written to
//! `config.out_dir` (`tpch-streaming.md` and `tpch-streaming-*.png`).

use std::path::PathBuf;
use std::time::Instant;

use super::experiment::{self, StreamingRun};
use super::report::{self, Machine};
use super::setup::Data;
use super::{load_average, Config, Sharing};

/// What a run produced.
pub struct Outcome {
    pub shared: StreamingRun,
    pub not_shared: StreamingRun,
    pub markdown: String,
    pub results_file: PathBuf,
    pub plots: Vec<PathBuf>,
    pub plot_errors: Vec<String>,
}

pub async fn run_suite(config: &Config) -> Outcome {
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
    let mut markdown =
        report::streaming_markdown(config, &machine, data.rows(), &shared, &not_shared);
    markdown += &format!(
        "Load average after the streaming experiments: {}.\n",
        load_average()
    );
    std::fs::create_dir_all(&config.out_dir).expect("create the results directory");
    let results_file = config.out_dir.join("tpch-streaming.md");
    std::fs::write(&results_file, &markdown).expect("write the results file");
    let (plots, plot_errors) = report::streaming_plots(&config.out_dir, &shared, &not_shared);
    Outcome {
        shared,
        not_shared,
        markdown,
        results_file,
        plots,
        plot_errors,
    }
}

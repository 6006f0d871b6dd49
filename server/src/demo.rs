//! The built-in demo (`kpg --demo`): the streaming TPC-H scenario of issue 20 on the built-in
//! load generator — the 8 TPC-H relations at scale factor 0.01 with one order and its line
//! items changing every tick, the seven primary-key indexes, and views that share them (TPC-H
//! Q1, Q5, Q6 and revenue per nation). The statements are `kpg_tpch::demo`'s, the same that
//! `scripts/demo-tpch.sh` and docker compose run, so the three show one scenario.

use std::sync::Arc;

use kpg_tpch::demo::{setup_statements, DemoSource};

use crate::coord::Coordinator;

/// The name of the demo's source; its presence means the demo is installed.
pub const DEMO_SOURCE: &str = "tpch";

fn source() -> DemoSource {
    DemoSource::Generator {
        scale_factor: 0.01,
        tick: "100ms".into(),
    }
}

pub async fn install(coord: &Arc<Coordinator>) -> anyhow::Result<()> {
    for sql in setup_statements(&source()) {
        for stmt in kpg_sql::parse(&sql).map_err(|e| anyhow::anyhow!("{e}"))? {
            coord
                .execute(&stmt)
                .await
                .map_err(|e| anyhow::anyhow!("{sql}: {e}"))?;
        }
    }
    Ok(())
}

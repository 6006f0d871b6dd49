# kpg server image: multi-stage build (Rust toolchain -> slim Debian runtime), with kpg and
# kpg-tpch (the streaming TPC-H demo's loader, setup and watcher; docker-compose.yml runs it
# with `--entrypoint kpg-tpch`). The build step is scripts/demo-tpch.sh's.
#   docker build -t kpg .
#   docker run -p 6875:6875 kpg          # then: psql -h 127.0.0.1 -p 6875 -U kpg kpg

FROM rust:1-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake pkg-config libsasl2-dev libssl-dev libcurl4-openssl-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only the sources (never a host target/ directory).
COPY Cargo.toml Cargo.lock ./
COPY server server
COPY sql-planner sql-planner
COPY dataflow dataflow
COPY storage-sources storage-sources
COPY tpch tpch
COPY tests tests
RUN cargo build --release --bin kpg --bin kpg-tpch \
 && cp target/release/kpg target/release/kpg-tpch /usr/local/bin/

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libsasl2-2 libssl3 libcurl4 zlib1g ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home-dir /data --create-home kpg
COPY --from=build /usr/local/bin/kpg /usr/local/bin/kpg-tpch /usr/local/bin/
USER kpg
WORKDIR /data
VOLUME /data
EXPOSE 6875
ENV RUST_LOG=info
ENTRYPOINT ["kpg"]
CMD ["--listen", "0.0.0.0:6875", "--workers", "2", "--data-dir", "/data"]

#!/usr/bin/env bash
# Installs what kpg needs on Debian 12 (bookworm) and puts cargo on PATH.
#
#   ./scripts/setup-env.sh            # run it
#   source scripts/setup-env.sh       # or source it, to keep the PATH it sets up
#
# System packages (installed with apt-get only when missing; sudo is used when not root):
#   build-essential pkg-config cmake          C toolchain, cmake for rdkafka's bundled librdkafka
#   libsasl2-dev libssl-dev libcurl4-openssl-dev zlib1g-dev   librdkafka's dependencies
#   postgresql postgresql-client              the test oracle (a real PostgreSQL) and psql
#   curl ca-certificates                      to fetch rustup when cargo is missing
#   procps util-linux                         pkill and script, used by the psql tests
#   python3 python3-venv libpq5 maven         the driver tests' psycopg (PyPI) and pgjdbc
#                                             (Maven Central), see scripts/setup-clients.sh
#   default-jdk-headless                      javac and java for pgjdbc, only when javac is missing
#   nodejs npm                                node and npm for node-postgres (npm registry), only
#                                             when `node` / `npm` are missing
# Extra packages can be added with KPG_EXTRA_PACKAGES="pkg1 pkg2".
# Rust: installed with rustup (minimal profile, stable) only when `cargo` is not found.

kpg_setup_env() {
    local packages=(
        build-essential pkg-config cmake
        libsasl2-dev libssl-dev libcurl4-openssl-dev zlib1g-dev
        postgresql postgresql-client
        curl ca-certificates
        procps util-linux
        python3 python3-venv libpq5 maven
    )
    # Any JDK will do; Debian's default one only when there is none.
    command -v javac >/dev/null 2>&1 || packages+=(default-jdk-headless)
    # Any Node.js and npm will do (node-postgres needs Node.js 16 or later); Debian's when missing.
    command -v node >/dev/null 2>&1 || packages+=(nodejs)
    command -v npm >/dev/null 2>&1 || packages+=(npm)
    # shellcheck disable=SC2206
    packages+=(${KPG_EXTRA_PACKAGES:-})

    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "setup-env: not root and no sudo; cannot install packages" >&2
        fi
    fi

    local missing=() p
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "setup-env: not a Debian system; make sure these (or their equivalents) are installed:" \
            "${packages[*]}" >&2
        packages=()
    fi
    for p in "${packages[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        if ! command -v apt-get >/dev/null 2>&1; then
            echo "setup-env: missing packages ${missing[*]} and no apt-get; install them by hand" >&2
            return 1
        fi
        echo "setup-env: installing ${missing[*]}" >&2
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null || return 1
    fi

    if ! command -v cargo >/dev/null 2>&1; then
        if [ -x "$HOME/.cargo/bin/cargo" ]; then
            export PATH="$HOME/.cargo/bin:$PATH"
        else
            echo "setup-env: installing Rust with rustup" >&2
            curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs \
                | sh -s -- -y --profile minimal --default-toolchain stable >&2 || return 1
            export PATH="$HOME/.cargo/bin:$PATH"
        fi
    fi
    cargo --version >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    kpg_setup_env
else
    kpg_setup_env || return 1
fi

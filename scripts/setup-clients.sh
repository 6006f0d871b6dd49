#!/usr/bin/env bash
# Installs the PostgreSQL client libraries that tests/tests/drivers.rs drives kpg with, under
# target/clients/ (kept between runs, installed again only when missing or of another version):
#
#   target/clients/venv/                    a Python venv with psycopg 3 from PyPI (its pure
#                                           Python build, on the system's libpq5), and
#                                           SQLAlchemy 2, psycopg2 (binary) and pandas
#   target/clients/postgresql-<v>.jar       pgjdbc from Maven Central, fetched with mvn
#   target/clients/node/node_modules/pg/    node-postgres (pure JavaScript) from npm
#
# Needs python3 with the venv module, a JDK, Maven, Node.js and npm (scripts/setup-env.sh
# installs them on Debian). The driver tests run this script themselves; the last three lines it
# prints tell them where the clients are:
#
#   PYTHON=/abs/path/to/venv/bin/python
#   PGJDBC_JAR=/abs/path/to/postgresql-<v>.jar
#   NODE_PATH=/abs/path/to/node/node_modules    (for node's NODE_PATH, so require('pg') finds it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PSYCOPG_VERSION=3.3.9
SQLALCHEMY_VERSION=2.0.58
PSYCOPG2_VERSION=2.9.13
PANDAS_VERSION=3.1.1
PGJDBC_VERSION=42.7.4
NODE_PG_VERSION=8.23.1

dir="$PWD/target/clients"
mkdir -p "$dir"

python="$dir/venv/bin/python"
if ! "$python" -c "import sys, psycopg; sys.exit(psycopg.__version__ != '$PSYCOPG_VERSION')" \
        >/dev/null 2>&1; then
    echo "setup-clients: installing psycopg $PSYCOPG_VERSION into $dir/venv" >&2
    rm -rf "$dir/venv"
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install -q --disable-pip-version-check "psycopg==$PSYCOPG_VERSION" >&2
    "$python" -c "import psycopg" >&2
fi
if ! "$python" -c "
import sys, sqlalchemy, psycopg2, pandas
sys.exit(not (sqlalchemy.__version__ == '$SQLALCHEMY_VERSION'
              and psycopg2.__version__.split()[0] == '$PSYCOPG2_VERSION'
              and pandas.__version__ == '$PANDAS_VERSION'))" >/dev/null 2>&1; then
    echo "setup-clients: installing SQLAlchemy, psycopg2 and pandas into $dir/venv" >&2
    "$dir/venv/bin/pip" install -q --disable-pip-version-check \
        "sqlalchemy==$SQLALCHEMY_VERSION" "psycopg2-binary==$PSYCOPG2_VERSION" \
        "pandas==$PANDAS_VERSION" >&2
fi

jar="$dir/postgresql-$PGJDBC_VERSION.jar"
if [ ! -s "$jar" ]; then
    echo "setup-clients: fetching pgjdbc $PGJDBC_VERSION into $dir" >&2
    mvn -q -B dependency:copy -Dartifact="org.postgresql:postgresql:$PGJDBC_VERSION" \
        -DoutputDirectory="$dir" >&2
fi

node_modules="$dir/node/node_modules"
if [ "$(node -p "require('$node_modules/pg/package.json').version" 2>/dev/null)" \
        != "$NODE_PG_VERSION" ]; then
    echo "setup-clients: installing pg (node-postgres) $NODE_PG_VERSION into $dir/node" >&2
    rm -rf "$dir/node"
    mkdir -p "$dir/node"
    npm install --prefix "$dir/node" --no-audit --no-fund --no-save --loglevel=error \
        "pg@$NODE_PG_VERSION" >&2
    NODE_PATH="$node_modules" node -e "require('pg')" >&2
fi

echo "PYTHON=$python"
echo "PGJDBC_JAR=$jar"
echo "NODE_PATH=$node_modules"

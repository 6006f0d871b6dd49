"""SQLAlchemy 2 and pandas against one server, through one of SQLAlchemy's PostgreSQL dialects.

Usage: sqlalchemy_scenario.py DIALECT HOST PORT DBNAME USER
  DIALECT is `psycopg` (psycopg 3) or `psycopg2`.

Runs what Python's data tools do with a database: connect (the dialect's first-connect
queries), MetaData.create_all (reads the catalog, then runs CREATE TABLE / CREATE INDEX in a
transaction block), Core inserts of many rows with parameters, selects with parameters,
inspect() (table and view names, columns, primary key, indexes), a Table reflected with
autoload_with, pandas.read_sql and DataFrame.to_sql, and a transaction rolled back.

Prints one transcript line per observation; tests/tests/drivers.rs runs it against kpg and
against PostgreSQL and requires the same transcript. A step that fails prints its SQLSTATE
(when the error has one) and the scenario goes on, so a transcript shows every difference.
"""

import sys
import traceback

import pandas as pd
import sqlalchemy as sa

dialect, host, port, dbname, user = sys.argv[1:6]
engine = sa.create_engine(f"postgresql+{dialect}://{user}@{host}:{port}/{dbname}")


def out(*parts):
    print(" | ".join(str(p) for p in parts), flush=True)


def sqlstate(e):
    orig = getattr(e, "orig", None)
    for attr in ("sqlstate", "pgcode"):
        code = getattr(orig, attr, None)
        if code:
            return code
    return type(e).__name__


def step(name):
    """Runs the decorated function at once as one named step, printing its failure."""

    def run(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001 - every failure goes into the transcript
            out(name, "ERROR", sqlstate(e))
            print(f"{name}: {e}", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
        return f

    return run


metadata = sa.MetaData()
customers = sa.Table(
    "sa_customers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("balance", sa.Numeric(12, 2)),
    sa.Column("joined", sa.Date),
)
orders = sa.Table(
    "sa_orders",
    metadata,
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("customer_id", sa.Integer, nullable=False),
    sa.Column("amount", sa.Float),
    sa.Column("note", sa.Text),
    sa.Index("sa_orders_customer", "customer_id"),
)


@step("connect")
def _():
    with engine.connect() as c:
        out("connect", c.execute(sa.text("SELECT 1 + 1")).scalar())


@step("create_all")
def _():
    metadata.create_all(engine)
    out("create_all", "ok")
    # A second create_all finds the tables and creates nothing.
    metadata.create_all(engine)
    out("create_all again", "ok")


@step("insert many")
def _():
    import datetime
    import decimal

    with engine.begin() as c:
        r = c.execute(
            customers.insert(),
            [
                {"id": i, "name": f"customer {i}", "balance": decimal.Decimal(i) * 10 + decimal.Decimal("0.5"),
                 "joined": datetime.date(2024, 1, 1) + datetime.timedelta(days=i)}
                for i in range(1, 21)
            ],
        )
        out("insert customers", r.rowcount)
        r = c.execute(
            orders.insert(),
            [
                {"id": i, "customer_id": i % 7 + 1, "amount": i * 1.25, "note": None if i % 5 == 0 else f"order {i}"}
                for i in range(1, 61)
            ],
        )
        out("insert orders", r.rowcount)


@step("select")
def _():
    with engine.connect() as c:
        q = (
            sa.select(customers.c.id, customers.c.name, customers.c.balance, customers.c.joined)
            .where(customers.c.id.between(sa.bindparam("lo"), sa.bindparam("hi")))
            .order_by(customers.c.id)
        )
        for lo, hi in [(1, 3), (18, 30)]:
            for row in c.execute(q, {"lo": lo, "hi": hi}):
                out("select", lo, hi, *row)
        j = (
            sa.select(customers.c.name, sa.func.count(), sa.func.sum(orders.c.amount))
            .select_from(customers.join(orders, orders.c.customer_id == customers.c.id))
            .where(orders.c.note.is_not(None))
            .group_by(customers.c.name)
            .order_by(customers.c.name)
        )
        for row in c.execute(j):
            out("join", *row)


@step("rollback")
def _():
    with engine.connect() as c:
        t = c.begin()
        c.execute(orders.insert(), [{"id": 1000, "customer_id": 1, "amount": 1.0, "note": "rolled back"}])
        t.rollback()
        out("rollback", c.execute(sa.select(sa.func.count()).select_from(orders)).scalar())


@step("savepoint")
def _():
    with engine.connect() as c:
        with c.begin():
            c.execute(orders.insert(), [{"id": 2000, "customer_id": 2, "amount": 2.0, "note": "kept"}])
            nested = c.begin_nested()
            c.execute(orders.insert(), [{"id": 2001, "customer_id": 2, "amount": 2.0, "note": "undone"}])
            nested.rollback()
            nested = c.begin_nested()
            c.execute(orders.insert(), [{"id": 2002, "customer_id": 2, "amount": 2.0, "note": "released"}])
            nested.commit()
        rows = c.execute(sa.select(orders.c.id, orders.c.note).where(orders.c.id >= 2000).order_by(orders.c.id))
        for row in rows:
            out("savepoint", *row)


@step("inspect")
def _():
    with engine.connect() as c:
        c.execute(sa.text("CREATE VIEW sa_big_orders AS SELECT id, amount FROM sa_orders WHERE amount > 50"))
        c.commit()
    insp = sa.inspect(engine)
    out("tables", sorted(t for t in insp.get_table_names() if t.startswith("sa_")))
    out("views", sorted(v for v in insp.get_view_names() if v.startswith("sa_")))
    for t in ("sa_customers", "sa_orders"):
        for col in insp.get_columns(t):
            out("column", t, col["name"], col["type"], col["nullable"], col.get("default"))
        pk = insp.get_pk_constraint(t)
        out("pk", t, pk["constrained_columns"])
        for ix in sorted(insp.get_indexes(t), key=lambda ix: ix["name"]):
            out("index", t, ix["name"], ix["column_names"], ix["unique"])
    out("has_table", insp.has_table("sa_orders"), insp.has_table("sa_nothing"))


@step("autoload")
def _():
    reflected = sa.Table("sa_customers", sa.MetaData(), autoload_with=engine)
    out("autoload", [(c.name, str(c.type)) for c in reflected.columns], [c.name for c in reflected.primary_key])
    with engine.connect() as c:
        for row in c.execute(sa.select(reflected).where(reflected.c.id < 3).order_by(reflected.c.id)):
            out("autoload row", *row)


@step("read_sql")
def _():
    with engine.connect() as c:
        df = pd.read_sql(
            sa.text("SELECT customer_id, count(*) AS n, sum(amount) AS total FROM sa_orders GROUP BY customer_id ORDER BY customer_id"),
            c,
        )
    out("read_sql", list(df.columns), [str(t) for t in df.dtypes])
    for row in df.itertuples(index=False):
        out("read_sql row", *row)


@step("to_sql")
def _():
    df = pd.DataFrame(
        {
            "k": list(range(1, 11)),
            "label": [f"label {i}" for i in range(1, 11)],
            "score": [i / 4 for i in range(1, 11)],
            "flag": [i % 2 == 0 for i in range(1, 11)],
        }
    )
    written = df.to_sql("sa_frame", engine, index=False)
    out("to_sql", written)
    back = pd.read_sql("SELECT * FROM sa_frame ORDER BY k", engine)
    out("to_sql back", list(back.columns), [str(t) for t in back.dtypes])
    for row in back.head(3).itertuples(index=False):
        out("to_sql row", *row)
    df.to_sql("sa_frame", engine, index=False, if_exists="append")
    out("to_sql append", pd.read_sql("SELECT count(*) AS n FROM sa_frame", engine)["n"][0])


@step("drop_all")
def _():
    # Outside a transaction block: kpg refuses DROP inside one (a ROLLBACK could not undo it).
    autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
    with autocommit.connect() as c:
        c.execute(sa.text("DROP VIEW sa_big_orders"))
        c.execute(sa.text("DROP TABLE sa_frame"))
    metadata.drop_all(autocommit)
    out("drop_all", sorted(t for t in sa.inspect(engine).get_table_names() if t.startswith("sa_")))

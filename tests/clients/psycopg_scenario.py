"""A psycopg 3 session against kpg or PostgreSQL, printing a transcript of what it sees.

Run by tests/tests/drivers.rs once against kpg and once against the PostgreSQL oracle; the two
transcripts must be equal. Covers connecting, DDL, INSERT/SELECT/UPDATE/DELETE with parameters
in text and binary formats (psycopg's %t, %b and %s), executemany (pipelined extended
protocol), server-side prepared statements, jsonb parameters, a server-side cursor with a
parameter, result column types (cursor.description), NULLs, transactions and errors (their
SQLSTATEs).

With --subscribe (kpg only), it also reads a subscription through COPY (SUBSCRIBE ...) TO
STDOUT, checks its snapshot against a SELECT, sees a parameterized INSERT made on another
connection arrive, and cancels it; then streams a bare SUBSCRIBE as typed rows
(cursor.stream), sees a DELETE made elsewhere arrive, and cancels it.

    python psycopg_scenario.py "host=... port=... user=... dbname=..." [--subscribe]
"""

import sys
from datetime import date
from decimal import Decimal

import psycopg
from psycopg.types.json import Jsonb


def out(*args):
    print(*args, flush=True)


def describe(cur):
    return [(d.name, d.type_code) for d in cur.description or []]


def main():
    dsn = sys.argv[1]
    subscribe = "--subscribe" in sys.argv[2:]
    conn = psycopg.connect(dsn, autocommit=True)
    cur = conn.cursor()
    cur.execute(
        "CREATE TABLE items (id int4 NOT NULL, big int8, name text, code varchar(8), "
        "ok boolean, price numeric(10,2), score double precision, day date)"
    )
    out("create", cur.statusmessage)

    rows = [
        (1, 10**10, "one", "A1", True, Decimal("12.50"), 0.5, date(2024, 1, 31)),
        (2, -2, "it's two", "B2", False, Decimal("0.01"), -1e10, date(1999, 12, 31)),
        (3, None, None, None, None, None, None, None),
    ]
    cur.execute("INSERT INTO items VALUES (%t, %t, %t, %t, %t, %t, %t, %t)", rows[0])
    out("insert text params", cur.rowcount, cur.statusmessage)
    cur.execute("INSERT INTO items VALUES (%b, %b, %b, %b, %b, %b, %b, %b)", rows[1])
    out("insert binary params", cur.rowcount, cur.statusmessage)
    cur.execute("INSERT INTO items VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows[2])
    out("insert null params", cur.rowcount, cur.statusmessage)
    cur.executemany(
        "INSERT INTO items (id, name, price, day) VALUES (%s, %s, %s, %s)",
        [(i, f"n{i}", Decimal(i) / 4, date(2020, 1, i)) for i in range(4, 10)],
    )
    out("executemany", cur.rowcount)

    queries = [
        ("SELECT * FROM items WHERE id = %s", (1,)),
        ("SELECT id, name FROM items WHERE name LIKE %s ORDER BY id", ("n%",)),
        ("SELECT id, day FROM items WHERE day > %s ORDER BY id", (date(2000, 1, 1),)),
        (
            "SELECT id, price FROM items WHERE price BETWEEN %s AND %s ORDER BY id",
            (Decimal("0.5"), Decimal("13")),
        ),
        ("SELECT id, big FROM items WHERE big IN (%s, %s) ORDER BY id", (10**10, -2)),
        ("SELECT id, score FROM items WHERE score < %s ORDER BY id", (1.0,)),
        ("SELECT id, ok FROM items WHERE ok = %s", (True,)),
        ("SELECT id, code FROM items WHERE code = %s", ("B2",)),
        (
            "SELECT %s::int4 + id AS x, %s AS label FROM items WHERE id < %s ORDER BY id",
            (10, "lbl", 3),
        ),
        ("SELECT count(*) AS n, sum(price) AS total FROM items WHERE id > %s", (3,)),
        ("SELECT id FROM items ORDER BY id LIMIT %s OFFSET %s", (2, 1)),
        ("SELECT name FROM items WHERE name = %s", ("it's two",)),
        ("SELECT id FROM items WHERE name IS NOT DISTINCT FROM %s", (None,)),
    ]
    for binary in (False, True):
        c = conn.cursor(binary=binary)
        for q, p in queries:
            c.execute(q, p)
            out("query", "binary" if binary else "text", q, describe(c), c.fetchall())

    # A statement prepared on the server (psycopg names it and reuses it).
    for i in range(1, 8):
        cur.execute("SELECT name FROM items WHERE id = %s", (i,), prepare=True)
        out("prepared", i, cur.fetchall())

    cur.execute(
        "UPDATE items SET name = %s, price = price + %s WHERE id = %s",
        ("ONE", Decimal("1"), 1),
    )
    out("update", cur.rowcount, cur.statusmessage)
    cur.execute("DELETE FROM items WHERE id > %s", (7,))
    out("delete", cur.rowcount, cur.statusmessage)

    with conn.transaction():
        cur.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (20, "committed"))
    try:
        with conn.transaction():
            cur.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (21, "rolled back"))
            raise psycopg.Rollback()
    finally:
        out("transactions", conn.info.transaction_status.name)

    for q, p in [
        ("SELECT * FROM items WHERE id = %s", ("abc",)),
        ("SELECT * FROM missing WHERE id = %s", (1,)),
        ("INSERT INTO items (id) VALUES (%s)", (None,)),
    ]:
        try:
            cur.execute(q, p)
            out("error expected, got", cur.fetchall())
        except psycopg.Error as e:
            out("error", q, e.sqlstate)

    # jsonb parameters in text and binary format, and jsonb results in both formats.
    cur.execute("CREATE TABLE docs (id int4, d jsonb)")
    cur.execute("INSERT INTO docs VALUES (%t, %t)", (1, Jsonb({"a": 1, "b": [1, 2]})))
    cur.execute("INSERT INTO docs VALUES (%b, %b)", (2, Jsonb({"a": "x", "n": None})))
    for binary in (False, True):
        c = conn.cursor(binary=binary)
        c.execute(
            "SELECT id, d, d ->> 'a' AS a FROM docs WHERE d @> %s OR id = %s ORDER BY id",
            (Jsonb({"a": 1}), 2),
        )
        out("jsonb", binary, describe(c), c.fetchall())

    # A server-side cursor: DECLARE with parameters (LIMIT's too), the cursor described as a
    # portal by its name, its rows FETCHed two at a time.
    with conn.transaction():
        with conn.cursor(name="named") as sc:
            sc.itersize = 2
            sc.execute("SELECT id, name FROM items WHERE id > %s ORDER BY id LIMIT %s", (2, 5))
            out("server cursor", describe(sc), sc.fetchmany(2), list(sc))
        # A LIKE pattern with ESCAPE as a parameter, and queries whose values the plan holds
        # (a subquery's LIMIT, a RANGE frame's offset).
        with conn.cursor(name="escaped") as sc:
            sc.execute("SELECT id FROM items WHERE name LIKE %s ESCAPE '#' ORDER BY id", ("n%",))
            out("server cursor, LIKE ... ESCAPE", sc.fetchall())
        with conn.cursor(name="limited") as sc:
            sc.execute(
                "SELECT id FROM (SELECT id FROM items ORDER BY id LIMIT %s) s ORDER BY id", (3,)
            )
            out("server cursor, subquery LIMIT", sc.fetchall())
        with conn.cursor(name="framed") as sc:
            sc.execute(
                "SELECT id, sum(id) OVER (ORDER BY id RANGE BETWEEN %s PRECEDING AND CURRENT ROW)"
                " FROM items ORDER BY id",
                (1,),
            )
            out("server cursor, RANGE frame", sc.fetchall())

    cur.execute("SELECT * FROM items ORDER BY id")
    out("final", describe(cur))
    for row in cur.fetchall():
        out("row", row)

    if subscribe:
        check_subscription(dsn, conn)
        check_stream(dsn, conn)
    conn.close()


def follow(label, conn, rows, expected, change, expected_change, on_first=None):
    """Reads a subscription's rows (`rows` of (mz_timestamp, mz_diff, id, name), typed): the
    snapshot must be `expected` at one timestamp; then `change()` runs on another connection,
    its row must arrive as `expected_change` (mz_diff, id, name) at a later timestamp, and the
    subscription is canceled."""
    snapshot, seen = [], None
    try:
        for ts, diff, ident, name in rows:
            if on_first is not None and not snapshot:
                on_first()
            if len(snapshot) < len(expected):
                assert diff == 1, diff
                snapshot.append((ts, ident, name))
                if len(snapshot) == len(expected):
                    got = sorted((i, n) for _, i, n in snapshot)
                    assert got == expected, (got, expected)
                    assert len({t for t, _, _ in snapshot}) == 1, snapshot
                    out(label, "snapshot matches SELECT:", len(snapshot), "rows")
                    change()
            else:
                seen = (ts, diff, ident, name)
                assert seen[1:] == expected_change, seen
                assert seen[0] > snapshot[0][0], (seen, snapshot[0])
                out(label, "saw the change at a later timestamp")
                conn.cancel()
    except psycopg.errors.QueryCanceled as e:
        out(label, "canceled", e.sqlstate)
    assert seen is not None


def check_subscription(dsn, conn):
    """Reads COPY (SUBSCRIBE ...) TO STDOUT: snapshot, then an INSERT made elsewhere, then
    cancel."""
    cur = conn.cursor()
    cur.execute("SELECT id, name FROM items WHERE id > %s", (1,))
    expected = sorted(cur.fetchall())
    writer = psycopg.connect(dsn, autocommit=True)
    insert = lambda: writer.execute(  # noqa: E731
        "INSERT INTO items (id, name) VALUES (%s, %s)", (100, "hundred")
    )
    with cur.copy("COPY (SUBSCRIBE (SELECT id, name FROM items WHERE id > 1)) TO STDOUT") as copy:
        # COPY's text, typed as the stream below gets it.
        rows = ((int(t), int(d), int(i), n) for t, d, i, n in copy.rows())
        follow("subscribe", conn, rows, expected, insert, (1, 100, "hundred"))
    cur.execute("SELECT count(*) FROM items WHERE id = %s", (100,))
    out("after cancel", cur.fetchone())
    writer.close()


def check_stream(dsn, conn):
    """Streams a bare SUBSCRIBE as rows (cursor.stream, the extended protocol in single-row
    mode): typed columns, the snapshot, a DELETE made elsewhere, then cancel."""
    cur = conn.cursor()
    cur.execute("SELECT id, name FROM items WHERE id > %s", (1,))
    expected = sorted(cur.fetchall())
    writer = psycopg.connect(dsn, autocommit=True)
    delete = lambda: writer.execute("DELETE FROM items WHERE id = %s", (100,))  # noqa: E731
    columns = lambda: out("stream columns", [d.name for d in cur.description])  # noqa: E731
    rows = cur.stream("SUBSCRIBE (SELECT id, name FROM items WHERE id > 1)")
    follow("stream", conn, rows, expected, delete, (-1, 100, "hundred"), columns)
    cur.execute("SELECT count(*) FROM items WHERE id = %s", (100,))
    out("after stream", cur.fetchone())
    writer.close()


if __name__ == "__main__":
    main()

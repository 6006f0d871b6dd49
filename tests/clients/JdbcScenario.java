// A pgjdbc session against kpg or PostgreSQL, printing a transcript of what it sees.
//
// Run by tests/tests/drivers.rs once against kpg and once against the PostgreSQL oracle; the
// transcripts must be equal (including DatabaseMetaData.getTables, which reads pg_catalog).
// Covers connecting, DDL, PreparedStatement INSERT /
// SELECT / UPDATE / DELETE with typed parameters (setInt, setLong, setString, setBoolean,
// setBigDecimal, setDouble, setDate, setNull), batches, statements reused past pgjdbc's
// prepareThreshold (named server-side statements, binary results), ResultSetMetaData, fetch
// size inside a transaction (portals read a few rows per Execute), rollback, errors (their
// SQLSTATEs) and DatabaseMetaData. With --subscribe (kpg only), it then reads a subscription
// through DECLARE ... CURSOR FOR SUBSCRIBE and FETCH with executeQuery, as Materialize's JDBC
// users do, and prints what it saw last.
//
//   java -cp postgresql.jar:. JdbcScenario jdbc:postgresql://127.0.0.1:PORT/DB?user=U [--subscribe]

import java.math.BigDecimal;
import java.sql.*;
import java.util.ArrayList;
import java.util.List;

public class JdbcScenario {
    static void out(Object... parts) {
        StringBuilder b = new StringBuilder();
        for (Object p : parts) {
            if (b.length() > 0) b.append(' ');
            b.append(p);
        }
        System.out.println(b);
    }

    static String rows(ResultSet r) throws SQLException {
        ResultSetMetaData md = r.getMetaData();
        List<String> cols = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            cols.add(md.getColumnName(i) + ":" + md.getColumnTypeName(i));
        }
        List<String> rows = new ArrayList<>();
        while (r.next()) {
            List<String> vals = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                Object o = r.getObject(i);
                vals.add(o == null ? "NULL" : o.getClass().getSimpleName() + "=" + o);
            }
            rows.add(String.join(",", vals));
        }
        return cols + " " + rows;
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE orders (id int4 NOT NULL, qty int8, note text, "
                        + "code varchar(8), paid boolean, amount numeric(10,2), "
                        + "weight double precision, placed date)");
                out("create", s.getUpdateCount());
            }

            String insert = "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
            try (PreparedStatement p = c.prepareStatement(insert)) {
                p.setInt(1, 1);
                p.setLong(2, 10_000_000_000L);
                p.setString(3, "first");
                p.setString(4, "A1");
                p.setBoolean(5, true);
                p.setBigDecimal(6, new BigDecimal("12.50"));
                p.setDouble(7, 0.25);
                p.setDate(8, Date.valueOf("2024-01-31"));
                out("insert", p.executeUpdate());
                p.setInt(1, 2);
                p.setNull(2, Types.BIGINT);
                p.setNull(3, Types.VARCHAR);
                p.setNull(4, Types.VARCHAR);
                p.setNull(5, Types.BOOLEAN);
                p.setNull(6, Types.NUMERIC);
                p.setNull(7, Types.DOUBLE);
                p.setNull(8, Types.DATE);
                out("insert nulls", p.executeUpdate());
            }
            try (PreparedStatement p =
                    c.prepareStatement("INSERT INTO orders (id, qty, note, amount) VALUES (?, ?, ?, ?)")) {
                for (int i = 3; i <= 12; i++) {
                    p.setInt(1, i);
                    p.setLong(2, i * 100L);
                    p.setString(3, "o'" + i);
                    p.setBigDecimal(4, new BigDecimal(i).divide(new BigDecimal(4)));
                    p.addBatch();
                }
                int total = 0;
                for (int n : p.executeBatch()) total += n;
                out("batch", total);
            }
            // A batch is one implicit transaction up to its Sync: a duplicate key in its third
            // row leaves none of its rows (PostgreSQL rolls the whole batch back).
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE batch_keys (k int4 PRIMARY KEY, v text)");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO batch_keys VALUES (?, ?)")) {
                for (int k : new int[] {1, 2, 1, 3}) {
                    p.setInt(1, k);
                    p.setString(2, "v" + k);
                    p.addBatch();
                }
                try {
                    p.executeBatch();
                    out("failing batch", "no error");
                } catch (BatchUpdateException e) {
                    SQLException cause = e.getNextException() != null ? e.getNextException() : e;
                    out("failing batch", cause.getSQLState());
                }
            }
            try (Statement s = c.createStatement();
                    ResultSet r = s.executeQuery("SELECT count(*) FROM batch_keys")) {
                out("after failing batch", rows(r));
            }

            // Reused past prepareThreshold (5): pgjdbc switches to a named statement and
            // binary transfer.
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT id, qty, note, amount, placed FROM orders WHERE id = ? OR qty > ? ORDER BY id")) {
                for (int i = 1; i <= 7; i++) {
                    p.setInt(1, i);
                    p.setLong(2, 1000L - i * 50);
                    try (ResultSet r = p.executeQuery()) {
                        out("select", i, rows(r));
                    }
                }
            }
            String[][] queries = {
                {"SELECT * FROM orders WHERE note = ?", "s:first"},
                {"SELECT id FROM orders WHERE code = ?", "s:A1"},
                {"SELECT id, amount FROM orders WHERE amount BETWEEN ? AND ? ORDER BY id", "d:1", "d:2"},
                {"SELECT id FROM orders WHERE placed < ?", "t:2025-01-01"},
                {"SELECT id FROM orders WHERE paid = ?", "b:true"},
                {"SELECT count(*) AS n, sum(qty) AS total FROM orders WHERE id > ?", "i:2"},
                {"SELECT id, weight * ? AS w FROM orders WHERE weight IS NOT NULL", "f:4"},
                {"SELECT id FROM orders ORDER BY id LIMIT ? OFFSET ?", "l:3", "l:2"},
            };
            for (String[] q : queries) {
                try (PreparedStatement p = c.prepareStatement(q[0])) {
                    for (int i = 1; i < q.length; i++) {
                        String v = q[i].substring(2);
                        switch (q[i].charAt(0)) {
                            case 's': p.setString(i, v); break;
                            case 'd': p.setBigDecimal(i, new BigDecimal(v)); break;
                            case 't': p.setDate(i, Date.valueOf(v)); break;
                            case 'b': p.setBoolean(i, Boolean.parseBoolean(v)); break;
                            case 'i': p.setInt(i, Integer.parseInt(v)); break;
                            case 'l': p.setLong(i, Long.parseLong(v)); break;
                            case 'f': p.setDouble(i, Double.parseDouble(v)); break;
                            default: throw new IllegalArgumentException(q[i]);
                        }
                    }
                    try (ResultSet r = p.executeQuery()) {
                        out("query", q[0], rows(r));
                    }
                }
            }

            try (PreparedStatement p = c.prepareStatement("UPDATE orders SET note = ?, qty = qty + ? WHERE id < ?")) {
                p.setString(1, "updated");
                p.setLong(2, 1);
                p.setInt(3, 4);
                out("update", p.executeUpdate());
            }
            try (PreparedStatement p = c.prepareStatement("DELETE FROM orders WHERE id >= ?")) {
                p.setInt(1, 11);
                out("delete", p.executeUpdate());
            }

            // Inside a transaction, a fetch size makes pgjdbc read the portal a few rows at a time.
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("SELECT id, note FROM orders WHERE id > ? ORDER BY id")) {
                p.setFetchSize(3);
                p.setInt(1, 0);
                try (ResultSet r = p.executeQuery()) {
                    out("fetch size 3", rows(r));
                }
            }
            c.commit();
            c.setAutoCommit(true);

            // A rolled-back write block.
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
                p.setInt(1, 99);
                p.executeUpdate();
            }
            c.rollback();
            c.setAutoCommit(true);

            String[] bad = {
                "SELECT * FROM orders WHERE id = ?::int4 + 'x'",
                "SELECT * FROM nowhere WHERE id = ?",
                "INSERT INTO orders (id) VALUES (?)",
            };
            for (String q : bad) {
                try (PreparedStatement p = c.prepareStatement(q)) {
                    p.setNull(1, Types.INTEGER);
                    p.execute();
                    out("error expected", q);
                } catch (SQLException e) {
                    out("error", q, e.getSQLState());
                }
            }

            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT * FROM orders ORDER BY id")) {
                out("final", rows(r));
            }

            DatabaseMetaData md = c.getMetaData();
            out("driver", md.getDriverName());
            try (ResultSet r = md.getTables(null, null, "orders", new String[] {"TABLE"})) {
                List<String> names = new ArrayList<>();
                while (r.next()) names.add(r.getString("TABLE_SCHEM") + "." + r.getString("TABLE_NAME"));
                out("getTables", names);
            } catch (SQLException e) {
                out("getTables error", e.getSQLState(), e.getMessage());
            }
            // getColumns numbers the columns with row_number() OVER (...) in its catalog query.
            try (ResultSet r = md.getColumns(null, "public", "orders", null)) {
                List<String> cols = new ArrayList<>();
                while (r.next()) {
                    cols.add(r.getInt("ORDINAL_POSITION") + ":" + r.getString("COLUMN_NAME") + ":"
                        + r.getString("TYPE_NAME") + ":" + r.getInt("DATA_TYPE") + ":" + r.getString("IS_NULLABLE"));
                }
                out("getColumns", cols);
            } catch (SQLException e) {
                out("getColumns error", e.getSQLState(), e.getMessage());
            }
            // getSchemas, getPrimaryKeys and getIndexInfo read arrays: (current_schemas(true))[1],
            // information_schema._pg_expandarray(pg_index.indkey), indoption[n - 1].
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE meta_pk (a int4, b text, c int4, PRIMARY KEY (c, a))");
                s.execute("CREATE INDEX meta_b ON meta_pk (b)");
            }
            try (ResultSet r = md.getSchemas()) {
                List<String> names = new ArrayList<>();
                while (r.next()) names.add(r.getString("TABLE_SCHEM"));
                out("getSchemas", names);
            } catch (SQLException e) {
                out("getSchemas error", e.getSQLState(), e.getMessage());
            }
            try (ResultSet r = md.getPrimaryKeys(null, "public", "meta_pk")) {
                List<String> keys = new ArrayList<>();
                while (r.next()) keys.add(r.getString("COLUMN_NAME") + ":" + r.getInt("KEY_SEQ") + ":" + r.getString("PK_NAME"));
                out("getPrimaryKeys", keys);
            } catch (SQLException e) {
                out("getPrimaryKeys error", e.getSQLState(), e.getMessage());
            }
            try (ResultSet r = md.getIndexInfo(null, "public", "meta_pk", false, false)) {
                List<String> idx = new ArrayList<>();
                while (r.next()) {
                    idx.add(r.getString("INDEX_NAME") + ":" + r.getBoolean("NON_UNIQUE") + ":"
                        + r.getInt("ORDINAL_POSITION") + ":" + r.getString("COLUMN_NAME"));
                }
                out("getIndexInfo", idx);
            } catch (SQLException e) {
                out("getIndexInfo error", e.getSQLState(), e.getMessage());
            }

            if (args.length > 1 && args[1].equals("--subscribe")) {
                subscribe(c, args[0]);
            }
        }
    }

    // kpg only: a subscription read as Materialize's JDBC users do, through a cursor in a
    // transaction block (pgjdbc sends DECLARE and FETCH through the extended protocol).
    static void subscribe(Connection c, String url) throws SQLException {
        long count;
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM orders")) {
            r.next();
            count = r.getLong(1);
        }
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("DECLARE sub CURSOR FOR SUBSCRIBE (SELECT id, note FROM orders)");
            long snapshot = 0, first = -1;
            try (ResultSet r = s.executeQuery("FETCH ALL sub WITH (timeout = '1s')")) {
                ResultSetMetaData md = r.getMetaData();
                out("subscribe columns", md.getColumnName(1), md.getColumnName(2), md.getColumnName(3), md.getColumnName(4));
                while (r.next()) {
                    snapshot += r.getLong("mz_diff");
                    first = r.getLong("mz_timestamp");
                }
            }
            out("subscribe snapshot matches SELECT", snapshot == count);
            try (Connection other = DriverManager.getConnection(url);
                 Statement w = other.createStatement()) {
                w.executeUpdate("INSERT INTO orders (id, note) VALUES (500, 'from another session')");
            }
            try (ResultSet r = s.executeQuery("FETCH ALL sub WITH (timeout = '5s')")) {
                r.next();
                out("subscribe saw insert", r.getInt("id"), r.getString("note"), r.getLong("mz_diff"),
                    r.getLong("mz_timestamp") > first);
            }
            s.execute("CLOSE sub");
        }
        c.commit();
        c.setAutoCommit(true);
    }
}

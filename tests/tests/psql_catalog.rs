//! psql's backslash commands against kpg, run with the real `psql` (`psql -X -c '\dt'`), and
//! compared with the same commands against PostgreSQL given the same DDL: the relations listed
//! by `\d`, `\dt`, `\dv`, `\dm`, `\di` (schema, name, type, table; owners differ), the columns
//! `\d name` and `\d+ name` show, information_schema's tables and columns, and the queries
//! psql 15's tab completion sends. `\l`, `\dn`, `\du` and `\d index` must succeed and show kpg's database,
//! schema, role and index. Skipped when `psql` is not on PATH.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use kpg_tests::*;

const DDL: &[&str] = &[
    "CREATE TABLE t (a int4 NOT NULL, b text NOT NULL, c numeric(10,2), d varchar(8))",
    "CREATE TABLE orders (id int8, note text)",
    "INSERT INTO t VALUES (1, 'x', 1.50, 'a'), (2, 'y', 2.50, 'b'), (3, 'y', NULL, NULL)",
    "CREATE INDEX t_b ON t (b)",
    "CREATE INDEX orders_id ON orders (id)",
    "CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1",
    "CREATE MATERIALIZED VIEW m AS SELECT b, count(*) AS n FROM t GROUP BY b",
];

fn have_psql() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

/// Runs psql with `-A -t` (unaligned, rows only), returning its rows split on `|`.
fn psql(port: u16, user: &str, db: &str, command: &str) -> Result<Vec<Vec<String>>, String> {
    let out = Command::new("psql")
        .args([
            "-X",
            "-A",
            "-t",
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            user,
            db,
        ])
        .args(["-v", "ON_ERROR_STOP=1", "-c", command])
        .env("PGCONNECT_TIMEOUT", "10")
        .env_remove("PGPASSWORD")
        .stdin(Stdio::null())
        .output()
        .expect("run psql");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || !out.stderr.is_empty() {
        return Err(format!(
            "psql {command:?}: {}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect())
}

struct Both {
    kpg: KpgServer,
    pg: Postgres,
}

impl Both {
    async fn start() -> Both {
        let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
        let (kc, pc) = (kpg.connect().await, pg.connect().await);
        for stmt in DDL {
            execute(&kc, stmt).await;
            execute(&pc, stmt).await;
        }
        Both { kpg, pg }
    }

    fn kpg(&self, command: &str) -> Vec<Vec<String>> {
        psql(self.kpg.port(), "kpg", "kpg", command).unwrap_or_else(|e| panic!("kpg: {e}"))
    }

    fn pg(&self, command: &str) -> Vec<Vec<String>> {
        psql(self.pg.port(), "postgres", "postgres", command)
            .unwrap_or_else(|e| panic!("PostgreSQL: {e}"))
    }

    /// The command's rows on both, with the columns `keep` only, as sets.
    fn same(&self, command: &str, keep: &[usize]) {
        let project = |rows: Vec<Vec<String>>| -> BTreeSet<Vec<String>> {
            rows.into_iter()
                .map(|r| {
                    keep.iter()
                        .map(|&i| r.get(i).cloned().unwrap_or_default())
                        .collect()
                })
                .collect()
        };
        let (k, p) = (project(self.kpg(command)), project(self.pg(command)));
        assert_eq!(k, p, "{command}: kpg (left) vs PostgreSQL (right)");
        assert!(!k.is_empty(), "{command} listed nothing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_commands_match_postgres() {
    if !have_psql() {
        eprintln!("psql not on PATH: skipped");
        return;
    }
    let both = Both::start().await;
    // Schema | Name | Type | Owner [| Table]: owners differ (kpg's one role is `kpg`).
    for command in [r"\d", r"\dt", r"\dv", r"\dm"] {
        both.same(command, &[0, 1, 2]);
    }
    both.same(r"\di", &[0, 1, 2, 4]);
    // A pattern, as psql turns it into a regular expression.
    both.same(r"\dt ord*", &[0, 1, 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_relation_matches_postgres() {
    if !have_psql() {
        eprintln!("psql not on PATH: skipped");
        return;
    }
    let both = Both::start().await;
    // Column | Type | Collation | Nullable | Default, for a table, a view and a materialized
    // view (footers such as the index list are not in psql's rows-only output).
    for name in ["t", "v", "m", "orders"] {
        let command = format!(r"\d {name}");
        assert_eq!(both.kpg(&command), both.pg(&command), "{command}");
    }
    // `\d+`: also Storage, Compression, Stats target and Description.
    for name in ["t", "orders", "v"] {
        let command = format!(r"\d+ {name}");
        assert_eq!(both.kpg(&command), both.pg(&command), "{command}");
    }
    // An index: its key column, and the access method line that names its table.
    let k = both.kpg(r"\d t_b");
    assert_eq!(k[0][0..2], ["b".to_string(), "text".to_string()], "{k:?}");
    let out = Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &both.kpg.port().to_string(),
            "-U",
            "kpg",
            "kpg",
        ])
        .args(["-c", r"\d t"])
        .output()
        .expect("psql");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\"t_b\" arrangement (b)"),
        "\\d t lists its index:\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn databases_schemas_roles_and_catalog_functions() {
    if !have_psql() {
        eprintln!("psql not on PATH: skipped");
        return;
    }
    let both = Both::start().await;
    let l = both.kpg(r"\l");
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0][..3], ["kpg", "kpg", "UTF8"].map(String::from), "{l:?}");
    assert_eq!(
        both.kpg(r"\dn"),
        vec![vec!["public".to_string(), "kpg".to_string()]]
    );
    let du = both.kpg(r"\du");
    assert_eq!(du.len(), 1, "{du:?}");
    assert_eq!(du[0][0], "kpg");
    assert!(du[0][1].contains("Superuser"), "{du:?}");

    // information_schema, as PostgreSQL lists users' relations (no materialized views).
    both.same(
        "SELECT table_schema, table_name, table_type FROM information_schema.tables \
         WHERE table_schema = 'public'",
        &[0, 1, 2],
    );
    both.same(
        "SELECT table_name, column_name, ordinal_position, data_type, is_nullable, \
         character_maximum_length, numeric_precision, numeric_scale \
         FROM information_schema.columns WHERE table_schema = 'public'",
        &[0, 1, 2, 3, 4, 5, 6, 7],
    );
    both.same(
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'public'",
        &[0],
    );

    // Functions over the catalog, and the view's defining SQL (read back and run).
    let same_sql = [
        "SELECT format_type(atttypid, atttypmod), attname FROM pg_attribute \
         WHERE attrelid = 't'::regclass AND attnum > 0",
        "SELECT 't'::regclass::oid = c.oid, c.oid::regclass::text FROM pg_class c WHERE relname = 't'",
        "SELECT pg_table_is_visible(c.oid), relkind FROM pg_class c WHERE relname IN ('t', 'v', 'm')",
        "SELECT current_schema(), quote_ident('Ab'), quote_ident('select'), pg_encoding_to_char(6)",
        "SELECT relname FROM pg_class WHERE relname ~ '^(t|v)$' AND relname !~ 'x' AND relname ~* '^T'",
        "SELECT relname FROM pg_class WHERE relname OPERATOR(pg_catalog.~) '^(m)$' COLLATE pg_catalog.default",
    ];
    for sql in same_sql {
        both.same(sql, &[0, 1]);
    }
    let def = both.kpg("SELECT pg_get_viewdef('v'::regclass, true)");
    let def = def[0][0].trim_end_matches(';').to_string();
    both.same(&format!("SELECT * FROM ({def}) AS d"), &[0, 1]);
    let version = both.kpg("SELECT version(), current_database()");
    assert!(version[0][0].starts_with("PostgreSQL "), "{version:?}");
    assert_eq!(version[0][1], "kpg");
    // What kpg cannot honestly answer stays refused.
    let refused = psql(both.kpg.port(), "kpg", "kpg", "SELECT 'x' ~ '(a)\\1'").unwrap_err();
    assert!(
        refused.contains("2201B") || refused.contains("invalid regular expression"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_completion_queries_match_postgres() {
    if !have_psql() {
        eprintln!("psql not on PATH: skipped");
        return;
    }
    let both = Both::start().await;
    // What psql 15 sends on `SELECT * FROM or<TAB>` and `... WHERE i<TAB>` (seen with
    // PostgreSQL's log_statement = all).
    let relations = "SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c \
        WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE 'or%' \
        AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> \
        (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog') \
        UNION ALL SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n \
        WHERE n.nspname LIKE 'or%' AND n.nspname NOT LIKE E'pg\\\\_%' LIMIT 1000";
    both.same(relations, &[0, 1]);
    let columns = "SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, \
        pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped \
        AND (a.attname) LIKE 'i%' AND c.relname = 'orders' \
        AND pg_catalog.pg_table_is_visible(c.oid) LIMIT 1000";
    both.same(columns, &[0, 1]);
}

//! stddev, stddev_samp, stddev_pop, variance, var_samp and var_pop (issue 21) compared with a
//! real PostgreSQL over smallint, integer, bigint and numeric (numeric results, digit for
//! digit: PostgreSQL's exact sums and division scale) and real and double precision, grouped
//! and global, with NULLs, single-row and empty groups, DISTINCT and FILTER, ad hoc and as
//! views maintained through inserts, updates and deletes; and string_agg with ORDER BY inside
//! the call.
//!
//! Float variances depend on the order PostgreSQL's Youngs-Cramer update meets the values: the
//! float groups here are inserted in ascending order and changed only by appending larger
//! values or deleting, so that PostgreSQL's scan order and kpg's (ascending) agree.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(
        "CREATE TABLE m (g int, a smallint, b int, c bigint, n numeric, p numeric(10,3), \
         r real, x double precision)",
    )
    .await;
    s.exec(
        "INSERT INTO m VALUES \
         (1, 1, 10, 100, 1.5, 1.125, 0.5, 1.5), \
         (1, 2, 20, 9223372036854775807, 2.25, 2.5, 1.5, 2.25), \
         (1, 3, 35, -9223372036854775808, 3, -7.001, 2.5, 3.0), \
         (1, 4, NULL, 7, 0.000001, 0, 3.25, 4.125), \
         (2, -5, -2147483648, 1, 10, 99999.999, -1.5, -2.5), \
         (2, 5, 2147483647, 1, 10.00, 0.001, 1e10, 1e15), \
         (3, 7, 7, 7, 7.0, 7, 7, 7), \
         (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL), \
         (5, 1, 1, 1, 1, 1, 1, 1), \
         (5, 1, 1, 1, 1.000, 1, 1, 1), \
         (6, 2, 3, 5, 0.1, 0.2, 0.25, 0.1), \
         (6, 3, 5, 8, 0.2, 0.3, 0.5, 0.2), \
         (6, 4, 8, 13, 0.3, 0.5, 0.75, 0.3)",
    )
    .await;
    (kpg, pg, s)
}

/// Every measure over every exact type, numeric results compared digit for digit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_variances_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let queries = [
        "SELECT g, stddev(a), stddev_samp(b), stddev_pop(c), variance(n), var_samp(p), var_pop(a) \
         FROM m GROUP BY g",
        "SELECT g, var_samp(a), var_pop(b), variance(c), stddev(n), stddev_pop(p), var_pop(n), \
         stddev_samp(c) FROM m GROUP BY g",
        "SELECT stddev(a), stddev_samp(b), stddev_pop(c), variance(n), var_samp(p), var_pop(a), \
         var_pop(n), stddev_pop(n) FROM m",
        "SELECT g, var_samp(DISTINCT n), stddev(DISTINCT a), var_pop(c) FILTER (WHERE c > 0), \
         count(*) FROM m GROUP BY g",
        "SELECT var_samp(b) FROM m WHERE false",
        "SELECT variance('1'), var_pop('2.5'), stddev_pop(NULL)",
        "SELECT g, variance(n * 1000000), stddev(n / 3), var_pop(c::numeric / 7) FROM m GROUP BY g",
        "SELECT g FROM m GROUP BY g HAVING variance(b) > 100 OR var_pop(n) = 0",
        "SELECT g, a, var_pop(n) OVER (PARTITION BY g), stddev(b) OVER (PARTITION BY g) FROM m",
        "SELECT variance(v), stddev(v), var_pop(v), stddev_pop(v) FROM (VALUES (1.5), (2), (2.75), \
         (1e-20), (123456789012345678901234567890.123)) t(v)",
        "SELECT var_samp(v), stddev_samp(v) FROM (VALUES (0.1::numeric(5,1)), (0.2), (0.3), (0.4), \
         (0.5), (0.6), (0.7)) t(v)",
        "WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 100) \
         SELECT var_samp(v::int2), var_pop(v::int8), stddev(v), stddev_pop(v * 0.01) FROM s",
    ];
    for q in queries {
        s.check(q).await;
    }
    // EXPLAIN names the aggregates as SQL does.
    let plan = simple(&s.kpg, &format!("EXPLAIN {}", queries[0]))
        .await
        .expect("EXPLAIN");
    let text = show(&plan.rows);
    for name in ["stddev_samp(", "stddev_pop(", "var_samp(", "var_pop("] {
        assert!(text.contains(name), "{name} in {text}");
    }
    s.create_view("ev", queries[0]).await;
    s.create_view(
        "ev2",
        "SELECT g, var_pop(n) AS vn, stddev(c) AS sc, variance(a) AS va, count(*) AS k FROM m GROUP BY g",
    )
    .await;
    s.create_view("ev3", "SELECT variance(n) AS v, stddev_pop(b) AS s FROM m")
        .await;
    for w in [
        "INSERT INTO m VALUES (3, 8, 8, 8, 8.5, 8.5, 8, 8), (7, 1, 2, 3, 4.5, 5, 6, 7)",
        "UPDATE m SET n = n * 2 + 0.01, b = b - 1 WHERE g IN (1, 6)",
        "DELETE FROM m WHERE g = 2 OR (g = 1 AND a = 1)",
        "UPDATE m SET n = NULL, a = NULL, c = NULL WHERE g = 3",
        "DELETE FROM m WHERE g <> 5",
    ] {
        s.exec(w).await;
        s.check_view("ev").await;
        s.check_view("ev2").await;
        s.check_view("ev3").await;
    }
    for e in [
        "SELECT stddev(s) FROM (VALUES ('a'::text)) t(s)",
        "SELECT var_pop(b, b) FROM m",
        "SELECT stddev(*) FROM m",
        "SELECT variance(true)",
        "SELECT g, stddev(b) FROM m",
        "SELECT stddev(variance(b)) FROM m",
    ] {
        s.check_error(e).await;
    }
    s.check("SELECT 1").await;
}

/// Floats: double precision results of PostgreSQL's Youngs-Cramer update.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn float_variances_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let queries = [
        "SELECT g, stddev(x), stddev_samp(x), stddev_pop(x), variance(x), var_samp(x), var_pop(x) \
         FROM m GROUP BY g",
        "SELECT g, stddev(r), stddev_pop(r), variance(r), var_pop(r) FROM m GROUP BY g",
        "SELECT stddev(x), var_pop(x) FROM m WHERE g = 1",
        "SELECT variance(v), stddev_pop(v) FROM (VALUES ('NaN'::float8), (1)) t(v)",
        "SELECT variance(v), var_pop(v) FROM (VALUES ('Infinity'::float8)) t(v)",
        "SELECT variance(v), stddev(v) FROM (VALUES ('-Infinity'::float8), (1), (2)) t(v)",
    ];
    for q in queries {
        s.check(q).await;
    }
    s.create_view("fv", queries[0]).await;
    for w in [
        "INSERT INTO m VALUES (1, 0, 0, 0, 0, 0, 10, 10), (6, 0, 0, 0, 0, 0, 1, 1)",
        "DELETE FROM m WHERE g = 1 AND x = 2.25",
        "INSERT INTO m VALUES (8, 0, 0, 0, 0, 0, 2, 2), (8, 0, 0, 0, 0, 0, 4, 4)",
        "DELETE FROM m WHERE g = 2",
    ] {
        s.exec(w).await;
        s.check_view("fv").await;
    }
    s.check_error("SELECT variance(v) FROM (VALUES (1e308::float8), (-1e308)) t(v)")
        .await;
    s.check("SELECT 1").await;
}

/// string_agg with ORDER BY inside the call (PostgreSQL's order is arbitrary without it, so
/// every group here either has an ORDER BY with distinct keys or a single row).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn string_agg_matches_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(
        "CREATE TABLE w (g int, s text, d text, k int, n numeric, t timestamp, c char(4), \
         v varchar(8), x double precision)",
    )
    .await;
    s.exec(
        "INSERT INTO w VALUES \
         (1, 'b', ',', 2, 1.50, '2020-01-02', 'ab', 'p', 0.5), \
         (1, 'a', '-', 1, 2, '2020-01-01', 'cd', 'q', -1), \
         (1, 'c', NULL, 3, 0.25, '2019-12-31 23:59:59.5', 'e ', 'r', 'NaN'), \
         (1, NULL, ';', 4, 9, '2021-01-01', NULL, NULL, 3), \
         (2, 'x', ', ', NULL, NULL, NULL, 'zz', 'y', NULL), \
         (2, '', '|', 5, -1, '2000-02-29', '', '', 'Infinity'), \
         (2, 'yy', '|', 6, -2, '2000-03-01', 'y', 'w', 2.5), \
         (3, 'only', '!', 1, 1, '2001-01-01', 'o', 'o', 1), \
         (4, NULL, ',', 1, 1, NULL, NULL, NULL, NULL)",
    )
    .await;
    let queries = [
        "SELECT g, string_agg(s, ',' ORDER BY k), string_agg(s, d ORDER BY k DESC), \
         string_agg(s, '' ORDER BY n NULLS FIRST) FROM w GROUP BY g",
        "SELECT g, string_agg(c, '/' ORDER BY t), string_agg(v, d ORDER BY x DESC NULLS LAST), \
         string_agg(s || '=' || k, ' ' ORDER BY s DESC) FROM w GROUP BY g",
        "SELECT g, string_agg(s, ',' ORDER BY g, k DESC) FILTER (WHERE k > 1), count(*) \
         FROM w GROUP BY g",
        "SELECT string_agg(s, ', ' ORDER BY k NULLS FIRST, s) FROM w",
        "SELECT string_agg(s, ',' ORDER BY k) FROM w WHERE false",
        "SELECT g, string_agg(s, ',') FROM w WHERE g IN (3, 4) GROUP BY g",
        "SELECT g, string_agg('lit', NULL ORDER BY k), string_agg(s, NULL ORDER BY k) FROM w GROUP BY g",
        "SELECT g FROM w GROUP BY g HAVING string_agg(s, '' ORDER BY k) LIKE 'a%'",
        "SELECT g, k, string_agg(s, ',') OVER (PARTITION BY g ORDER BY k), \
         string_agg(s, d) OVER (ORDER BY k, g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w \
         ORDER BY g, k",
    ];
    for q in queries {
        s.check(q).await;
    }
    // DISTINCT: PostgreSQL sorts on the arguments to remove duplicates, so the values come in
    // ascending order without an ORDER BY.
    for q in [
        "SELECT string_agg(DISTINCT s, ',') FROM w",
        "SELECT g, string_agg(DISTINCT v, '/' ORDER BY v DESC), string_agg(DISTINCT s, d) \
         FROM w GROUP BY g",
        "SELECT string_agg(DISTINCT x, y), string_agg(DISTINCT x, ',' ORDER BY x) \
         FROM (VALUES ('b', ','), ('a', ';'), ('b', ','), ('a', NULL), (NULL, '!'), ('c', ',')) t(x, y)",
    ] {
        s.check(q).await;
    }
    s.check_error("SELECT string_agg(DISTINCT s, ',' ORDER BY k) FROM w")
        .await;
    s.create_view(
        "sv",
        "SELECT g, string_agg(s, ',' ORDER BY k) AS a, string_agg(v, d ORDER BY t DESC) AS b, \
         count(*) AS c FROM w GROUP BY g",
    )
    .await;
    s.create_view("sv2", "SELECT string_agg(s, '+' ORDER BY s) AS a FROM w")
        .await;
    for wr in [
        "INSERT INTO w VALUES (1, 'aa', ':', 0, 0, '1999-01-01', 'z', 'zz', 9), \
         (5, 'new', ',', 1, 1, '2000-01-01', 'n', 'n', 1)",
        "UPDATE w SET s = upper(s), k = k + 10 WHERE g = 2",
        "DELETE FROM w WHERE g = 1 AND k = 2",
        "UPDATE w SET d = NULL WHERE g = 1",
        "DELETE FROM w WHERE g <> 3",
    ] {
        s.exec(wr).await;
        s.check_view("sv").await;
        s.check_view("sv2").await;
    }
    for e in [
        "SELECT string_agg(k, ',') FROM w",
        "SELECT string_agg(s) FROM w",
        "SELECT string_agg(s, ',', ',') FROM w",
        "SELECT string_agg(*) FROM w",
        "SELECT string_agg(s, 1) FROM w",
        "SELECT g, string_agg(s, ',' ORDER BY k) FROM w",
        "SELECT string_agg(s, ',' ORDER BY nosuch) FROM w",
    ] {
        s.check_error(e).await;
    }
    for q in ["SELECT sum(k ORDER BY k) FROM w"] {
        let (code, msg) = expect_error(&s.kpg, q).await;
        assert_eq!(code, "0A000", "{q}: {msg}");
        simple(&s.pg, q).await.expect("PostgreSQL answers it");
    }
    s.check("SELECT 1").await;
}

/// Many values: seeded random smallints, integers, bigints and numerics of scales 0 to 8 and up
/// to 24 digits in 12 groups, every measure compared digit for digit, ad hoc and as a view
/// maintained through random inserts, updates and deletes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_random_values_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE r (id int, g int, a smallint, b int, c bigint, n numeric)")
        .await;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut row = |id: u64| {
        let digits = 1 + next() % 24;
        let scale = next() % 9;
        let mut n: String = (0..digits)
            .map(|_| char::from(b'0' + (next() % 10) as u8))
            .collect();
        if scale > 0 {
            let at = n.len().saturating_sub(scale as usize);
            n = format!("{}.{}", &n[..at].trim_start_matches('0'), &n[at..]);
            if n.starts_with('.') {
                n.insert(0, '0');
            }
        }
        let sign = if next() % 3 == 0 { "-" } else { "" };
        format!(
            "({id}, {}, {}, {}, {}, {sign}{n})",
            next() % 12,
            (next() % 65536) as i64 - 32768,
            (next() % (1 << 32)) as i64 - (1 << 31),
            next() as i64 / (1 + (next() % 1000) as i64),
        )
    };
    let rows: Vec<String> = (0..300).map(&mut row).collect();
    s.exec(&format!("INSERT INTO r VALUES {}", rows.join(", ")))
        .await;
    let query =
        "SELECT g, var_samp(a) AS va, var_pop(b) AS vb, variance(c) AS vc, var_samp(n) AS vn, \
                 stddev_pop(a) AS sa, stddev_samp(b) AS sb, stddev(c) AS sc, stddev_pop(n) AS sn, \
                 var_pop(n) AS pn FROM r GROUP BY g";
    s.check(query).await;
    s.check("SELECT variance(n), stddev(n), var_pop(c), stddev_pop(b) FROM r")
        .await;
    s.create_view("rv", query).await;
    let more: Vec<String> = (300..340).map(&mut row).collect();
    for w in [
        format!("INSERT INTO r VALUES {}", more.join(", ")),
        "UPDATE r SET n = n * 3 - 0.5, g = (g + 1) % 12 WHERE id % 7 = 0".to_string(),
        "DELETE FROM r WHERE id % 5 = 1".to_string(),
        "UPDATE r SET a = NULL, n = round(n, 2) WHERE g = 3".to_string(),
    ] {
        s.exec(&w).await;
        s.check_view("rv").await;
    }
}

/// Seeded random doubles and reals, written in ascending order (so that PostgreSQL meets each
/// group's values in the order kpg does): every float measure digit for digit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_floats_in_order_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE f (g int, x double precision, r real)")
        .await;
    let mut seed: u64 = 0x5851_f42d_4c95_7f2d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut values: Vec<(u64, f64)> = (0..300)
        .map(|_| {
            let mantissa = (next() % 2_000_000) as f64 / 1000.0 - 1000.0;
            let scale = [1e-3, 1.0, 1e3, 1e9][(next() % 4) as usize];
            (next() % 8, mantissa * scale)
        })
        .collect();
    values.sort_by(|a, b| a.1.total_cmp(&b.1));
    let rows: Vec<String> = values
        .iter()
        .map(|(g, x)| format!("({g}, {x:e}, {x:e})"))
        .collect();
    s.exec(&format!("INSERT INTO f VALUES {}", rows.join(", ")))
        .await;
    s.check(
        "SELECT g, var_samp(x), var_pop(x), stddev_samp(x), stddev_pop(x), count(*) FROM f GROUP BY g",
    )
    .await;
    s.check("SELECT g, variance(r), stddev(r) FROM f GROUP BY g")
        .await;
}

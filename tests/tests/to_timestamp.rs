//! `to_date(text, text)` and `to_timestamp(text, text)` compared with a real PostgreSQL 15:
//! fixed texts that exercise the forgiving reading (blanks, separators, widths, `FM`, `FX`,
//! `TH`), every field and its errors; then texts PostgreSQL's own `to_char` writes for random
//! timestamps through random pictures, read back by both servers, as written and damaged; the
//! session's zone for texts without an offset; and both functions in a materialized view kept
//! up to date through writes. Each call is one query, so one error (compared by SQLSTATE)
//! hides no other result.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

fn quote(p: &str) -> String {
    format!("'{}'", p.replace('\'', "''"))
}

async fn both(s: &Pair, text: &str, picture: &str) {
    let (t, p) = (quote(text), quote(picture));
    s.check_or_error(&format!("SELECT to_timestamp({t}, {p})"))
        .await;
    s.check_or_error(&format!("SELECT to_date({t}, {p})")).await;
}

const FIXED: &[(&str, &str)] = &[
    ("2024-01-05 10:07:09", "YYYY-MM-DD HH24:MI:SS"),
    ("10:00", "HH24:MI"),
    ("", ""),
    ("2024", ""),
    ("2024-02-30", "YYYY-MM-DD"),
    ("02-30", "MM-DD"),
    ("2024-13-01", "YYYY-MM-DD"),
    ("2024-00-10", "YYYY-MM-DD"),
    ("2024-01-05 10:00 +05:30", "YYYY-MM-DD HH24:MI TZH:TZM"),
    ("2024-01-05 10:00 -05", "YYYY-MM-DD HH24:MI TZH"),
    ("2024-01-05 10:00-05", "YYYY-MM-DD HH24:MITZH"),
    ("2024-01-05 10:00 16", "YYYY-MM-DD HH24:MI TZH"),
    ("2024-01-05 10:00 EST", "YYYY-MM-DD HH24:MI TZ"),
    ("2024-01-05 10:00 +02", "YYYY-MM-DD HH24:MI OF"),
    ("2024 12 1", "IYYY IW ID"),
    ("2024 12", "IYYY IW"),
    ("2024 100", "IYYY IDDD"),
    ("2024 12 1", "YYYY IW ID"),
    ("1.5", "SS.MS"),
    ("1.05", "SS.MS"),
    ("1.123456", "SS.US"),
    ("1.12", "SS.US"),
    ("2024-01-05 10:00:00.123456", "YYYY-MM-DD HH24:MI:SS.FF3"),
    ("2024-01-05 10:00:00.9999996", "YYYY-MM-DD HH24:MI:SS.FF6"),
    ("2024-01-05 10:00:00.5", "YYYY-MM-DD HH24:MI:SS.FF1"),
    ("2024Jan05", "YYYYMonDD"),
    ("05 January 2024", "DD Month YYYY"),
    ("05 JANUARY 2024", "DD Month YYYY"),
    ("05 janua 2024", "DD Month YYYY"),
    ("05 Foo 2024", "DD Mon YYYY"),
    (" 2024 - 01", "YYYY-MM"),
    ("2024//01", "YYYY/MM"),
    ("2024 01", "YYYY-MM"),
    ("2024-01", "YYYY MM"),
    ("20240105", "YYYYMMDD"),
    ("2024015", "YYYYMMDD"),
    ("2024-1-5", "YYYY-MM-DD"),
    ("2024-1-5", "FXYYYY-MM-DD"),
    ("2024 -1-5", "FXYYYY-MM-DD"),
    ("2024-01-05", "FXYYYY-MM-DD"),
    ("2024-01-05", "FXYYYY MM DD"),
    ("x", "YYYY"),
    ("2024 JUN", "YYYY MM"),
    ("13 PM", "HH PM"),
    ("12 AM", "HH AM"),
    ("12 PM", "HH12 PM"),
    ("11 p.m.", "HH a.m."),
    ("0 AM", "HH AM"),
    ("99", "YY"),
    ("69", "YY"),
    ("70", "YY"),
    ("519", "YYY"),
    ("520", "YYY"),
    ("5", "Y"),
    ("2,024", "Y,YYY"),
    ("2024 100", "YYYY DDD"),
    ("2024 366", "YYYY DDD"),
    ("2023 366", "YYYY DDD"),
    ("100", "DDD"),
    ("20 05", "CC YY"),
    ("20 00", "CC YY"),
    ("20", "CC"),
    ("20 05 BC", "CC YY BC"),
    ("21 2024", "CC YYYY"),
    ("2451545", "J"),
    ("2451545 10", "J HH24"),
    ("44 BC", "YYYY BC"),
    ("44 B.C.", "YYYY B.C."),
    ("2024 AD", "YYYY AD"),
    ("2024 2025", "YYYY YYYY"),
    ("2024 2024", "YYYY YYYY"),
    ("2024 10 3", "YYYY WW D"),
    ("2024 10", "YYYY WW"),
    ("2024 3 2", "YYYY MM W"),
    ("2024 Wednesday", "YYYY Day"),
    ("2024 Wed 1", "YYYY Dy MM"),
    ("2024 XII", "YYYY RM"),
    ("2024 iv", "YYYY rm"),
    ("2024 3 05", "YYYY Q MM"),
    ("3600", "SSSS"),
    ("86399", "SSSSS"),
    ("86400", "SSSSS"),
    ("25:00", "HH24:MI"),
    ("10:60", "HH24:MI"),
    ("1st 2024", "DDTH YYYY"),
    ("2nd Jan 2024", "DDth Mon YYYY"),
    ("  5  Jan  2024", "DD Mon YYYY"),
    ("5Jan2024", "FMDDMonYYYY"),
    ("2024-01-05T10:00", "YYYY-MM-DD\"T\"HH24:MI"),
    ("2024-01-05x10:00", "YYYY-MM-DD\"T\"HH24:MI"),
    ("2024 foo 01", "YYYY \"foo\" MM"),
    ("99999999999", "YYYY"),
    ("-5", "YYYY"),
    ("+2024", "YYYY"),
    ("2024-01-05 10:00", "YYYY-MM-DD HH:MI"),
    ("5874898-01-01", "YYYY-MM-DD"),
    ("4714-11-24 BC", "YYYY-MM-DD BC"),
    ("4714-11-23 BC", "YYYY-MM-DD BC"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_texts_and_errors() {
    let (_kpg, _pg, s) = setup().await;
    for (text, picture) in FIXED {
        both(&s, text, picture).await;
    }
    s.check_or_error("SELECT to_date(NULL, 'YYYY'), to_timestamp('2024', NULL)")
        .await;
    s.check_or_error("SELECT to_date(2024, 'YYYY')").await;
    s.check_or_error("SELECT to_timestamp('294277-01-01', 'YYYY-MM-DD')")
        .await;
    // kpg's dates end in the year 262143; PostgreSQL's timestamps go on to 294276 and its
    // dates further: refused (0A000), as input of such values is.
    for f in ["to_date", "to_timestamp"] {
        let sql = format!("SELECT {f}('275760-01-01', 'YYYY-MM-DD')");
        simple(&s.pg, &sql).await.expect("PostgreSQL holds it");
        let (code, msg) = expect_error(&s.kpg, &sql).await;
        assert_eq!(code, "0A000", "{msg}");
    }
    // A text without an offset is read in the session's zone.
    for zone in ["'America/New_York'", "'Asia/Kolkata'", "'+05:30'"] {
        s.exec(&format!("SET TimeZone = {zone}")).await;
        for (text, picture) in [
            ("2024-03-10 02:30", "YYYY-MM-DD HH24:MI"),
            ("2024-11-03 01:30", "YYYY-MM-DD HH24:MI"),
            ("2024-07-01 12:00 +02", "YYYY-MM-DD HH24:MI TZH"),
        ] {
            both(&s, text, picture).await;
        }
    }
}

/// A small deterministic generator (no dependency needed for a few hundred draws).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len() as u64) as usize]
    }
}

/// A random picture: a date part, then maybe a time part, with random separators and
/// modifiers.
fn picture(r: &mut Lcg) -> String {
    let sep = |r: &mut Lcg| r.pick(&["-", "/", " ", ".", "", "  ", ","]).to_string();
    let fm = |r: &mut Lcg| r.pick(&["", "", "FM"]).to_string();
    let date = match r.next(7) {
        0 => format!("{}YYYY{}{}MM{}{}DD", fm(r), sep(r), fm(r), sep(r), fm(r)),
        1 => format!("{}DD{}Mon{}YYYY", fm(r), sep(r), sep(r)),
        2 => format!("Day{}{}DD{}Month{}YYYY", sep(r), fm(r), sep(r), sep(r)),
        3 => format!("IYYY{}IW{}ID", sep(r), sep(r)),
        4 => format!("YYYY{}DDD", sep(r)),
        5 => format!("{}DD{}RM{}YY", fm(r), sep(r), sep(r)),
        _ => "J".to_string(),
    };
    let time = match r.next(5) {
        0 => String::new(),
        1 => format!(" {}HH24:MI:SS", fm(r)),
        2 => format!(" HH12:MI {}", r.pick(&["AM", "PM", "a.m."])),
        3 => format!(" HH24:MI:SS.{}", r.pick(&["MS", "US", "FF1", "FF3", "FF6"])),
        _ => " SSSSS".to_string(),
    };
    let era = if r.next(8) == 0 { " BC" } else { "" };
    format!("{date}{time}{era}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn texts_to_char_writes_read_back() {
    let (_kpg, _pg, s) = setup().await;
    let mut r = Lcg(20_261_128);
    for _ in 0..150 {
        let p = picture(&mut r);
        let ts = format!(
            "timestamp '{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}'",
            1 + r.next(2999),
            1 + r.next(12),
            1 + r.next(28),
            r.next(24),
            r.next(60),
            r.next(60),
            r.next(1_000_000)
        );
        let sql = format!("SELECT to_char({ts}, {})", quote(&p));
        let rows = simple(&s.pg, &sql).await.expect("PostgreSQL's to_char");
        let text = rows.rows[0][0].clone().expect("not NULL");
        both(&s, &text, &p).await;
        // The same text damaged: a character dropped, blanks added.
        let cut = r.next(text.len() as u64 + 1) as usize;
        if text.is_char_boundary(cut) && cut < text.len() {
            let mut damaged = text.clone();
            damaged.remove(cut);
            both(&s, &damaged, &p).await;
            let mut spaced = text.clone();
            spaced.insert_str(cut, "  ");
            both(&s, &spaced, &p).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintained_in_a_view_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE d (id int, t text, p text)").await;
    s.exec(
        "INSERT INTO d VALUES (1, '2024-01-05', 'YYYY-MM-DD'), \
         (2, '05 Jan 2024 10:30 PM', 'DD Mon YYYY HH:MI AM')",
    )
    .await;
    let queries = [
        "SELECT id, to_date(t, p) AS a, to_timestamp(t, p) AS b FROM d",
        "SELECT to_date(t, p) AS k, count(*) FROM d GROUP BY 1",
    ];
    let writes = [
        "INSERT INTO d VALUES (3, '2451545', 'J'), (4, NULL, 'YYYY')",
        "DELETE FROM d WHERE id = 1",
        "UPDATE d SET t = '2024 100' , p = 'YYYY DDD' WHERE id = 2",
    ];
    s.check_through_writes(&queries, "ttv", &writes).await;
}

//! SQLite's sqllogictest corpus (the subset in `/work/shared/conformance/sqlite/`, see its
//! README) run over the wire against a real kpg server, judged as the engine `postgresql`.
//!
//! The `.test` format is parsed here: records separated by blank lines, each optionally
//! preceded by `skipif <engine>` / `onlyif <engine>` conditions; `statement ok|error`,
//! `query <types> <sort> [label]` with the expected values after `----`, `hash-threshold n`
//! and `halt`. Values are formatted as SQLite's reference runner does: `I` truncated toward
//! zero (booleans as 0/1), `R` with `%.3f`, `T` as text with `(empty)` for the empty string,
//! and `NULL` for null in every column type. Expected results are either one value per line or
//! `N values hashing to <md5>`, the MD5 of the sorted values each followed by a newline.
//!
//! Each file runs in its own test with its own server, so the files run in parallel. A test
//! prints its pass/fail counts and the first failures with their reasons, and fails when the
//! number of passing records drops below the floor measured for that file, so regressions are
//! caught and improvements raise the floors.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::{Client, SimpleQueryMessage};
use kpg_tests::*;

const CORPUS: &str = "/work/shared/conformance/sqlite";
const ENGINE: &str = "postgresql";
/// How long one statement may take before it counts as failed (and the session is replaced).
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(20);
/// How many failures each file reports in detail.
const SHOWN_FAILURES: usize = 8;

#[derive(Debug)]
enum Sort {
    No,
    Row,
    Value,
}

#[derive(Debug)]
enum Record {
    Statement {
        ok: bool,
        sql: String,
    },
    Query {
        types: Vec<char>,
        sort: Sort,
        sql: String,
        expected: Vec<String>,
    },
    Halt,
}

struct Located {
    line: usize,
    record: Record,
}

/// Parses a `.test` file into the records that run for `ENGINE`.
fn parse(text: &str) -> Vec<Located> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // One record: conditions, a header, its body, up to a blank line.
        let start = i;
        let mut skip = false;
        let mut header = None;
        while i < lines.len() && !lines[i].trim().is_empty() {
            let line = lines[i];
            i += 1;
            if line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["skipif", engine, ..] => skip |= *engine == ENGINE,
                ["onlyif", engine, ..] => skip |= *engine != ENGINE,
                _ => {
                    header = Some((i, words.iter().map(|w| w.to_string()).collect::<Vec<_>>()));
                    break;
                }
            }
        }
        let Some((header_line, words)) = header else {
            i = i.max(start + 1);
            continue;
        };
        let mut body = Vec::new();
        while i < lines.len() && !lines[i].trim().is_empty() {
            body.push(lines[i]);
            i += 1;
        }
        let record = match words[0].as_str() {
            "statement" => Record::Statement {
                ok: words.get(1).map(String::as_str) == Some("ok"),
                sql: body.join("\n"),
            },
            "query" => {
                let split = body.iter().position(|l| *l == "----");
                let (sql, expected) = match split {
                    Some(p) => (&body[..p], &body[p + 1..]),
                    None => (&body[..], &[][..]),
                };
                Record::Query {
                    types: words.get(1).map_or(vec![], |t| t.chars().collect()),
                    sort: match words.get(2).map(String::as_str) {
                        Some("rowsort") => Sort::Row,
                        Some("valuesort") => Sort::Value,
                        _ => Sort::No,
                    },
                    sql: sql.join("\n"),
                    expected: expected.iter().map(|l| l.to_string()).collect(),
                }
            }
            "halt" => Record::Halt,
            // hash-threshold only matters to a runner that writes expectations.
            _ => continue,
        };
        if !skip {
            let halt = matches!(record, Record::Halt);
            out.push(Located {
                line: header_line,
                record,
            });
            if halt {
                break;
            }
        }
    }
    out
}

/// One value as SQLite's reference runner prints it for column type `ty`.
fn format_value(v: Option<&str>, ty: char) -> String {
    let Some(v) = v else {
        return "NULL".into();
    };
    match ty {
        'I' => match v {
            "t" => "1".into(),
            "f" => "0".into(),
            _ => match v.parse::<i64>() {
                Ok(i) => i.to_string(),
                Err(_) => match v.parse::<f64>() {
                    Ok(f) => format!("{}", f.trunc() as i64),
                    Err(_) => "0".into(),
                },
            },
        },
        'R' => match v.parse::<f64>() {
            Ok(f) => format!("{f:.3}"),
            Err(_) => "0.000".into(),
        },
        _ if v.is_empty() => "(empty)".into(),
        _ => v
            .chars()
            .map(|c| if (' '..='~').contains(&c) { c } else { '@' })
            .collect(),
    }
}

/// Runs one SQL text; `Ok(rows)` (empty for statements) or the error's text.
async fn run(client: &Client, sql: &str) -> Result<Rows, String> {
    match tokio::time::timeout(STATEMENT_TIMEOUT, client.simple_query(sql)).await {
        Err(_) => Err(format!("timed out after {STATEMENT_TIMEOUT:?}")),
        Ok(Err(e)) => Err(describe_error(&e)),
        Ok(Ok(msgs)) => Ok(msgs
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                ),
                _ => None,
            })
            .collect()),
    }
}

/// Checks a query's rows against the expected values; `Err` says why they differ.
fn check_query(
    types: &[char],
    sort: &Sort,
    rows: Rows,
    expected: &[String],
    scan_order_quirk: bool,
) -> Result<(), String> {
    let mut formatted: Vec<Vec<String>> = Vec::with_capacity(rows.len());
    for row in &rows {
        if row.len() != types.len() {
            return Err(format!(
                "{} columns returned, {} expected",
                row.len(),
                types.len()
            ));
        }
        formatted.push(
            row.iter()
                .zip(types)
                .map(|(v, t)| format_value(v.as_deref(), *t))
                .collect(),
        );
    }
    let values: Vec<String> = match sort {
        Sort::Row if scan_order_quirk => formatted.into_iter().flatten().collect(),
        Sort::Row => {
            formatted.sort();
            formatted.into_iter().flatten().collect()
        }
        Sort::Value => {
            let mut v: Vec<String> = formatted.into_iter().flatten().collect();
            v.sort();
            v
        }
        Sort::No => formatted.into_iter().flatten().collect(),
    };
    if let [line] = expected {
        if let Some((n, hash)) = line.split_once(" values hashing to ") {
            let mut text = String::new();
            for v in &values {
                text.push_str(v);
                text.push('\n');
            }
            let got = md5_hex(text.as_bytes());
            return if n.parse::<usize>().ok() == Some(values.len()) && got == hash {
                Ok(())
            } else {
                Err(format!(
                    "expected {n} values hashing to {hash}, got {} values hashing to {got}: {}",
                    values.len(),
                    preview(&values)
                ))
            };
        }
    }
    if values == expected {
        Ok(())
    } else {
        Err(format!(
            "expected [{}], got [{}]",
            expected.join(", "),
            preview(&values)
        ))
    }
}

fn preview(values: &[String]) -> String {
    let shown: Vec<&str> = values.iter().take(12).map(String::as_str).collect();
    let more = if values.len() > 12 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

struct Outcome {
    passed: usize,
    failed: usize,
    failures: Vec<String>,
}

async fn run_file(name: &str, floor: usize) {
    let path = format!("{CORPUS}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let records = parse(&text);
    let server = KpgServer::start().await;
    let mut client = server.connect().await;
    let started = Instant::now();
    let quirk = name == "select2.test";
    let mut out = Outcome {
        passed: 0,
        failed: 0,
        failures: Vec::new(),
    };
    for Located { line, record } in &records {
        let (sql, verdict) = match record {
            Record::Halt => break,
            Record::Statement { ok, sql } => {
                let result = run(&client, sql).await;
                let verdict = match (ok, result) {
                    (true, Ok(_)) | (false, Err(_)) => Ok(()),
                    (true, Err(e)) => Err(format!("statement failed: {e}")),
                    (false, Ok(_)) => Err("statement succeeded, an error was expected".into()),
                };
                (sql, verdict)
            }
            Record::Query {
                types,
                sort,
                sql,
                expected,
            } => {
                let verdict = match run(&client, sql).await {
                    Ok(rows) => {
                        let quirk = quirk && matches!(sort, Sort::Row) && types.contains(&'R');
                        check_query(types, sort, rows, expected, quirk)
                    }
                    Err(e) => Err(format!("query failed: {e}")),
                };
                (sql, verdict)
            }
        };
        match verdict {
            Ok(()) => out.passed += 1,
            Err(reason) => {
                out.failed += 1;
                if reason.contains("timed out") || client.is_closed() {
                    client = server.connect().await;
                }
                if out.failures.len() < SHOWN_FAILURES {
                    let sql: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
                    out.failures
                        .push(format!("  {name}:{line}: {sql}\n    {reason}"));
                }
            }
        }
    }
    eprintln!(
        "{name}: {} passed, {} failed of {} records run ({:.1}s)",
        out.passed,
        out.failed,
        out.passed + out.failed,
        started.elapsed().as_secs_f64()
    );
    for f in &out.failures {
        eprintln!("{f}");
    }
    assert!(
        out.passed >= floor,
        "{name}: {} records passed, fewer than the floor of {floor}",
        out.passed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select1() {
    run_file("select1.test", 1031).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select2() {
    run_file("select2.test", 1031).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in1() {
    run_file("in1.test", 128).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in2() {
    run_file("in2.test", 45).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slt_lang_aggfunc() {
    run_file("slt_lang_aggfunc.test", 5).await;
}

/// MD5 of `data` as lowercase hex: the digest sqllogictest uses for long results.
fn md5_hex(data: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn md5_matches_rfc_1321() {
    assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(
        md5_hex(b"The quick brown fox jumps over the lazy dog"),
        "9e107d9d372bb6826bd81d3542a419d6"
    );
}

//! Session statements, COPY and statement kinds are read into kpg's own types at parse time
//! (the server routes by these, never by sqlparser's tree): each form and what it becomes.

use crate::{
    parse, CopyFormat, ParsedStatement as P, SessionStatement as S, SetValue, ShowObjects,
    StatementKind as K, TransactionMode, TransactionStatement as T,
};

fn one(sql: &str) -> P {
    let mut stmts = parse(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(stmts.len(), 1, "{sql}");
    stmts.remove(0)
}

fn set(name: &str, value: SetValue, local: bool) -> P {
    P::Session(S::Set {
        name: name.into(),
        value,
        local,
    })
}

fn text(v: &str) -> SetValue {
    SetValue::Text(v.into())
}

fn refused_code(sql: &str) -> &'static str {
    match one(sql) {
        P::Refused(e) => e.code,
        other => panic!("{sql} was not refused: {other:?}"),
    }
}

#[test]
fn set_reset_show() {
    assert_eq!(
        one("SET DateStyle = 'ISO, DMY'"),
        set("datestyle", text("ISO, DMY"), false)
    );
    assert_eq!(
        one("SET LOCAL work_mem TO 64"),
        set("work_mem", text("64"), true)
    );
    assert_eq!(
        one("SET statement_timeout = DEFAULT"),
        set("statement_timeout", SetValue::Default, false)
    );
    // A search path keeps quoted names quoted; lists are joined by ", ".
    assert_eq!(
        one(r#"SET search_path = public, "My Schema""#),
        set("search_path", text(r#"public, "My Schema""#), false)
    );
    assert_eq!(
        one("SET TIME ZONE 'Asia/Tokyo'"),
        set("timezone", text("Asia/Tokyo"), false)
    );
    assert_eq!(
        one("SET LOCAL TIME ZONE LOCAL"),
        set("timezone", SetValue::Default, true)
    );
    assert_eq!(
        one("SET NAMES 'UTF8'"),
        set("client_encoding", text("UTF8"), false)
    );
    assert_eq!(one("RESET ALL"), P::Session(S::Reset { name: None }));
    assert_eq!(
        one("RESET TimeZone"),
        P::Session(S::Reset {
            name: Some("timezone".into())
        })
    );
    assert_eq!(
        one("SHOW TIME ZONE"),
        P::Session(S::Show {
            name: "timezone".into()
        })
    );
    assert_eq!(
        one("SHOW transaction isolation level"),
        P::Session(S::Show {
            name: "transaction isolation level".into()
        })
    );
    assert_eq!(
        one("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE"),
        P::Session(S::SetTransaction {
            modes: vec![
                TransactionMode::Isolation("serializable".into()),
                TransactionMode::ReadWrite
            ],
            snapshot: false,
            session: true,
        })
    );
}

#[test]
fn transaction_control_and_deallocate() {
    assert_eq!(one("BEGIN"), P::Transaction(T::Begin));
    assert_eq!(
        one("START TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        P::Transaction(T::Begin)
    );
    assert_eq!(one("END"), P::Transaction(T::Commit));
    assert_eq!(one("ROLLBACK"), P::Transaction(T::Rollback));
    assert_eq!(one("SAVEPOINT a"), P::Transaction(T::Savepoint("a".into())));
    assert_eq!(
        one(r#"RELEASE SAVEPOINT "B""#),
        P::Transaction(T::Release("B".into()))
    );
    assert_eq!(
        one("ROLLBACK TO SAVEPOINT C"),
        P::Transaction(T::RollbackTo("c".into()))
    );
    assert_eq!(one("DEALLOCATE ALL"), P::Deallocate { name: None });
    assert_eq!(
        one("DEALLOCATE PREPARE S1"),
        P::Deallocate {
            name: Some("s1".into())
        }
    );
    assert_eq!(
        one(r#"DEALLOCATE "all""#),
        P::Deallocate {
            name: Some("all".into())
        }
    );
}

#[test]
fn catalog_listings() {
    assert_eq!(one("SHOW TABLES"), P::ShowObjects(ShowObjects::Tables));
    assert_eq!(
        one("SHOW MATERIALIZED VIEWS"),
        P::ShowObjects(ShowObjects::MaterializedViews)
    );
    assert_eq!(one("SHOW SOURCES"), P::ShowObjects(ShowObjects::Sources));
    assert_eq!(
        one("SHOW INDEXES"),
        P::ShowObjects(ShowObjects::Indexes(None))
    );
    assert_eq!(
        one("SHOW INDEXES ON Orders"),
        P::ShowObjects(ShowObjects::Indexes(Some("orders".into())))
    );
    assert_eq!(
        one(r#"SHOW COLUMNS FROM "Mixed""#),
        P::ShowObjects(ShowObjects::Columns("Mixed".into()))
    );
    assert_eq!(refused_code("SHOW INDEXES IN x y"), "42601");
}

#[test]
fn copy_statements() {
    let P::CopyFrom(from) = one(r#"COPY "T" (A, b) FROM STDIN WITH (FORMAT csv, HEADER true)"#)
    else {
        panic!("COPY FROM")
    };
    assert_eq!(from.table, "T");
    assert_eq!(from.columns, vec!["a".to_string(), "b".to_string()]);
    assert_eq!(
        from.format,
        Ok(CopyFormat::Csv {
            delimiter: b',',
            quote: b'"',
            null: String::new(),
            header: true
        })
    );
    // A bad format is reported after the table is found, as PostgreSQL does.
    let P::CopyFrom(bad) = one("COPY t FROM STDIN WITH (FORMAT binary)") else {
        panic!("COPY FROM")
    };
    assert_eq!(bad.format.unwrap_err().code, "0A000");
    let P::CopyTo(to) = one("COPY t (x) TO STDOUT") else {
        panic!("COPY TO")
    };
    assert_eq!(to.query.kind(), K::Query);
    assert_eq!(to.query.computing_sql().as_deref(), Some("SELECT x FROM t"));
    assert_eq!(
        to.format,
        CopyFormat::Text {
            delimiter: '\t',
            null: "\\N".into()
        }
    );
    assert_eq!(refused_code("COPY t TO '/tmp/x'"), "0A000");
    assert_eq!(refused_code("COPY t FROM '/tmp/x'"), "0A000");
    assert_eq!(
        refused_code("COPY t TO STDOUT WITH (FORMAT text, HEADER true)"),
        "0A000"
    );
}

#[test]
fn statement_kinds() {
    assert_eq!(one("SELECT 1").kind(), K::Query);
    assert_eq!(one("SELECT 1 INTO t").kind(), K::SelectInto);
    assert_eq!(
        one("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING").kind(),
        K::Insert {
            returning: false,
            on_conflict: true
        }
    );
    assert!(one("DELETE FROM t RETURNING *").kind().returns_rows());
    assert!(!one("UPDATE t SET a = 1").kind().returns_rows());
    assert_eq!(
        one("CREATE OR REPLACE VIEW v AS SELECT 1").kind(),
        K::CreateView {
            or_replace: true,
            materialized: false
        }
    );
    assert_eq!(one("ALTER TABLE t RENAME TO u").kind(), K::Alter);
    assert_eq!(one("TRUNCATE t").kind(), K::Truncate);
    assert_eq!(one("BEGIN").kind(), K::Other);
    assert_eq!(
        one("SELECT a FROM T WHERE a > 1")
            .single_table_read()
            .as_deref(),
        Some("t")
    );
    assert_eq!(
        one("SELECT a FROM t JOIN u ON true").single_table_read(),
        None
    );
    assert_eq!(
        one("CREATE VIEW v AS SELECT a FROM t")
            .view_query_sql()
            .as_deref(),
        Some("SELECT a FROM t")
    );
}

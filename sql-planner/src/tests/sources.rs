//! `CREATE SOURCE ... FROM LOAD GENERATOR` and `DROP SOURCE`: what they plan into, and the
//! errors for what they refuse.

use super::*;
use kpg_types::LoadGenerator;

fn planned(sql: &str) -> PlannedStatement {
    let stmt = parse(sql).unwrap().remove(0);
    plan(&stmt, &catalog()).unwrap_or_else(|e| panic!("{sql}: {e:?}"))
}

#[test]
fn tpch_source_exports_itself_and_one_subsource_per_table() {
    let PlannedStatement::CreateSource {
        name,
        generator,
        exports,
        sql,
        if_not_exists,
    } = planned(
        "create source if not exists tp from load generator tpch \
         (scale factor 0.5, tick interval '250ms') for all tables",
    )
    else {
        panic!("not a CREATE SOURCE");
    };
    assert_eq!(name, "tp");
    assert!(if_not_exists);
    assert_eq!(
        generator,
        LoadGenerator::Tpch {
            scale_factor: 0.5,
            tick_ms: 250
        }
    );
    let names: Vec<&str> = exports.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "tp", "region", "nation", "supplier", "part", "partsupp", "customer", "orders",
            "lineitem"
        ]
    );
    assert_eq!(exports[0].output, None);
    assert_eq!(exports[0].desc.arity(), 0);
    assert_eq!(exports[8].output, Some(7));
    let lineitem: Vec<String> = exports[8]
        .desc
        .columns
        .iter()
        .map(|(n, t)| format!("{n} {}", t.scalar))
        .collect();
    assert_eq!(lineitem[4], "l_quantity numeric(15,2)");
    assert_eq!(lineitem[8], "l_returnflag character(1)");
    assert_eq!(lineitem[15], "l_comment character varying(44)");
    // The SQL spells every option out and plans to the same thing again.
    assert_eq!(
        sql,
        "CREATE SOURCE tp FROM LOAD GENERATOR TPCH (SCALE FACTOR 0.5, TICK INTERVAL '250ms') \
         FOR TABLES (region, nation, supplier, part, partsupp, customer, orders, lineitem)"
    );
    let PlannedStatement::CreateSource {
        generator: again,
        exports: again_exports,
        ..
    } = planned(&sql)
    else {
        panic!("not a CREATE SOURCE");
    };
    assert_eq!(again, generator);
    assert_eq!(again_exports, exports);
}

#[test]
fn chosen_tables_and_aliases() {
    let PlannedStatement::CreateSource { exports, sql, .. } =
        planned("CREATE SOURCE s FROM LOAD GENERATOR TPCH FOR TABLES (lineitem AS li, Nation)")
    else {
        panic!("not a CREATE SOURCE");
    };
    let outputs: Vec<(&str, Option<usize>)> = exports
        .iter()
        .map(|e| (e.name.as_str(), e.output))
        .collect();
    assert_eq!(outputs, [("s", None), ("li", Some(7)), ("nation", Some(1))]);
    assert!(
        sql.contains(
            "(SCALE FACTOR 0.01, TICK INTERVAL '1000ms') FOR TABLES (lineitem AS li, nation)"
        ),
        "{sql}"
    );
}

#[test]
fn counter_source_is_its_own_relation() {
    let PlannedStatement::CreateSource {
        generator, exports, ..
    } = planned(
        "CREATE SOURCE c FROM LOAD GENERATOR COUNTER (TICK INTERVAL = '2s', MAX CARDINALITY 7)",
    )
    else {
        panic!("not a CREATE SOURCE");
    };
    assert_eq!(
        generator,
        LoadGenerator::Counter {
            tick_ms: 2000,
            max_cardinality: Some(7)
        }
    );
    assert_eq!(exports.len(), 1);
    assert_eq!(exports[0].output, Some(0));
    assert_eq!(exports[0].desc.columns[0].0, "counter");
    assert_eq!(exports[0].desc.columns[0].1.scalar, ScalarType::Int64);
}

#[test]
fn bad_sources_are_refused_with_their_sqlstate() {
    for (sql, expected) in [
        // No FOR clause on a generator with several outputs, or one on a single output.
        ("CREATE SOURCE s FROM LOAD GENERATOR TPCH", "42601"),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR COUNTER FOR ALL TABLES",
            "42601",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR TPCH (MAX CARDINALITY 3) FOR ALL TABLES",
            "42601",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR TPCH (SCALE FACTOR 0) FOR ALL TABLES",
            "22023",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR TPCH (SCALE FACTOR 'x') FOR ALL TABLES",
            "22023",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR COUNTER (TICK INTERVAL '0s')",
            "22023",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR COUNTER (TICK INTERVAL '1 mon')",
            "22023",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR COUNTER (TICK INTERVAL 'soon')",
            "22023",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR COUNTER (MAX CARDINALITY -1)",
            "22023",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR TPCH FOR TABLES (nope)",
            "42P01",
        ),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR TPCH FOR TABLES (orders, lineitem AS orders)",
            "42P07",
        ),
        // A subsource would take the name of an existing relation.
        (
            "CREATE SOURCE s FROM LOAD GENERATOR TPCH FOR TABLES (orders AS t)",
            "42P07",
        ),
        ("CREATE SOURCE s FROM LOAD GENERATOR CLOCK", "0A000"),
        ("CREATE SOURCE s FROM WEBHOOK BODY FORMAT TEXT", "0A000"),
        ("CREATE SOURCE s FROM LOAD GENERATOR", "42601"),
        (
            "CREATE SOURCE s FROM LOAD GENERATOR COUNTER (TICK INTERVAL '1s'",
            "42601",
        ),
        ("DROP SOURCE nope", "42P01"),
        ("DROP SOURCE t", "42809"),
    ] {
        assert_eq!(code(sql), expected, "{sql}: {:?}", err(sql));
    }
    assert!(
        matches!(planned("DROP SOURCE IF EXISTS nope, nada CASCADE"), PlannedStatement::Drop { ids, cascade: true, .. } if ids.is_empty())
    );
}

// A node-postgres (npm `pg`, pure JavaScript) session against kpg or PostgreSQL, printing a
// transcript of what it sees.
//
// Run by tests/tests/drivers.rs once against kpg and once against the PostgreSQL oracle; the two
// transcripts must be equal (tests/tests/drivers.rs lists the known kpg gaps it shows). Covers
// connecting, DDL, INSERT/SELECT/UPDATE/DELETE with `$n` parameters (node-postgres sends every
// value as text of unknown type, so the server infers the types: numbers, BigInts, numeric
// strings, text, booleans, Dates, NULL), pipelined queries (`pipeline: true`), named prepared
// statements run several times, `rowMode: 'array'`, the decoded JavaScript values (node-postgres
// parses by the column's type OID, so each value is printed with its `typeof` and each column
// with its type OID, size and modifier), command tags and row counts, a multi-statement simple
// query, an information_schema query, transactions (committed, rolled back, failed: 25P02), a
// query cursor (DECLARE / FETCH) and errors (their SQLSTATEs). Not binary results:
// node-postgres decodes every DataRow value as UTF-8 text first, so `binary: true` garbles most
// types.
//
// With --subscribe (kpg only), it also follows a subscription through a cursor (BEGIN; DECLARE c
// CURSOR FOR SUBSCRIBE ...; FETCH ALL c WITH (TIMEOUT = ...)), checks its snapshot against a
// SELECT, sees an INSERT made on another connection arrive, and cancels a waiting FETCH with a
// CancelRequest.
//
//   NODE_PATH=target/clients/node/node_modules node node_pg_scenario.js postgres://U@HOST:PORT/DB [--subscribe]

'use strict'

const pg = require('pg')

function out(...parts) {
  console.log(parts.join(' '))
}

function pad(n, width = 2) {
  return String(n).padStart(width, '0')
}

// A decoded value with its JavaScript type, the same whatever the process's time zone.
function show(v) {
  if (v === null) return 'null'
  if (v instanceof Date) {
    let s = `${pad(v.getFullYear(), 4)}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}`
    if (v.getHours() || v.getMinutes() || v.getSeconds() || v.getMilliseconds()) {
      s += ` ${pad(v.getHours())}:${pad(v.getMinutes())}:${pad(v.getSeconds())}.${pad(v.getMilliseconds(), 3)}`
    }
    return `Date(${s})`
  }
  if (Buffer.isBuffer(v)) return `Buffer(${v.toString('hex')})`
  if (typeof v === 'object') return `${v.constructor.name}${JSON.stringify(v)}`
  if (typeof v === 'string') return `string:${JSON.stringify(v)}`
  return `${typeof v}:${String(v)}`
}

// Each column as name:dataTypeID/dataTypeSize/dataTypeModifier (type OID, typlen, typmod).
function fields(res) {
  return '[' + res.fields.map((f) => `${f.name}:${f.dataTypeID}/${f.dataTypeSize}/${f.dataTypeModifier}`).join(', ') + ']'
}

function rows(res) {
  return (
    '[' +
    res.rows
      .map((r) =>
        Array.isArray(r)
          ? '(' + r.map(show).join(', ') + ')'
          : '{' + Object.entries(r).map(([k, v]) => `${k}=${show(v)}`).join(', ') + '}'
      )
      .join(', ') +
    ']'
  )
}

// The command tag as node-postgres reports it (rowCount is null for tags without a count).
// (Transaction statuses are printed only after a query that succeeded: a failed query's promise
// settles on the ErrorResponse, before the ReadyForQuery that carries the new status.)
function tag(res) {
  return `${res.command} ${res.rowCount}`
}

async function expectError(conn, what, query) {
  try {
    const res = await conn.query(query)
    out('error expected', what, 'got', tag(res), rows(res))
  } catch (e) {
    if (!e.code) throw e
    out('error', what, e.code, e.severity)
  }
}

async function main() {
  const url = process.argv[2]
  const subscribe = process.argv.slice(3).includes('--subscribe')
  const conn = new pg.Client({ connectionString: url })
  await conn.connect()
  out('connected', conn.getTransactionStatus())

  let res = await conn.query(
    'CREATE TABLE items (id int4 NOT NULL, big int8, name text, code varchar(8), ' +
      'ok boolean, price numeric(10,2), score double precision, day date)'
  )
  out('create', tag(res))

  const insert = 'INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7, $8)'
  res = await conn.query(insert, [1, 10n ** 10n, 'one', 'A1', true, '12.50', 0.5, '2024-01-31'])
  out('insert', tag(res))
  // A number for the numeric.
  res = await conn.query(insert, [2, -2, "it's two", 'B2', false, 0.01, -1e10, '1999-12-31'])
  out('insert', tag(res))
  res = await conn.query(insert, [3, null, null, null, null, null, null, undefined])
  out('insert nulls', tag(res))

  // A pipelined connection: every INSERT is written before the first answer is read.
  const piped = new pg.Client({ connectionString: url, pipeline: true })
  await piped.connect()
  const results = await Promise.all(
    [4, 5, 6, 7, 8, 9].map((i) =>
      piped.query('INSERT INTO items (id, name, price, day) VALUES ($1, $2, $3, $4)', [
        i,
        `n${i}`,
        String(i / 4),
        `2020-01-${pad(i)}`,
      ])
    )
  )
  out('pipelined', results.map(tag).join(', '))
  await piped.end()

  const queries = [
    ['SELECT * FROM items WHERE id = $1', [1]],
    ['SELECT id, name FROM items WHERE name LIKE $1 ORDER BY id', ['n%']],
    ['SELECT id, day FROM items WHERE day > $1 ORDER BY id', ['2000-01-01']],
    ['SELECT id, price FROM items WHERE price BETWEEN $1 AND $2 ORDER BY id', ['0.5', 13]],
    ['SELECT id, big FROM items WHERE big IN ($1, $2) ORDER BY id', [10n ** 10n, '-2']],
    ['SELECT id, score FROM items WHERE score < $1 ORDER BY id', [1.0]],
    ['SELECT id, ok FROM items WHERE ok = $1', [true]],
    ['SELECT id, code FROM items WHERE code = $1', ['B2']],
    ['SELECT $1::int4 + id AS x, $2 AS label FROM items WHERE id < $3 ORDER BY id', [10, 'lbl', 3]],
    ['SELECT count(*) AS n, sum(price) AS total, avg(id) AS mean FROM items WHERE id > $1', [3]],
    ['SELECT id FROM items ORDER BY id LIMIT $1 OFFSET $2', [2, 1]],
    ['SELECT name FROM items WHERE name = $1', ["it's two"]],
    ['SELECT id FROM items WHERE name IS NOT DISTINCT FROM $1', [null]],
    ['SELECT id + 1, upper(name), $1 = id FROM items WHERE id = $1', [2]],
  ]
  for (const rowMode of [undefined, 'array']) {
    for (const [text, values] of queries) {
      res = await conn.query({ text, values, rowMode })
      out('query', rowMode ? 'arrays' : 'objects', text, fields(res), rows(res))
    }
  }

  // JavaScript Dates are sent as local timestamps with their UTC offset
  // ('1999-12-31T00:00:00.000+01:00'), which date and timestamp input read without the offset.
  for (const type of ['date', 'timestamp']) {
    try {
      res = await conn.query(`SELECT $1::${type} AS v`, [new Date(1999, 11, 31, type === 'date' ? 0 : 23, 59, 58, 250)])
      out('Date param', type, fields(res), rows(res))
    } catch (e) {
      if (!e.code) throw e
      out('Date param', type, 'error', e.code)
    }
  }

  // Values of many types, as node-postgres parses them by their type OIDs.
  res = await conn.query('SELECT 1::int2 AS i2')
  out('int2', fields(res), rows(res))
  res = await conn.query(
    'SELECT 2::int4 AS i4, 3::int8 AS i8, 1.50::numeric(4,2) AS n, 2.5::float8 AS f, ' +
      "true AS b, 'x'::text AS t, 'y'::varchar(3) AS v, 'z'::char(3) AS c, DATE '2024-02-29' AS d, " +
      "TIMESTAMP '2024-02-29 12:34:56.5' AS ts, INTERVAL '1 day 02:03:04' AS iv, NULL AS nul, " +
      "$1::int4 * 2 AS p, $2::date + 1 AS pd, $3::bool AS pb, $4::numeric AS pn, $5::int8 AS p8"
  , [21, '2024-12-31', 'yes', '-0.5', '9007199254740993'])
  out('types', fields(res), rows(res))
  res = await conn.query({ text: 'SELECT 1 AS one, 2 AS one', rowMode: 'array' })
  out('same names', fields(res), rows(res))

  // A named statement: parsed once, then only bound and executed.
  for (let i = 1; i <= 7; i++) {
    res = await conn.query({ name: 'name_by_id', text: 'SELECT name FROM items WHERE id = $1', values: [i] })
    out('prepared', i, fields(res), rows(res))
  }
  for (const [id, name] of [
    [10, 'ten'],
    [11, 'eleven'],
  ]) {
    res = await conn.query({ name: 'add', text: 'INSERT INTO items (id, name) VALUES ($1, $2)', values: [id, name] })
    out('prepared insert', id, tag(res))
  }

  res = await conn.query('UPDATE items SET name = $1, price = price + $2 WHERE id = $3', ['ONE', 1, 1])
  out('update', tag(res))
  res = await conn.query('DELETE FROM items WHERE id > $1', [9])
  out('delete', tag(res))

  // Several statements in one simple query: one result each.
  const multi = await conn.query(
    "INSERT INTO items (id, name) VALUES (30, 'multi'); SELECT id, name FROM items WHERE id >= 30; SELECT 2 AS two"
  )
  out('multi', multi.map((r) => `${tag(r)} ${fields(r)} ${rows(r)}`).join(' | '))

  res = await conn.query(
    'SELECT column_name::text AS col, data_type::text AS type FROM information_schema.columns ' +
      'WHERE table_name = $1 ORDER BY ordinal_position',
    ['items']
  )
  out('information_schema', fields(res), rows(res))

  // Transactions: committed, rolled back, and failed (then rolled back).
  out('begin', tag(await conn.query('BEGIN')), conn.getTransactionStatus())
  await conn.query('INSERT INTO items (id, name) VALUES ($1, $2)', [20, 'committed'])
  out('commit', tag(await conn.query('COMMIT')), conn.getTransactionStatus())
  await conn.query('BEGIN')
  await conn.query('INSERT INTO items (id, name) VALUES ($1, $2)', [21, 'rolled back'])
  out('rollback', tag(await conn.query('ROLLBACK')), conn.getTransactionStatus())
  await conn.query('BEGIN')
  await conn.query('INSERT INTO items (id, name) VALUES ($1, $2)', [22, 'failed'])
  await expectError(conn, 'in transaction', { text: 'INSERT INTO items (id) VALUES ($1)', values: ['abc'] })
  await expectError(conn, 'after failure', { text: 'INSERT INTO items (id) VALUES ($1)', values: [23] })
  out('rollback failed', tag(await conn.query('ROLLBACK')), conn.getTransactionStatus())

  // A cursor over a query, read a few rows at a time.
  await conn.query('BEGIN')
  res = await conn.query('DECLARE q CURSOR FOR SELECT id, name FROM items WHERE id > 3 ORDER BY id')
  out('declare', tag(res))
  for (const fetch of ['FETCH 2 q', 'FETCH q', 'FETCH ALL q', 'FETCH ALL q']) {
    res = await conn.query(fetch)
    out(fetch, tag(res), fields(res), rows(res))
  }
  out('close', tag(await conn.query('CLOSE q')))
  await conn.query('COMMIT')

  for (const [what, query] of [
    ['bad int', { text: 'SELECT * FROM items WHERE id = $1', values: ['abc'] }],
    ['missing table', { text: 'SELECT * FROM missing WHERE id = $1', values: [1] }],
    ['missing column', 'SELECT nope FROM items'],
    ['syntax', 'SELEC 1'],
    ['not null', { text: 'INSERT INTO items (id) VALUES ($1)', values: [null] }],
    ['division by zero', { text: 'SELECT id / $1 FROM items', values: [0] }],
    ['fetch outside transaction', 'FETCH 1 nope'],
  ]) {
    await expectError(conn, what, query)
  }
  out('after errors', tag(await conn.query('SELECT 1')), conn.getTransactionStatus())

  res = await conn.query('SELECT * FROM items ORDER BY id')
  out('final', fields(res))
  for (const r of res.rows) {
    out('row', rows({ rows: [r] }))
  }

  if (subscribe) {
    await checkSubscription(url, conn)
  }
  await conn.end()
}

// Waits for `ms` milliseconds.
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

// Reads a subscription through a cursor: snapshot, then a change made elsewhere, then a waiting
// FETCH cancelled.
async function checkSubscription(url, conn) {
  const assert = require('assert')
  let res = await conn.query('SELECT id, name FROM items WHERE id > $1', [1])
  const expected = res.rows.map((r) => `${r.id}:${r.name}`).sort()

  await conn.query('BEGIN')
  await conn.query('DECLARE c CURSOR FOR SUBSCRIBE (SELECT id, name FROM items WHERE id > 1)')
  const snapshot = []
  let columns = null
  while (snapshot.length < expected.length) {
    res = await conn.query("FETCH ALL c WITH (TIMEOUT = '10s')")
    assert(res.rows.length > 0, 'no snapshot rows within the timeout')
    columns = fields(res)
    snapshot.push(...res.rows)
  }
  assert.strictEqual(snapshot.length, expected.length)
  assert.deepStrictEqual(snapshot.map((r) => `${r.id}:${r.name}`).sort(), expected)
  assert(snapshot.every((r) => r.mz_diff === '1'), JSON.stringify(snapshot))
  const ts = new Set(snapshot.map((r) => r.mz_timestamp))
  assert.strictEqual(ts.size, 1, JSON.stringify(snapshot))
  out('subscribe columns', columns)
  out('subscribe snapshot matches SELECT:', snapshot.length, 'rows')

  res = await conn.query("FETCH 10 c WITH (TIMEOUT = '0s')")
  out('subscribe nothing new', res.rows.length)

  const writer = new pg.Client({ connectionString: url })
  await writer.connect()
  await writer.query('INSERT INTO items (id, name) VALUES ($1, $2)', [100, 'hundred'])
  res = await conn.query("FETCH ALL c WITH (TIMEOUT = '10s')")
  assert.strictEqual(res.rows.length, 1, JSON.stringify(res.rows))
  const change = res.rows[0]
  assert.deepStrictEqual([change.mz_diff, change.id, change.name], ['1', 100, 'hundred'])
  assert(BigInt(change.mz_timestamp) > BigInt([...ts][0]), JSON.stringify([change, [...ts]]))
  out('subscribe saw insert at a later timestamp')

  // A FETCH without a timeout waits for the next change; cancel it (node-postgres sends the
  // CancelRequest from a new connection: Client.cancel). Sent again until the FETCH ends, in case
  // the first one arrives before the FETCH is running.
  const fetch = conn.query(new pg.Query('FETCH 1 c'))
  const ended = new Promise((resolve) => {
    fetch.on('error', (e) => resolve(e))
    fetch.on('end', () => resolve(null))
  })
  let err
  for (let i = 0; i < 40 && err === undefined; i++) {
    await sleep(250)
    new pg.Client({ connectionString: url }).cancel(conn, fetch)
    err = await Promise.race([ended, sleep(250).then(() => undefined)])
  }
  assert(err, `the FETCH was not cancelled: ${err}`)
  out('subscribe canceled', err.code)
  out('rollback', tag(await conn.query('ROLLBACK')), conn.getTransactionStatus())
  res = await conn.query({ text: 'SELECT count(*) FROM items WHERE id = $1', values: [100], rowMode: 'array' })
  out('after cancel', rows(res))
  await writer.end()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})

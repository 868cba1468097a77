// DuckDB side of bench_decode: times DuckDB's Parquet reader (@duckdb/node-api from tests/npm,
// single-threaded: SET threads=1) on the same files and column as rap's reader.
//
//   node duckdb_decode.mjs --npm-dir DIR --reps N --column v FILE...
//   node duckdb_decode.mjs --npm-dir DIR --write FILE --codec snappy|zstd|lz4|gzip|uncompressed --rows N
//
// --write makes the DuckDB-written fixture of the "duckdb 4-column" cases: N rows of i64 (BIGINT,
// spread over a wide range), f64 (DOUBLE), s (VARCHAR, 10% NULL, 10,000 distinct values) and
// low_card (BIGINT, 16 distinct values), row groups of 122,880 rows, the given codec. For a file
// with these columns the timed query is
//           SELECT sum(i64), sum(f64), sum(length(s)), sum(low_card)
//
// Per file, the query consumes every value of the column, so its pages are all decompressed and
// decoded: numbers  SELECT count(v), sum(v)           (min/max would be answered from statistics)
//           strings  SELECT count(v), sum(strlen(v))   (strlen: byte length of each value)
// One warm-up run, then N timed runs of runAndReadAll (query text to result): wall clock, and the
// process's CPU time (user + system, all threads), which a busy machine disturbs less.
// Prints one JSON line per file: {"file", "median_s", "median_cpu_s", "runs_s": [...], "cpu_runs_s": [...],
// "result": [...]}.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

function parseArgs(argv) {
  const out = { npmDir: null, reps: 5, column: 'v', files: [] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--npm-dir') out.npmDir = argv[++i];
    else if (a === '--reps') out.reps = Math.max(1, parseInt(argv[++i], 10));
    else if (a === '--column') out.column = argv[++i];
    else if (a === '--write') out.write = argv[++i];
    else if (a === '--codec') out.codec = argv[++i];
    else if (a === '--rows') out.rows = parseInt(argv[++i], 10);
    else out.files.push(a);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
if (!args.npmDir || (args.files.length === 0 && !args.write)) {
  console.error('usage: node duckdb_decode.mjs --npm-dir DIR [--reps N] [--column v] FILE...');
  process.exit(2);
}
let duckdb;
try {
  // Resolve the module from tests/npm (ES imports resolve from this file's folder, not the cwd).
  const require = createRequire(path.join(path.resolve(args.npmDir), 'package.json'));
  duckdb = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
} catch (e) {
  console.error(`@duckdb/node-api is not installed in ${args.npmDir} (scripts/install-npm-test-deps.sh): ${e}`);
  process.exit(3);
}

const instance = await duckdb.DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run('SET threads=1');
// Parquet metadata caching off: every run parses the footer again, as rap's runs do.
await conn.run('SET parquet_metadata_cache=false');
if (args.write) {
  const quoted = args.write.replaceAll("'", "''");
  const rows = args.rows > 0 ? args.rows : 1000000;
  await conn.run(
    `COPY (SELECT (hash(i) >> 2)::BIGINT - 1152921504606846976 AS i64, (hash(i * 3) % 1000000)::DOUBLE / 7.0 AS f64, ` +
    `CASE WHEN i % 10 = 3 THEN NULL ELSE 'value-' || (hash(i * 5) % 10000)::VARCHAR END AS s, ` +
    `(hash(i * 7) % 16)::BIGINT AS low_card FROM range(${rows}) t(i)) ` +
    `TO '${quoted}' (FORMAT parquet, COMPRESSION ${args.codec ?? 'snappy'}, ROW_GROUP_SIZE 122880)`);
  process.exit(0);
}
const col = `"${args.column.replaceAll('"', '""')}"`;
for (const file of args.files) {
  const quoted = file.replaceAll("'", "''");
  const typeRows = (await conn.runAndReadAll(`SELECT type FROM parquet_schema('${quoted}') WHERE name = '${args.column}'`))
    .getRows();
  const isString = typeRows.length > 0 && String(typeRows[0][0]) === 'BYTE_ARRAY';
  const lowCard = (await conn.runAndReadAll(`SELECT 1 FROM parquet_schema('${quoted}') WHERE name = 'low_card'`))
    .getRows().length > 0;
  const sql = lowCard
    ? `SELECT sum(i64), sum(f64), sum(length(s)), sum(low_card) FROM read_parquet('${quoted}')`
    : isString
    ? `SELECT count(${col}), sum(strlen(${col})) FROM read_parquet('${quoted}')`
    : `SELECT count(${col}), sum(${col}) FROM read_parquet('${quoted}')`;
  let result = null;
  const runs = [];
  const cpuRuns = [];
  for (let r = 0; r <= args.reps; ++r) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const reader = await conn.runAndReadAll(sql);
    const t1 = process.hrtime.bigint();
    const c1 = process.cpuUsage(c0);
    result = reader.getRows()[0].map((v) => (typeof v === 'bigint' ? v.toString() : v === null ? null : String(v)));
    if (r > 0) {  // run 0 is the warm-up
      runs.push(Number(t1 - t0) / 1e9);
      cpuRuns.push((c1.user + c1.system) / 1e6);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  process.stdout.write(
    JSON.stringify({ file, median_s: median(runs), median_cpu_s: median(cpuRuns), runs_s: runs, cpu_runs_s: cpuRuns, result, sql }) + '\n');
}

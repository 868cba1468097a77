// bench_lookup's peer for the index build: DuckDB runs the fragment SQL of docs/index-format.md
// ("Building an index with another engine") for every bucket.
//
//   node duckdb_build.mjs NPM_DIR THREADS SQL [SQL ...]
//
// Runs the statements in one in-memory DuckDB with THREADS threads and prints
// {"ms": wall milliseconds of all statements, "rows": the rows of the last statement}.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [npmDir, threads, ...statements] = process.argv.slice(2);
if (!npmDir || !threads || statements.length === 0) {
  console.error('usage: node duckdb_build.mjs NPM_DIR THREADS SQL [SQL ...]');
  process.exit(2);
}
try {
  const require = createRequire(path.join(path.resolve(npmDir), 'package.json'));
  const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await instance.connect();
  const t0 = process.hrtime.bigint();
  let rows = [];
  for (const sql of statements) rows = (await conn.runAndReadAll(sql)).getRowObjectsJS();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(JSON.stringify({ ms, rows }, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exit(1);
}

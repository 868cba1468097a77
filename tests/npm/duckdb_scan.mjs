// Times scan queries in DuckDB (@duckdb/node-api) for bench_scan (bench/scan.cc):
//   node duckdb_scan.mjs SPEC_JSON
// SPEC_JSON: {"reps": N, "threads": [1, 0], "queries": [{"name": ..., "sql": ...}, ...]}
// (threads 0 = DuckDB's default, one per core). Per thread setting a fresh in-memory instance; per
// query one untimed warm-up run, then N timed runs of `conn.run(sql)` — the whole result
// materialised in DuckDB's native chunks (no conversion to JS values) — and a check query for the
// result's row count and sum of its first column.
// cpu_s is the process's CPU time (user + system, every thread) per run: robust on a loaded machine.
// Output: one JSON document {"duckdb_version": ..., "results": [{name, threads, times_s, cpu_s, rows, sum}]}.
import { DuckDBInstance } from '@duckdb/node-api';

async function countRows(result) {
  let rows = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    rows += chunk.rowCount;
  }
  return rows;
}

const spec = JSON.parse(process.argv[2] ?? 'null');
if (!spec || !Array.isArray(spec.queries)) {
  console.error('usage: node duckdb_scan.mjs \'{"reps": 5, "threads": [1, 0], "queries": [{"name": "q", "sql": "..."}]}\'');
  process.exit(2);
}
try {
  const results = [];
  let version = null;
  for (const threads of spec.threads ?? [1]) {
    const options = threads > 0 ? { threads: String(threads) } : {};
    const instance = await DuckDBInstance.create(':memory:', options);
    const conn = await instance.connect();
    if (!version) version = (await conn.runAndReadAll('SELECT version() AS v')).getRowObjectsJS()[0].v;
    const effective = (await conn.runAndReadAll("SELECT current_setting('threads') AS t")).getRowObjectsJS()[0].t;
    for (const q of spec.queries) {
      await countRows(await conn.run(q.sql));  // warm-up (OS page cache, DuckDB start-up costs)
      const times = [];
      const cpu = [];
      let rows = 0;
      for (let i = 0; i < (spec.reps ?? 5); ++i) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        rows = await countRows(await conn.run(q.sql));
        const c = process.cpuUsage(c0);
        times.push((performance.now() - t0) / 1000);
        cpu.push((c.user + c.system) / 1e6);
      }
      const first = (await conn.runAndReadAll(`SELECT * FROM (${q.sql}) LIMIT 0`)).columnNames()[0];
      const sums = (await conn.runAndReadAll(`SELECT count(*) AS n, sum("${first}")::VARCHAR AS s FROM (${q.sql})`)).getRowObjectsJS()[0];
      results.push({ name: q.name, threads: Number(effective), times_s: times, cpu_s: cpu, rows, check_rows: Number(sums.n), sum: sums.s });
    }
  }
  process.stdout.write(JSON.stringify({ duckdb_version: version, results }) + '\n');
} catch (e) {
  console.error(`duckdb_scan failed: ${e?.stack ?? e}`);
  process.exit(1);
}

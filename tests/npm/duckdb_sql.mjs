// Runs SQL statements in a fresh in-memory DuckDB (@duckdb/node-api), one statement per argument:
//   node duckdb_sql.mjs "COPY (SELECT ...) TO 'f.parquet' (FORMAT parquet, PARQUET_VERSION V2)" ...
// Tests use it to make files written by DuckDB. The rows of the last statement are printed as JSON
// (one array of row objects; bigint as a decimal string), so a test can also ask DuckDB what it reads.
import { DuckDBInstance } from '@duckdb/node-api';

const statements = process.argv.slice(2);
if (statements.length === 0) {
  console.error('usage: node duckdb_sql.mjs SQL [SQL ...]');
  process.exit(2);
}
try {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await instance.connect();
  let rows = [];
  for (const sql of statements) rows = (await conn.runAndReadAll(sql)).getRowObjectsJS();
  console.log(JSON.stringify(rows, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exit(1);
}

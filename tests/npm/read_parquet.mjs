// Prints a Parquet file's rows (and what the reader sees of its layout) as one JSON document, using
// an independent reader: `node read_parquet.mjs hyparquet|duckdb|arrowrs FILE [COL,COL...]` (arrowrs:
// arrow-rs through parquet-wasm; the optional third argument projects top-level columns).
//
// Output: {"reader": ..., "rows": [{col: value, ...}, ...], "layout": {...}}
// Values are made JSON-safe without losing information: bigint -> decimal string, NaN/Infinity/-0
// -> "NaN"/"Infinity"/"-Infinity"/"-0", bytes -> {"hex": "..."}, Date -> {"epoch_ms": n}. Lists,
// structs and maps keep each reader's own shape (map: object for hyparquet, [{key, value}] for
// DuckDB); the C++ test accepts both.
import { readFileSync } from 'node:fs';

function canon(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    if (v === 0 && 1 / v < 0) return '-0';
    return v;
  }
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof Date) return { epoch_ms: v.getTime() };
  if (v instanceof Uint8Array) return { hex: Buffer.from(v).toString('hex') };
  if (Array.isArray(v)) return v.map(canon);
  if (typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = canon(x);
    return out;
  }
  return String(v);
}

// apache-arrow values (Vector, StructRow, Map) -> plain JS values for canon().
function fromArrow(v) {
  if (v === null || v === undefined || typeof v !== 'object' || v instanceof Uint8Array || v instanceof Date) return v;
  if (typeof v.toArray === 'function' && typeof v.length === 'number' && !Array.isArray(v)) {
    return Array.from({ length: v.length }, (_, i) => fromArrow(v.get(i)));
  }
  if (typeof v.toJSON === 'function') {
    const out = {};
    for (const [k, x] of Object.entries(v.toJSON())) out[k] = fromArrow(x);
    return out;
  }
  return v;
}

async function readArrowRs(path, columns) {
  const { ParquetFile } = await import('parquet-wasm');
  const { tableFromIPC } = await import('apache-arrow');
  // ParquetFile.read honours `columns` (readParquet 0.8.0 ignores it).
  const file = await ParquetFile.fromFile(new Blob([readFileSync(path)]));
  const table = tableFromIPC((await file.read(columns ? { columns } : undefined)).intoIPCStream());
  const names = table.schema.fields.map((f) => f.name);
  const rows = [];
  for (let r = 0; r < table.numRows; ++r) {
    const row = {};
    for (let c = 0; c < names.length; ++c) row[names[c]] = fromArrow(table.getChildAt(c).get(r));
    rows.push(canon(row));
  }
  return { rows, layout: {} };
}

async function readHyparquet(path, columns) {
  const { parquetReadObjects, parquetMetadata, readOffsetIndex, readColumnIndex } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  const bytes = readFileSync(path);
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const rows = await parquetReadObjects({ file: arrayBuffer, compressors, utf8: false, columns });
  const md = parquetMetadata(arrayBuffer);
  const leafSchema = md.schema.filter((e) => e.num_children === undefined || e.num_children === 0);
  const layout = {
    num_rows: canon(md.num_rows),
    created_by: md.created_by ?? null,
    row_groups: md.row_groups.map((rg) => ({
      num_rows: canon(rg.num_rows),
      columns: rg.columns.map((cc, i) => {
        const m = cc.meta_data;
        const col = {
          path: m.path_in_schema.join('.'),
          codec: m.codec,
          encodings: m.encodings,
          null_count: canon(m.statistics?.null_count),
          num_pages: null,
          column_index_pages: null,
        };
        if (cc.offset_index_offset !== undefined) {
          const off = Number(cc.offset_index_offset);
          const view = new DataView(arrayBuffer, off, cc.offset_index_length);
          col.num_pages = readOffsetIndex({ view, offset: 0 }).page_locations.length;
        }
        if (cc.column_index_offset !== undefined) {
          const off = Number(cc.column_index_offset);
          const view = new DataView(arrayBuffer, off, cc.column_index_length);
          col.column_index_pages = readColumnIndex({ view, offset: 0 }, leafSchema[i]).null_pages.length;
        }
        return col;
      }),
    })),
  };
  return { rows: rows.map(canon), layout };
}

async function readDuckdb(path, columns) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const quoted = path.replaceAll("'", "''");
  const select = columns ? columns.map((c) => `"${c}"`).join(', ') : '*';
  const reader = await conn.runAndReadAll(`SELECT ${select} FROM read_parquet('${quoted}')`);
  const rows = reader.getRowObjectsJS();
  const meta = await conn.runAndReadAll(
    `SELECT row_group_id, row_group_num_rows, column_id, path_in_schema, type, num_values, stats_null_count,
            stats_min_value, stats_max_value, compression, encodings, dictionary_page_offset, data_page_offset,
            total_compressed_size, total_uncompressed_size
     FROM parquet_metadata('${quoted}') ORDER BY row_group_id, column_id`);
  const fileMeta = await conn.runAndReadAll(`SELECT created_by, num_rows, num_row_groups FROM parquet_file_metadata('${quoted}')`);
  return {
    rows: rows.map(canon),
    layout: { file: canon(fileMeta.getRowObjectsJS()[0]), chunks: meta.getRowObjectsJS().map(canon) },
  };
}

const [reader, path, columnList] = process.argv.slice(2);
const columns = columnList ? columnList.split(',') : undefined;
if (!reader || !path) {
  console.error('usage: node read_parquet.mjs hyparquet|duckdb|arrowrs FILE [COL,COL...]');
  process.exit(2);
}
try {
  const readers = { duckdb: readDuckdb, hyparquet: readHyparquet, arrowrs: readArrowRs };
  const result = readers[reader] ? await readers[reader](path, columns) : null;
  if (!result) {
    console.error(`unknown reader '${reader}'`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify({ reader, ...result }) + '\n');
} catch (e) {
  console.error(`${reader} failed on ${path}: ${e?.stack ?? e}`);
  process.exit(1);
}

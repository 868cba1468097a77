// The peers of bench_lookup: point lookups on a Parquet table over HTTP without an external index.
//
//   node lookup_peers.mjs NPM_DIR ENGINE MODE NETSIM_URL TABLE_PATH FILES COLUMNS KEY_COLUMN KEYS_FILE
//
// NPM_DIR tests/npm (its node_modules holds the peers)
// ENGINE  hyparquet  hyparquet with its filter pushdown: row-group statistics, then the key
//                    column's ColumnIndex/OffsetIndex select pages (hyparquet >= 1.30)
//         arrowrs    arrow-rs through parquet-wasm (no predicate pushdown in its JS API): read the key
//                    column, then the requested columns of the row groups that hold a key
// MODE    cold       every lookup opens every file (HEAD/metadata read each time)
//         warm       each file's size and footer are read once, before the timed lookups
// FILES   comma-separated file names below NETSIM_URL/TABLE_PATH/
// KEYS_FILE one lookup per line: its int64 keys, comma-separated
//
// All files of a lookup are read in parallel. Before each lookup the script zeroes rap-netsim's
// counters (/_netsim/reset) and afterwards reads them (/_netsim/stats), so requests and bytes are the
// server's count. Output: one JSON object per lookup, {"ms":..,"rows":..,"requests":..,"bytes":..}.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [npmDir, engine, mode, base, tablePath, filesArg, columnsArg, keyColumn, keysFile] = process.argv.slice(2);
const requireFromNpm = createRequire(path.join(path.resolve(npmDir ?? '.'), 'package.json'));
const load = (name) => import(pathToFileURL(requireFromNpm.resolve(name)).href);
if (!keysFile || !['hyparquet', 'arrowrs'].includes(engine) || !['cold', 'warm'].includes(mode)) {
  console.error('usage: node lookup_peers.mjs NPM_DIR hyparquet|arrowrs cold|warm NETSIM_URL TABLE_PATH FILES COLUMNS KEY_COLUMN KEYS_FILE');
  process.exit(2);
}
const files = filesArg.split(',');
const columns = columnsArg.split(',');
const batches = readFileSync(keysFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => l.split(',').map((k) => BigInt(k)));
const urlOf = (f) => `${base}/${tablePath}/${f}`;

async function netsim(cmd) {
  const res = await fetch(`${base}/_netsim/${cmd}`);
  if (!res.ok) throw new Error(`rap-netsim ${cmd}: ${res.status}`);
  return res.json();
}

// ---- hyparquet ----
async function hyparquetEngine() {
  const { asyncBufferFromUrl, parquetMetadataAsync, parquetReadObjects } = await load('hyparquet');
  const { compressors } = await load('hyparquet-compressors');
  const cache = new Map();
  async function open(url) {
    if (mode === 'warm' && cache.has(url)) return cache.get(url);
    const file = await asyncBufferFromUrl({ url });
    const metadata = await parquetMetadataAsync(file);
    const opened = { file, metadata };
    if (mode === 'warm') cache.set(url, opened);
    return opened;
  }
  return {
    open,
    async lookup(url, keys) {
      const { file, metadata } = await open(url);
      const rows = await parquetReadObjects({
        file, metadata, columns: [keyColumn, ...columns], compressors, rowFormat: 'object',
        filter: { [keyColumn]: { $in: keys } },
      });
      return rows.length;
    },
  };
}

// ---- arrow-rs (parquet-wasm) ----
async function arrowrsEngine() {
  const { ParquetFile } = await load('parquet-wasm');
  const { tableFromIPC } = await load('apache-arrow');
  const cache = new Map();
  async function open(url) {
    if (mode === 'warm' && cache.has(url)) return cache.get(url);
    const file = await ParquetFile.fromUrl(url);
    const meta = file.metadata();
    const groupRows = [];
    for (let g = 0; g < meta.numRowGroups(); ++g) groupRows.push(Number(meta.rowGroup(g).numRows()));
    const opened = { file, groupRows };
    if (mode === 'warm') cache.set(url, opened);
    return opened;
  }
  return {
    open,
    async lookup(url, keys) {
      const { file, groupRows } = await open(url);
      const wanted = new Set(keys);
      const keyCol = tableFromIPC((await file.read({ columns: [keyColumn] })).intoIPCStream()).getChild(keyColumn);
      const groups = [];
      let start = 0;
      for (let g = 0; g < groupRows.length; ++g) {
        for (let r = start; r < start + groupRows[g]; ++r) {
          if (wanted.has(keyCol.get(r))) { groups.push(g); break; }
        }
        start += groupRows[g];
      }
      if (groups.length === 0) return 0;
      const t = tableFromIPC((await file.read({ rowGroups: groups, columns: [keyColumn, ...columns] })).intoIPCStream());
      const k = t.getChild(keyColumn);
      let rows = 0;
      for (let r = 0; r < t.numRows; ++r) if (wanted.has(k.get(r))) ++rows;
      return rows;
    },
  };
}

try {
  const e = engine === 'hyparquet' ? await hyparquetEngine() : await arrowrsEngine();
  if (mode === 'warm') await Promise.all(files.map((f) => e.open(urlOf(f))));
  for (const keys of batches) {
    await netsim('reset');
    const t0 = process.hrtime.bigint();
    const counts = await Promise.all(files.map((f) => e.lookup(urlOf(f), keys)));
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const s = await netsim('stats');
    console.log(JSON.stringify({ ms, rows: counts.reduce((a, b) => a + b, 0), requests: s.requests, bytes: s.payload_bytes }));
  }
} catch (err) {
  console.error(String(err?.stack ?? err));
  process.exit(1);
}

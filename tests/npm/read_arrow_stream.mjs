// Reads an Arrow IPC stream with apache-arrow (the JS implementation) and prints one JSON document:
// {"fields": ["name:type:nullable", ...], "batches": N, "rows": [[v, ...], ...]} with values
// normalised for comparison: bigint and decimals as strings, binary as "hex:..", lists as arrays,
// structs as objects, dates and timestamps as epoch milliseconds. Used by tests/server/*_test.cc.
import { readFileSync } from 'fs';
import { RecordBatchReader } from 'apache-arrow';

function norm(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return 'hex:' + Buffer.from(v).toString('hex');
  if (v instanceof Uint32Array) return 'dec:' + Array.from(v).join(',');
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v.toJSON === 'function') {
    const o = v.toJSON();
    if (Array.isArray(o)) return o.map(norm);
    const out = {};
    for (const k of Object.keys(o)) out[k] = norm(o[k]);
    return out;
  }
  return String(v);
}

const reader = RecordBatchReader.from(readFileSync(process.argv[2]));
const rows = [];
let batches = 0;
let fields = null;
for (const batch of reader) {
  ++batches;
  if (!fields) fields = batch.schema.fields.map(f => `${f.name}:${f.type}:${f.nullable}`);
  for (let r = 0; r < batch.numRows; ++r) {
    rows.push(batch.schema.fields.map((f, c) => norm(batch.getChildAt(c).get(r))));
  }
}
if (!fields) fields = reader.schema ? reader.schema.fields.map(f => `${f.name}:${f.type}:${f.nullable}`) : [];
process.stdout.write(JSON.stringify({ fields, batches, rows }) + '\n');

// Times hyparquet reading Parquet files over HTTP (range requests) for bench_prefetch
// (bench/prefetch.cc), as the peer of rap's remote full scan:
//   node hyparquet_http_scan.mjs SPEC_JSON
// SPEC_JSON: {"urls": [...], "reps": N, "parallel": true|false}. Per run, every file is opened
// (HEAD for its length, then hyparquet's footer read) and every column of every row group is read
// and decoded (parquetRead without row assembly); parallel: all files at once (Promise.all), else
// one after another. One untimed run first.
// Output: one JSON document {"times_s": [...], "rows": N}.
import { asyncBufferFromUrl, parquetMetadataAsync, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const spec = JSON.parse(process.argv[2] ?? 'null');
if (!spec || !Array.isArray(spec.urls)) {
  console.error('usage: node hyparquet_http_scan.mjs \'{"urls": ["http://host/f.parquet"], "reps": 3, "parallel": true}\'');
  process.exit(2);
}

async function readOne(url) {
  const file = await asyncBufferFromUrl({ url });
  const metadata = await parquetMetadataAsync(file);
  await parquetRead({ file, metadata, compressors });  // every column decoded, no row assembly
  return Number(metadata.num_rows);
}

async function run() {
  if (spec.parallel) return (await Promise.all(spec.urls.map(readOne))).reduce((a, b) => a + b, 0);
  let rows = 0;
  for (const url of spec.urls) rows += await readOne(url);
  return rows;
}

try {
  let rows = await run();  // warm-up
  const times = [];
  for (let i = 0; i < (spec.reps ?? 3); ++i) {
    const t0 = performance.now();
    rows = await run();
    times.push((performance.now() - t0) / 1000);
  }
  console.log(JSON.stringify({ times_s: times, rows }));
} catch (e) {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
}

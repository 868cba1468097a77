#!/usr/bin/env bash
# The main job on an embedded default (local files): installs dependencies, builds rap, turns the
# bundled sample (examples/events.csv) into a small Delta table of two Parquet files with page
# indexes, shows `rap inspect` and `rap cat` on one file, then a filtered, projected `rap scan` with
# --stats, builds the RAP index of the table and looks a key up through it, and finally does a scan
# and a lookup from Python (`import rap`, docs/python.md).
#
#   scripts/demo.sh [OUTPUT_DIR]      (default: build/demo)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-build/demo}"
JOBS="${JOBS:-$(nproc)}"

bash scripts/install-deps.sh
export CCACHE_DIR="${CCACHE_DIR:-$PWD/.cache/ccache}"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAP_PYTHON=ON \
  "-DPython_EXECUTABLE=$PWD/.venv/bin/python" >/dev/null
ninja -C build/release -j "$JOBS" rap _rap
RAP=build/release/tools/rap

TABLE="$OUT/events"
rm -rf "$TABLE"
mkdir -p "$TABLE/_delta_log"

SCHEMA="user_id:int64 not null, event_id:int64 not null, country:string, kind:string, duration_ms:int64, ts:timestamp[us]"
# Two data files: users 1-200 and 201-400 (the CSV is sorted by user).
head -n 1 examples/events.csv > "$OUT/part-0.csv"
head -n 1 examples/events.csv > "$OUT/part-1.csv"
awk -F, 'NR > 1 && $1 <= 200' examples/events.csv >> "$OUT/part-0.csv"
awk -F, 'NR > 1 && $1 > 200' examples/events.csv >> "$OUT/part-1.csv"
for i in 0 1; do
  "$RAP" convert "$OUT/part-$i.csv" "$TABLE/part-$i.parquet" --schema "$SCHEMA" \
    --row-group-rows 1000 --page-rows 100 --compression zstd:3 --quiet
done

# The Delta log: one commit with protocol, metaData and an add action per file.
NOW_MS=$(($(date +%s) * 1000))
SCHEMA_STRING='{\"type\":\"struct\",\"fields\":[{\"name\":\"user_id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},{\"name\":\"event_id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},{\"name\":\"country\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},{\"name\":\"kind\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},{\"name\":\"duration_ms\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"ts\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{}}]}'
{
  echo '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["timestampNtz"],"writerFeatures":["timestampNtz"]}}'
  echo "{\"metaData\":{\"id\":\"3f1c2c5e-0000-4000-8000-000000000001\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":\"$SCHEMA_STRING\",\"partitionColumns\":[],\"configuration\":{},\"createdTime\":$NOW_MS}}"
  for i in 0 1; do
    SIZE=$(stat -c %s "$TABLE/part-$i.parquet")
    echo "{\"add\":{\"path\":\"part-$i.parquet\",\"partitionValues\":{},\"size\":$SIZE,\"modificationTime\":$NOW_MS,\"dataChange\":true}}"
  done
} > "$TABLE/_delta_log/00000000000000000000.json"

echo
echo "== rap inspect $TABLE/part-0.parquet"
"$RAP" inspect "$TABLE/part-0.parquet"
echo
echo "== rap cat $TABLE/part-0.parquet --rows 100:105"
"$RAP" cat "$TABLE/part-0.parquet" --rows 100:105
echo
echo "== rap scan $TABLE --columns user_id,event_id,kind,duration_ms --where \"country = 'NL' AND duration_ms > 250000\" --stats"
"$RAP" scan "$TABLE" --columns user_id,event_id,kind,duration_ms \
  --where "country = 'NL' AND duration_ms > 250000" --stats --fingerprint
echo
echo "== rap index build $TABLE --key user_id --buckets 2 --cover kind,duration_ms"
rm -rf "$TABLE/_rap_index"
"$RAP" index build "$TABLE" --key user_id --buckets 2 --cover kind,duration_ms
echo
echo "== rap index inspect $TABLE"
"$RAP" index inspect "$TABLE"
KEY=$("$RAP" cat "$TABLE/part-0.parquet" --columns user_id --rows 7:8 --format csv | tail -1)
echo
echo "== rap lookup $TABLE --key $KEY --columns event_id,kind,duration_ms --stats"
"$RAP" lookup "$TABLE" --key "$KEY" --columns event_id,kind,duration_ms --stats
echo
echo "== rap lookup $TABLE --key $KEY --columns kind,duration_ms --stats   (covered: no data-file footer read)"
"$RAP" lookup "$TABLE" --key "$KEY" --columns kind,duration_ms --stats
echo
echo "== Python: import rap (PYTHONPATH=build/release/python, .venv/bin/python)"
PY_DEMO=$(cat <<PYEOF
import pyarrow as pa, rap
t = pa.table(rap.scan("$TABLE", columns=["user_id", "kind", "duration_ms"], where="country = 'NL' AND duration_ms > 250000"))
print(t.num_rows, "rows;", t.schema)
reader, next_tokens = rap.Index.open("$TABLE").lookup([$KEY], columns=["kind", "duration_ms"])
print(pa.table(reader))
PYEOF
)
echo "$PY_DEMO"
echo "--"
PYTHONPATH="$PWD/build/release/python" .venv/bin/python -c "$PY_DEMO"

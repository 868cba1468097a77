// Paimon Java's own read of the bench table (bench/paimon/bench_paimon.py, docs/benchmarks/paimon.md):
// the filesystem catalog, the table at a snapshot, ReadBuilder -> plan -> splits -> one RecordReader
// over every split, row by row — what a Java application embedding Paimon does (no Spark).
//
//   java -cp paimon-spark-3.5-0.9.0.jar:hadoop-client-api.jar:hadoop-client-runtime.jar:... \
//       PaimonJavaRead WAREHOUSE SNAPSHOT REPEAT OUT.tsv [S3_ENDPOINT]
//
// With S3_ENDPOINT (http://host:port; WAREHOUSE s3://bucket/path) the catalog reads through Paimon's
// S3 file IO (paimon-s3 on the class path: hadoop-aws's S3A), path-style, keys "bench".
// Run 0 is untimed and writes every row to OUT.tsv (id, name, x as its IEEE bits in hex, n, note;
// \N for NULL) for the caller's check; runs 1..REPEAT are timed from creating the catalog to the
// first row and to the last. Prints one JSON line: {"rows": N, "runs": [{"first_batch_s", "total_s"}]}.
// The JVM's start and its first run (class loading, JIT) are outside the timed runs.
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;

public final class PaimonJavaRead {
  private PaimonJavaRead() {}

  private static String orNull(InternalRow row, int i, String v) {
    return row.isNullAt(i) ? "\\N" : v;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4 && args.length != 5) {
      System.err.println("usage: PaimonJavaRead WAREHOUSE SNAPSHOT REPEAT OUT.tsv [S3_ENDPOINT]");
      System.exit(2);
    }
    final String warehouse = args[0];
    final String snapshot = args[1];
    final int repeat = Integer.parseInt(args[2]);
    final String out = args[3];
    long rows = 0;
    List<String> runs = new ArrayList<>();
    for (int r = 0; r <= repeat; ++r) {
      final long t0 = System.nanoTime();
      Options options = new Options();
      options.set("warehouse", warehouse);
      if (args.length == 5) {
        options.set("s3.endpoint", args[4]);
        options.set("s3.access-key", "bench");
        options.set("s3.secret-key", "bench");
        options.set("s3.path.style.access", "true");
        options.set("s3.connection.ssl.enabled", "false");
      }
      long first = -1;
      long n = 0;
      try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
        Table table = catalog.getTable(Identifier.create("db", "t"))
            .copy(Collections.singletonMap("scan.snapshot-id", snapshot));
        ReadBuilder rb = table.newReadBuilder();
        List<Split> splits = rb.newScan().plan().splits();
        RecordReader<InternalRow> reader = rb.newRead().createReader(splits);
        BufferedWriter w = r == 0 ? Files.newBufferedWriter(Paths.get(out), StandardCharsets.UTF_8) : null;
        try (RecordReaderIterator<InternalRow> it = new RecordReaderIterator<>(reader)) {
          while (it.hasNext()) {
            InternalRow row = it.next();
            if (first < 0) first = System.nanoTime() - t0;
            ++n;
            if (w != null) {
              w.write(row.getLong(0) + "\t" + orNull(row, 1, row.isNullAt(1) ? "" : row.getString(1).toString())
                  + "\t" + orNull(row, 2, row.isNullAt(2) ? "" : Long.toHexString(Double.doubleToRawLongBits(row.getDouble(2))))
                  + "\t" + orNull(row, 3, row.isNullAt(3) ? "" : Long.toString(row.getLong(3)))
                  + "\t" + orNull(row, 4, row.isNullAt(4) ? "" : row.getString(4).toString()) + "\n");
            }
          }
        } finally {
          if (w != null) w.close();
        }
      }
      final long total = System.nanoTime() - t0;
      rows = n;
      if (r > 0) {
        runs.add(String.format("{\"first_batch_s\": %.6f, \"total_s\": %.6f}", first / 1e9, total / 1e9));
      }
    }
    System.out.println("{\"rows\": " + rows + ", \"runs\": [" + String.join(", ", runs) + "]}");
  }
}

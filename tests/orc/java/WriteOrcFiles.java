// Writes ORC files with ORC Java (orc-core, pinned in scripts/fetch-orc-jars.sh) for
// tests/python/test_orc_java.py, then reads each back with ORC Java's own reader and prints what it
// read as JSON lines (one file per "file" line, then one line per row), so that rap's reading is
// compared with ORC Java's. One JVM run writes every file (the test's JVM time stays in seconds).
//
//   java -cp JARS:CLASSES WriteOrcFiles DIR     (run with -Duser.timezone=UTC: the writer's zone)
//
// Every file has the same schema (each ORC type, nested ones included) and rows; they differ in
// compression (NONE, ZLIB, SNAPPY, LZO, LZ4, ZSTD), format version (0.11: integer RLE v1, 0.12:
// RLE v2) and string encoding (dictionary threshold: default, 0 = direct, 1 = dictionary). Values are
// printed so that nothing is lost: floats and doubles as the bits of the double, binary as hex,
// decimals as text, dates as days, timestamps as nanoseconds since the epoch (UTC wall clock).
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.common.type.HiveDecimal;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.ColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DecimalColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DoubleColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.ListColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.MapColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.StructColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.TimestampColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcConf;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.TypeDescription;
import org.apache.orc.Writer;

public class WriteOrcFiles {
  static final String SCHEMA = "struct<b:boolean,i8:tinyint,i16:smallint,i32:int,i64:bigint,f32:float,f64:double,"
      + "sd:string,sx:string,c:char(5),vc:varchar(10),bin:binary,dec:decimal(12,3),dec38:decimal(38,6),d:date,"
      + "ts:timestamp,tsl:timestamp with local time zone,lst:array<int>,mp:map<string,bigint>,"
      + "st:struct<x:bigint,y:string>>";
  static final int ROWS = 6000;

  static boolean isNull(int col, int r) {
    // i32 (the row number) and i64 never null: their PRESENT streams are suppressed
    return col != 3 && col != 4 && (r * 7 + col) % 11 == 3;
  }

  static void fill(VectorizedRowBatch batch, int row0, int n) {
    for (int c = 0; c < batch.cols.length; ++c) {
      batch.cols[c].noNulls = true;
      batch.cols[c].reset();
    }
    ListColumnVector lst = (ListColumnVector) batch.cols[17];
    MapColumnVector mp = (MapColumnVector) batch.cols[18];
    lst.childCount = 0;
    mp.childCount = 0;
    for (int k = 0; k < n; ++k) {
      final int r = row0 + k;
      for (int c = 0; c < batch.cols.length; ++c) {
        if (isNull(c, r)) {
          batch.cols[c].noNulls = false;
          batch.cols[c].isNull[k] = true;
        }
      }
      ((LongColumnVector) batch.cols[0]).vector[k] = r % 3 == 0 ? 1 : 0;
      ((LongColumnVector) batch.cols[1]).vector[k] = (byte) (r * 37);
      ((LongColumnVector) batch.cols[2]).vector[k] = (short) (r * 1009);
      ((LongColumnVector) batch.cols[3]).vector[k] = r;
      ((LongColumnVector) batch.cols[4]).vector[k] = (long) r * r * r * 7919L - (1L << 40);
      ((DoubleColumnVector) batch.cols[5]).vector[k] = (float) (r / 3.0);
      ((DoubleColumnVector) batch.cols[6]).vector[k] = r * 1.5e-3 - 2.0;
      ((BytesColumnVector) batch.cols[7]).setVal(k, ("v" + (r % 5)).getBytes(StandardCharsets.UTF_8));
      StringBuilder sx = new StringBuilder("row-" + r + "-");
      for (int i = 0; i < r % 300; ++i) sx.append('x');
      sx.append("\u00e9\u4e2d");
      ((BytesColumnVector) batch.cols[8]).setVal(k, sx.toString().getBytes(StandardCharsets.UTF_8));
      ((BytesColumnVector) batch.cols[9]).setVal(k, ("c" + (r % 100)).getBytes(StandardCharsets.UTF_8));
      ((BytesColumnVector) batch.cols[10]).setVal(k, ("vc" + r).getBytes(StandardCharsets.UTF_8));
      byte[] bin = new byte[r % 9];
      for (int i = 0; i < bin.length; ++i) bin[i] = (byte) (r + i);
      ((BytesColumnVector) batch.cols[11]).setVal(k, bin);
      ((DecimalColumnVector) batch.cols[12]).set(k, HiveDecimal.create(BigDecimal.valueOf((long) r * 12345 - 1000000, 3)));
      ((DecimalColumnVector) batch.cols[13]).set(k,
          HiveDecimal.create(new BigDecimal(String.valueOf((long) r * 987654321L - 3000000000L) + "123456789012.345678")));
      ((LongColumnVector) batch.cols[14]).vector[k] = r * 17L - 30000;
      TimestampColumnVector ts = (TimestampColumnVector) batch.cols[15];
      ts.time[k] = r * 1_000_123L - 10_000_000_000L;  // before and after 1970
      ts.nanos[k] = (int) ((r * 123_457L) % 1_000_000_000L);
      ts.time[k] = Math.floorDiv(ts.time[k], 1000) * 1000 + ts.nanos[k] / 1_000_000;
      TimestampColumnVector tsl = (TimestampColumnVector) batch.cols[16];
      tsl.time[k] = r * 3_600_123L;
      tsl.nanos[k] = (int) ((r * 1_000_003L) % 1_000_000_000L);
      tsl.time[k] = Math.floorDiv(tsl.time[k], 1000) * 1000 + tsl.nanos[k] / 1_000_000;
      int len = r % 4;
      lst.offsets[k] = lst.childCount;
      lst.lengths[k] = len;
      lst.child.ensureSize(lst.childCount + len, true);
      for (int i = 0; i < len; ++i) ((LongColumnVector) lst.child).vector[(int) lst.childCount + i] = r * 10L + i;
      lst.childCount += len;
      int entries = r % 2 == 0 ? 0 : 2;
      mp.offsets[k] = mp.childCount;
      mp.lengths[k] = entries;
      mp.keys.ensureSize(mp.childCount + entries, true);
      mp.values.ensureSize(mp.childCount + entries, true);
      for (int i = 0; i < entries; ++i) {
        ((BytesColumnVector) mp.keys).setVal((int) mp.childCount + i, (i == 0 ? "k" : "j").getBytes(StandardCharsets.UTF_8));
        ((LongColumnVector) mp.values).vector[(int) mp.childCount + i] = i == 0 ? r : -r;
      }
      mp.childCount += entries;
      StructColumnVector st = (StructColumnVector) batch.cols[19];
      ((LongColumnVector) st.fields[0]).vector[k] = r;
      ((BytesColumnVector) st.fields[1]).setVal(k, ("s" + (r % 11)).getBytes(StandardCharsets.UTF_8));
      if (r % 13 == 5) {  // a null field inside a present struct
        st.fields[1].noNulls = false;
        st.fields[1].isNull[k] = true;
      }
    }
    batch.size = n;
  }

  static void json(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); ++i) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        out.append('\\').append(ch);
      } else if (ch < 0x20 || ch > 0x7e) {
        out.append(String.format("\\u%04x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    out.append('"');
  }

  static void value(StringBuilder out, TypeDescription t, ColumnVector v, int row) {
    int r = v.isRepeating ? 0 : row;
    if (!v.noNulls && v.isNull[r]) {
      out.append("null");
      return;
    }
    switch (t.getCategory()) {
      case BOOLEAN:
        out.append(((LongColumnVector) v).vector[r] != 0 ? "true" : "false");
        break;
      case BYTE: case SHORT: case INT: case LONG: case DATE:
        out.append(((LongColumnVector) v).vector[r]);
        break;
      case FLOAT: case DOUBLE:
        out.append(Double.doubleToRawLongBits(((DoubleColumnVector) v).vector[r]));
        break;
      case STRING: case CHAR: case VARCHAR: {
        BytesColumnVector b = (BytesColumnVector) v;
        json(out, new String(b.vector[r], b.start[r], b.length[r], StandardCharsets.UTF_8));
        break;
      }
      case BINARY: {
        BytesColumnVector b = (BytesColumnVector) v;
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < b.length[r]; ++i) hex.append(String.format("%02x", b.vector[r][b.start[r] + i]));
        json(out, hex.toString());
        break;
      }
      case DECIMAL:
        json(out, ((DecimalColumnVector) v).vector[r].getHiveDecimal().bigDecimalValue().toPlainString());
        break;
      case TIMESTAMP: case TIMESTAMP_INSTANT: {
        TimestampColumnVector ts = (TimestampColumnVector) v;
        long seconds = Math.floorDiv(ts.time[r], 1000);
        out.append(seconds * 1_000_000_000L + ts.nanos[r]);
        break;
      }
      case LIST: {
        ListColumnVector l = (ListColumnVector) v;
        out.append('[');
        for (long i = 0; i < l.lengths[r]; ++i) {
          if (i > 0) out.append(',');
          value(out, t.getChildren().get(0), l.child, (int) (l.offsets[r] + i));
        }
        out.append(']');
        break;
      }
      case MAP: {
        MapColumnVector m = (MapColumnVector) v;
        out.append('[');
        for (long i = 0; i < m.lengths[r]; ++i) {
          if (i > 0) out.append(',');
          out.append('[');
          value(out, t.getChildren().get(0), m.keys, (int) (m.offsets[r] + i));
          out.append(',');
          value(out, t.getChildren().get(1), m.values, (int) (m.offsets[r] + i));
          out.append(']');
        }
        out.append(']');
        break;
      }
      case STRUCT: {
        StructColumnVector s = (StructColumnVector) v;
        out.append('{');
        for (int i = 0; i < s.fields.length; ++i) {
          if (i > 0) out.append(',');
          json(out, t.getFieldNames().get(i));
          out.append(':');
          value(out, t.getChildren().get(i), s.fields[i], r);
        }
        out.append('}');
        break;
      }
      default:
        throw new IllegalArgumentException("type " + t);
    }
  }

  public static void main(String[] args) throws Exception {
    String dir = args[0];
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    TypeDescription schema = TypeDescription.fromString(SCHEMA);
    List<String[]> variants = new ArrayList<>();  // compression, version, dictionary threshold
    for (String comp : new String[] {"NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD"}) {
      for (String version : new String[] {"0.11", "0.12"}) variants.add(new String[] {comp, version, ""});
    }
    variants.add(new String[] {"ZLIB", "0.12", "0.0"});
    variants.add(new String[] {"ZSTD", "0.11", "1.0"});
    for (String[] v : variants) {
      Configuration conf = new Configuration();
      if (!v[2].isEmpty()) OrcConf.DICTIONARY_KEY_SIZE_THRESHOLD.setDouble(conf, Double.parseDouble(v[2]));
      String name = "java_" + v[0].toLowerCase() + "_" + v[1] + (v[2].isEmpty() ? "" : "_dict" + v[2]) + ".orc";
      Path path = new Path(dir, name);
      Writer w = OrcFile.createWriter(path, OrcFile.writerOptions(conf).setSchema(schema)
          .compress(CompressionKind.valueOf(v[0])).version(OrcFile.Version.byName(v[1]))
          .rowIndexStride(1000).stripeSize(256 * 1024).bufferSize(8 * 1024).overwrite(true));
      VectorizedRowBatch batch = schema.createRowBatch(1024);
      for (int row = 0; row < ROWS; row += 1024) {
        fill(batch, row, Math.min(1024, ROWS - row));
        w.addRowBatch(batch);
      }
      w.close();
      Reader reader = OrcFile.createReader(path, OrcFile.readerOptions(conf));
      out.println("{\"file\":\"" + name + "\",\"rows\":" + reader.getNumberOfRows() + ",\"stripes\":"
          + reader.getStripes().size() + "}");
      RecordReader rows = reader.rows();
      VectorizedRowBatch rb = reader.getSchema().createRowBatch();
      StringBuilder line = new StringBuilder();
      while (rows.nextBatch(rb)) {
        for (int r = 0; r < rb.size; ++r) {
          line.setLength(0);
          line.append('{');
          for (int c = 0; c < rb.cols.length; ++c) {
            if (c > 0) line.append(',');
            json(line, schema.getFieldNames().get(c));
            line.append(':');
            value(line, schema.getChildren().get(c), rb.cols[c], r);
          }
          line.append('}');
          out.println(line);
        }
      }
      rows.close();
    }
    out.flush();
  }
}

// Footer decode (and encode) speed for wide files: metadata of C columns x G row groups, with the
// statistics, encodings, page-index offsets and encoding stats a typical writer records, built with
// rap's own encoder. Prints the median microseconds per decode and MB/s, writes CSV.
//
//   bench_footer [--csv footer.csv] [--reps 31] [--columns 200] [--row-groups 50]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rap/format/thrift.h"

namespace {

using rap::parquet::ColumnChunk;
using rap::parquet::ColumnMetaData;
using rap::parquet::FileMetaData;

FileMetaData WideMetadata(int columns, int row_groups) {
  using namespace rap::parquet;
  FileMetaData md;
  md.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = columns;
  md.schema.push_back(root);
  for (int c = 0; c < columns; ++c) {
    SchemaElement e;
    e.name = "column_" + std::to_string(c);
    e.type = c % 2 ? Type::INT64 : Type::BYTE_ARRAY;
    e.repetition_type = Repetition::OPTIONAL;
    if (c % 2 == 0) {
      e.converted_type = ConvertedType::UTF8;
      e.logical_type = LogicalType{};
      e.logical_type->kind = LogicalType::Kind::STRING;
    }
    md.schema.push_back(e);
  }
  int64_t offset = 4;
  for (int g = 0; g < row_groups; ++g) {
    RowGroup rg;
    rg.num_rows = 1'000'000;
    for (int c = 0; c < columns; ++c) {
      ColumnChunk cc;
      cc.file_offset = offset;
      ColumnMetaData m;
      m.type = c % 2 ? Type::INT64 : Type::BYTE_ARRAY;
      m.encodings = {Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY};
      m.path_in_schema = {"column_" + std::to_string(c)};
      m.codec = Codec::ZSTD;
      m.num_values = rg.num_rows;
      m.total_uncompressed_size = 8'000'000 + c;
      m.total_compressed_size = 2'000'000 + c;
      m.dictionary_page_offset = offset;
      m.data_page_offset = offset + 65'536;
      Statistics st;
      st.null_count = c;
      st.min_value = c % 2 ? std::string(8, '\x01') : "aardvark";
      st.max_value = c % 2 ? std::string(8, '\x7f') : "zebra crossing";
      st.is_min_value_exact = true;
      st.is_max_value_exact = true;
      m.statistics = st;
      m.encoding_stats = {{PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1},
                          {PageType::DATA_PAGE, Encoding::RLE_DICTIONARY, 120}};
      cc.meta_data = m;
      cc.offset_index_offset = int64_t{1} << 36;
      cc.offset_index_length = 1200;
      cc.column_index_offset = int64_t{1} << 35;
      cc.column_index_length = 2400;
      offset += m.total_compressed_size;
      rg.columns.push_back(std::move(cc));
    }
    rg.total_byte_size = offset;
    rg.file_offset = 4;
    rg.ordinal = static_cast<int16_t>(g);
    md.num_rows += rg.num_rows;
    md.row_groups.push_back(std::move(rg));
  }
  md.created_by = "rap bench";
  md.key_value_metadata = {{"ARROW:schema", std::string(4096, 'x')}};
  md.column_orders_type_defined.assign(columns, true);
  return md;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  std::string op;
  int columns, row_groups;
  size_t bytes;
  int reps;
  double median_us;
};

}  // namespace

int main(int argc, char** argv) {
  std::string csv = "footer.csv";
  int reps = 31;
  std::vector<std::pair<int, int>> shapes = {{200, 50}, {20, 10}, {1000, 10}};
  int columns = -1, row_groups = -1;
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_footer: %s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--csv")) {
      csv = value("--csv");
    } else if (!std::strcmp(argv[i], "--reps")) {
      reps = std::max(1, std::atoi(value("--reps")));
    } else if (!std::strcmp(argv[i], "--columns")) {
      columns = std::atoi(value("--columns"));
    } else if (!std::strcmp(argv[i], "--row-groups")) {
      row_groups = std::atoi(value("--row-groups"));
    } else {
      std::fprintf(stderr, "usage: bench_footer [--csv PATH] [--reps N] [--columns C --row-groups G]\n");
      return 2;
    }
  }
  if (columns > 0 && row_groups > 0) shapes = {{columns, row_groups}};

  std::vector<Row> rows;
  for (auto [c, g] : shapes) {
    FileMetaData md = WideMetadata(c, g);
    std::string bytes;
    rap::parquet::EncodeFileMetaData(md, &bytes);
    std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    std::vector<double> decode_us, encode_us;
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto decoded = rap::parquet::DecodeFileMetaData(span);
      auto t1 = std::chrono::steady_clock::now();
      if (!decoded.ok() || decoded->row_groups.size() != static_cast<size_t>(g)) {
        std::fprintf(stderr, "bench_footer: decode failed: %s\n", decoded.status().ToString().c_str());
        return 1;
      }
      std::string out;
      out.reserve(bytes.size());
      auto t2 = std::chrono::steady_clock::now();
      rap::parquet::EncodeFileMetaData(*decoded, &out);
      auto t3 = std::chrono::steady_clock::now();
      if (out != bytes) {
        std::fprintf(stderr, "bench_footer: re-encoded footer differs\n");
        return 1;
      }
      decode_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      encode_us.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count());
    }
    rows.push_back({"decode", c, g, bytes.size(), reps, Median(decode_us)});
    rows.push_back({"encode", c, g, bytes.size(), reps, Median(encode_us)});
  }

  std::printf("%-7s %8s %10s %12s %12s %10s\n", "op", "columns", "row_groups", "bytes", "median_us", "MB/s");
  for (const auto& r : rows) {
    std::printf("%-7s %8d %10d %12zu %12.1f %10.1f\n", r.op.c_str(), r.columns, r.row_groups, r.bytes, r.median_us,
                static_cast<double>(r.bytes) / r.median_us);
  }
  std::FILE* f = std::fopen(csv.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "bench_footer: cannot write %s\n", csv.c_str());
    return 1;
  }
  std::fprintf(f, "op,columns,row_groups,bytes,reps,median_us,mb_per_s\n");
  for (const auto& r : rows) {
    std::fprintf(f, "%s,%d,%d,%zu,%d,%.3f,%.3f\n", r.op.c_str(), r.columns, r.row_groups, r.bytes, r.reps, r.median_us,
                 static_cast<double>(r.bytes) / r.median_us);
  }
  std::fclose(f);
  std::printf("wrote %s\n", csv.c_str());
  return 0;
}

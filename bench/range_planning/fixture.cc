// The synthetic Delta table of bench_range_planning (see fixture.h).
#include "range_planning/fixture.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/format/writer.h"
#include "rap/format/writer_sink.h"

namespace rap::bench {

namespace {

namespace fs = std::filesystem;

ArrayPtr Int64Array(const std::vector<int64_t>& values) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kInt64);
  a->length = static_cast<int64_t>(values.size());
  a->buffers.push_back(Buffer());
  a->buffers.push_back(Buffer::Copy(values.data(), values.size() * sizeof(int64_t)));
  return a;
}

// Random printable text (incompressible enough that page sizes follow the value lengths), with NULLs.
ArrayPtr StringArray(int64_t rows, const FixtureOptions& o, std::mt19937_64& rng) {
  std::vector<uint8_t> validity(static_cast<size_t>((rows + 7) / 8), 0);
  std::vector<int32_t> offsets(1, 0);
  std::string data;
  std::uniform_int_distribution<int> len(std::max(0, o.payload_mean_bytes - o.payload_spread_bytes),
                                         o.payload_mean_bytes + o.payload_spread_bytes);
  std::uniform_int_distribution<int> null_draw(0, std::max(1, o.null_one_in) - 1);
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.-";
  int64_t nulls = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (null_draw(rng) == 0) {
      ++nulls;
    } else {
      validity[static_cast<size_t>(i / 8)] |= static_cast<uint8_t>(1u << (i % 8));
      const int n = len(rng);
      for (int k = 0; k < n; ++k) data.push_back(kAlphabet[rng() % (sizeof(kAlphabet) - 1)]);
    }
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kString);
  a->length = rows;
  a->null_count = nulls;
  a->buffers.push_back(Buffer::FromVector(std::move(validity)));
  a->buffers.push_back(Buffer::Copy(offsets.data(), offsets.size() * sizeof(int32_t)));
  a->buffers.push_back(Buffer::FromString(std::move(data)));
  return a;
}

nlohmann::json DeltaSchema(const FixtureOptions& o) {
  nlohmann::json fields = nlohmann::json::array();
  auto field = [](const std::string& name, const char* type, bool nullable) {
    return nlohmann::json{{"name", name}, {"type", type}, {"nullable", nullable}, {"metadata", nlohmann::json::object()}};
  };
  fields.push_back(field("row_id", "long", false));
  fields.push_back(field("event_id", "long", false));
  for (int i = 0; i < o.payload_columns; ++i) fields.push_back(field(PayloadName(i), "string", true));
  return nlohmann::json{{"type", "struct"}, {"fields", fields}};
}

}  // namespace

std::string PayloadName(int i) { return fmt::format("payload_{:02d}", i); }

Result<Fixture> WriteFixture(const std::string& root, const FixtureOptions& o) {
  if (o.files <= 0 || o.row_groups_per_file <= 0 || o.rows_per_row_group <= 0 || o.rows_per_page <= 0 ||
      o.payload_columns <= 0 || o.rows_per_row_group % o.rows_per_page != 0) {
    return Status::InvalidArgument("fixture: counts must be positive and a row group a whole number of pages");
  }
  std::error_code ec;
  fs::create_directories(fs::path(root) / "_delta_log", ec);
  if (ec) return Status::IOError(fmt::format("fixture: cannot create '{}/_delta_log': {}", root, ec.message()));

  auto schema = std::make_shared<Schema>();
  schema->fields.push_back({"row_id", MakeType(TypeId::kInt64), false});
  schema->fields.push_back({"event_id", MakeType(TypeId::kInt64), false});
  for (int i = 0; i < o.payload_columns; ++i) schema->fields.push_back({PayloadName(i), MakeType(TypeId::kString), true});

  parquet::WriterOptions wo;
  wo.row_group_max_rows = o.rows_per_row_group;
  wo.row_group_max_bytes = 0;
  wo.defaults.dictionary = false;  // PLAIN values: page sizes follow the data
  wo.defaults.codec = parquet::Codec::UNCOMPRESSED;
  wo.defaults.page_max_rows = o.rows_per_page;
  wo.defaults.page_max_bytes = 0;
  // Long strings would put ~1 KB of min/max per chunk into the footer; keep the footer and the page
  // index small (they are read with one 64 KiB tail read per file, like the seed's footer read).
  wo.defaults.max_statistics_bytes = 16;
  wo.column_index_truncate_bytes = 8;
  wo.write_page_index = true;

  Fixture fx;
  fx.root = root;
  std::mt19937_64 rng(o.seed);
  const int64_t rows_per_file = int64_t{o.row_groups_per_file} * o.rows_per_row_group;
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string log;
  log += nlohmann::json{{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}}.dump() + "\n";
  log += nlohmann::json{{"metaData",
                         {{"id", "5eed0000-0000-4000-8000-000000000000"},
                          {"format", {{"provider", "parquet"}, {"options", nlohmann::json::object()}}},
                          {"schemaString", DeltaSchema(o).dump()},
                          {"partitionColumns", nlohmann::json::array()},
                          {"configuration", nlohmann::json::object()},
                          {"createdTime", now_ms}}}}
             .dump() +
         "\n";
  for (int f = 0; f < o.files; ++f) {
    FixtureFile file;
    file.relative_path = fmt::format("part-{:05d}.parquet", f);
    const std::string path = (fs::path(root) / file.relative_path).string();
    RAP_ASSIGN_OR_RETURN(auto sink, parquet::LocalFileSink::Open(path));
    RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(schema, sink.get(), wo));
    for (int rg = 0; rg < o.row_groups_per_file; ++rg) {
      const int64_t n = o.rows_per_row_group;
      std::vector<int64_t> row_id(static_cast<size_t>(n)), event_id(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t g = fx.total_rows + int64_t{rg} * n + i;  // row ordinal in the table
        const int64_t page = g / o.rows_per_page;
        const int64_t hot = (page * 7 + 3) % o.rows_per_page;  // the matching row moves around the page
        row_id[static_cast<size_t>(i)] = g;
        event_id[static_cast<size_t>(i)] = (g % o.rows_per_page == hot) ? kHotEventBase + page : g;
      }
      RecordBatch batch;
      batch.schema = schema;
      batch.num_rows = n;
      batch.columns.push_back(Int64Array(row_id));
      batch.columns.push_back(Int64Array(event_id));
      for (int c = 0; c < o.payload_columns; ++c) batch.columns.push_back(StringArray(n, o, rng));
      RAP_RETURN_NOT_OK(writer->Write(batch));
      RAP_RETURN_NOT_OK(writer->FlushRowGroup());
    }
    RAP_RETURN_NOT_OK(writer->Close());
    const auto& md = writer->metadata();
    for (const auto& rgm : md.row_groups) {
      for (const auto& cc : rgm.columns) {
        if (!cc.meta_data) continue;
        const auto& m = *cc.meta_data;
        const int64_t start = m.dictionary_page_offset ? std::min(*m.dictionary_page_offset, m.data_page_offset)
                                                       : m.data_page_offset;
        file.data_end = std::max(file.data_end, static_cast<uint64_t>(start + m.total_compressed_size));
      }
    }
    file.size = writer->summary().file_bytes;
    file.rows = rows_per_file;
    file.footer_and_index_bytes = file.size - file.data_end;
    fx.total_rows += rows_per_file;
    fx.total_bytes += file.size;
    fx.expected_matches += rows_per_file / o.rows_per_page;
    log += nlohmann::json{{"add",
                           {{"path", file.relative_path},
                            {"partitionValues", nlohmann::json::object()},
                            {"size", file.size},
                            {"modificationTime", now_ms},
                            {"dataChange", true},
                            {"stats", nlohmann::json{{"numRecords", rows_per_file}}.dump()}}}}
               .dump() +
           "\n";
    fx.files.push_back(std::move(file));
  }
  const std::string log_path = (fs::path(root) / "_delta_log" / "00000000000000000000.json").string();
  std::ofstream out(log_path, std::ios::trunc);
  out << log;
  out.close();
  if (!out) return Status::IOError(fmt::format("fixture: cannot write '{}'", log_path));
  return fx;
}

}  // namespace rap::bench

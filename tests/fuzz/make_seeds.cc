// rap_fuzz_seeds OUT_DIR SHARED_DIR: writes the generated seed corpora of the fuzz targets into
// OUT_DIR/<target>/ (scripts/fuzz.sh calls it once per build directory). Sources:
//   file_read            the Parquet files of parquet-testing data/ and bad_data/ up to 64 KiB
//   thrift_*             the footers, page headers and page indexes cut out of every parquet-testing file
//   encoding, levels     sections written by rap's own encoders (every encoding x physical type)
//   codec                text compressed by every codec rap writes
//   delta_log            the commits (and checkpoints) of ../shared/delta-tables, NUL-separated
//   deletion_vector      the bitmaps inside the deletion-vector files of ../shared/delta-tables
//   index_manifest       a manifest written by ManifestToJson
//   index_latest_bundle  a latest bundle (manifest and one schema file) written by LatestBundleToJson
//   index_fragment       fragments written by WriteFragment (int64 key with cover + hoist; string key)
//   orc_tail             the Apache ORC example files of ../shared/orc up to 64 KiB
// The hand-written seeds (where, server_query, orc_rle, ...) are committed in tests/fuzz/corpus/<target>/.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/memory_store.h"
#include "rap/codec/codec.h"
#include "rap/format/encoding.h"
#include "rap/format/footer.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"
#include "rap/index/fragment.h"
#include "rap/index/latest_bundle.h"
#include "rap/index/manifest.h"

namespace fs = std::filesystem;
using namespace rap;

namespace {

std::string g_out;
int g_written = 0;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::path(g_out) / target;
  fs::create_directories(dir);
  std::ofstream f(dir / name, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ++g_written;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Slice(const std::string& file, int64_t offset, int64_t length) {
  if (offset < 0 || length <= 0 || static_cast<uint64_t>(offset) >= file.size()) return "";
  return file.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
}

void ParquetSeeds(const fs::path& dir) {
  if (!fs::is_directory(dir)) return;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    const std::string file = ReadAll(p);
    const std::string stem = dir.filename().string() + "_" + p.stem().string();
    if (file.size() <= 64 * 1024) {
      Write("file_read", stem, file);
      Write("index_fragment", stem, file);
    }
    if (file.size() < 12) continue;
    auto tail = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(file.data()), file.size());
    auto len = parquet::ParseFooterLength(tail.subspan(file.size() - 8), file.size(), p.string());
    if (!len.ok() || *len + 8 > file.size()) continue;
    const std::string footer = file.substr(file.size() - 8 - *len, *len);
    Write("thrift_file_metadata", stem, footer);
    auto md = parquet::DecodeFileMetaData(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(footer.data()), footer.size()));
    if (!md.ok()) continue;
    int headers = 0, column_indexes = 0, offset_indexes = 0;
    for (const auto& rg : md->row_groups) {
      for (const auto& cc : rg.columns) {
        if (cc.meta_data && headers < 6) {
          for (auto off : {std::optional<int64_t>(cc.meta_data->data_page_offset), cc.meta_data->dictionary_page_offset}) {
            if (!off) continue;
            std::string h = Slice(file, *off, 256);
            if (!h.empty()) Write("thrift_page_header", stem + "_" + std::to_string(headers++), h);
          }
        }
        if (cc.column_index_offset && cc.column_index_length && column_indexes < 4) {
          std::string b = Slice(file, *cc.column_index_offset, *cc.column_index_length);
          if (!b.empty()) Write("thrift_column_index", stem + "_" + std::to_string(column_indexes++), b);
        }
        if (cc.offset_index_offset && cc.offset_index_length && offset_indexes < 4) {
          std::string b = Slice(file, *cc.offset_index_offset, *cc.offset_index_length);
          if (!b.empty()) Write("thrift_offset_index", stem + "_" + std::to_string(offset_indexes++), b);
        }
      }
    }
  }
}

// Control bytes of the encoding target: encoding, type, type_length - 1, count (u16), pattern.
std::string EncodingHeader(parquet::Encoding e, parquet::Type t, int32_t type_length, int64_t n, uint8_t pattern) {
  std::string h;
  h.push_back(static_cast<char>(e));
  h.push_back(static_cast<char>(t));
  h.push_back(static_cast<char>(type_length - 1));
  h.push_back(static_cast<char>(n & 0xff));
  h.push_back(static_cast<char>(n >> 8));
  h.push_back(static_cast<char>(pattern));
  return h;
}

void EncodingSeeds() {
  using parquet::Encoding;
  using parquet::Type;
  std::mt19937_64 rng(42);
  const int64_t n = 300;
  for (int e = 0; e < 10; ++e) {
    for (int t = 0; t < 8; ++t) {
      const auto enc = static_cast<Encoding>(e);
      const auto type = static_cast<Type>(t);
      const int32_t type_length = 5;
      auto encoder = parquet::MakeValueEncoder(enc, type, type_length, /*dictionary_size=*/50);
      if (!encoder.ok()) continue;
      const bool indices = enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY;
      const int width = parquet::PhysicalWidth(type, type_length);
      if (indices) {
        std::vector<int32_t> codes(n);
        for (auto& c : codes) c = static_cast<int32_t>(rng() % 50);
        (*encoder)->PutIndices(codes.data(), n);
      } else if (width < 0) {
        std::vector<int32_t> offsets{0};
        std::string bytes;
        for (int64_t i = 0; i < n; ++i) {
          bytes += "value" + std::to_string(rng() % 1000);
          offsets.push_back(static_cast<int32_t>(bytes.size()));
        }
        (*encoder)->PutBinary(offsets.data(), reinterpret_cast<const uint8_t*>(bytes.data()), n);
      } else {
        std::vector<uint8_t> values(static_cast<size_t>(n * width));
        for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(rng() % 7);
        if (type == Type::BOOLEAN) {
          for (auto& v : values) v &= 1;
        }
        (*encoder)->PutFixed(values.data(), n);
      }
      std::string section;
      (*encoder)->Finish(&section);
      const std::string name = std::to_string(e) + "_" + std::to_string(t);
      Write("encoding", name, EncodingHeader(enc, type, type_length, n, 0x1b) + section);
      Write("encoding", name + "_skip", EncodingHeader(enc, type, type_length, n, 0x9b) + section);
    }
  }
}

void LevelSeeds() {
  std::mt19937_64 rng(7);
  for (int width : {1, 2, 3, 5, 8, 12, 16}) {
    const int64_t n = 500;
    parquet::RleBitPackedEncoder enc(width);
    std::vector<int16_t> levels(n);
    for (int64_t i = 0; i < n; ++i) {
      levels[i] = static_cast<int16_t>(i % 50 < 30 ? 1 : rng() % (1u << width));  // runs and literals
    }
    enc.PutBatch(levels.data(), n);
    std::string hybrid;
    enc.Finish(&hybrid);
    auto header = [&](int mode) {
      std::string h;
      h.push_back(static_cast<char>(mode));
      h.push_back(static_cast<char>(width));
      h.push_back(static_cast<char>(n & 0xff));
      h.push_back(static_cast<char>(n >> 8));
      return h;
    };
    const uint32_t len = static_cast<uint32_t>(hybrid.size());
    std::string prefixed(reinterpret_cast<const char*>(&len), 4);
    Write("levels", "v1_rle_" + std::to_string(width), header(0) + prefixed + hybrid);
    Write("levels", "v1_bitpacked_" + std::to_string(width), header(1) + hybrid);
    Write("levels", "v2_" + std::to_string(width), header(2) + hybrid);
    Write("levels", "hybrid_" + std::to_string(width), header(3) + hybrid);
  }
}

void CodecSeeds() {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "row " + std::to_string(i * 37 % 101) + " of the fuzz seed; ";
  for (int c = 0; c < 8; ++c) {
    const auto codec = static_cast<parquet::Codec>(c);
    std::string packed;
    if (!rap::codec::IsCodecSupported(codec) || !rap::codec::Compress(codec, 0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), &packed).ok()) {
      continue;
    }
    std::string h;
    h.push_back(static_cast<char>(c));
    h.push_back(static_cast<char>(text.size() & 0xff));
    h.push_back(static_cast<char>((text.size() >> 8) & 0xff));
    h.push_back(static_cast<char>(text.size() >> 16));
    Write("codec", "codec_" + std::to_string(c), h + packed);
  }
}

void DeltaSeeds(const fs::path& tables) {
  if (!fs::is_directory(tables)) return;
  for (const auto& t : fs::recursive_directory_iterator(tables)) {
    if (!t.is_directory() || t.path().filename() != "_delta_log") continue;
    std::vector<fs::path> commits;
    for (const auto& e : fs::directory_iterator(t.path())) {
      const std::string n = e.path().filename().string();
      if (n.size() == 25 && n.ends_with(".json")) commits.push_back(e.path());
    }
    std::sort(commits.begin(), commits.end());
    std::string seed;
    for (size_t i = 0; i < commits.size() && i < 16; ++i) {
      if (i > 0) seed.push_back('\0');
      seed += ReadAll(commits[i]);
    }
    std::string name = fs::relative(t.path().parent_path(), tables).string();
    std::replace(name.begin(), name.end(), '/', '_');
    if (!seed.empty() && seed.size() < 256 * 1024) Write("delta_log", name, seed);
    // A checkpoint as the segment of its version (the commits before it stay JSON).
    for (const auto& e : fs::directory_iterator(t.path())) {
      const std::string n = e.path().filename().string();
      if (n.find(".checkpoint.parquet") == std::string::npos || n.find(".checkpoint.parquet") != 20) continue;
      const int version = std::stoi(n.substr(0, 20));
      if (version >= 16 || e.file_size() > 64 * 1024) continue;
      std::string cp;
      for (int v = 0; v < version; ++v) cp += std::string(v < static_cast<int>(commits.size()) ? ReadAll(commits[v]) : "") + '\0';
      cp += ReadAll(e.path());
      Write("delta_log", name + "_checkpoint_" + std::to_string(version), cp);
    }
  }
  // Deletion-vector files: <version byte><u32 BE size><bitmap><u32 CRC> per vector; the bitmap of the first.
  for (const auto& e : fs::recursive_directory_iterator(tables)) {
    const std::string n = e.path().filename().string();
    if (!e.is_regular_file() || !n.starts_with("deletion_vector_") || e.file_size() > 64 * 1024) continue;
    const std::string file = ReadAll(e.path());
    if (file.size() < 9) continue;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(file.data()) + 1;
    const uint32_t size = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    if (5 + static_cast<size_t>(size) <= file.size()) Write("deletion_vector", n, file.substr(5, size));
  }
}

std::vector<index::Location> Cover(int64_t row) {
  return {{0, 0, 6, 4 + row * 100, 100, row, 10, ""}, {1, 2, 1, 4, 50, 0, 1000, ""}};
}

void IndexSeeds() {
  index::Manifest m;
  m.version = 3;
  m.table_root = "../..";
  m.table_kind = "delta";
  m.table_version = 7;
  m.key = {{"id", index::KeyType::kInt64}};
  m.buckets = 2;
  m.cover = {"v"};
  m.hoist = {"h"};
  index::FileEntry f;
  f.ordinal = 0;
  f.path = "part-0.parquet";
  f.size = 1234;
  f.etag = "e1";
  f.num_rows = 100;
  m.files.push_back(f);
  f.ordinal = 1;
  f.path = "part-1.parquet";
  f.removed = true;
  m.files.push_back(f);
  index::FragmentEntry fe;
  fe.path = "b0/r1.parquet";
  fe.entries = 10;
  fe.rows = 100;
  fe.size = 999;
  fe.min_key.parts = {{1, ""}};
  fe.max_key.parts = {{90, ""}};
  fe.files = {{0, 2}};
  m.fragments.push_back(fe);
  Write("index_manifest", "manifest_covered", index::ManifestToJson(m));
  {
    index::LatestBundle b;
    b.manifest = m;
    b.manifest.schemas = {"schemas/a.parquet"};
    b.schema_files.emplace("schemas/a.parquet", Buffer::Copy(std::string_view("PAR1\x15\x00PAR1")));
    Write("index_latest_bundle", "bundle", index::LatestBundleToJson(b));
  }

  // Fragments: an int64 key with covering locations and a hoisted column, and a two-part string key.
  fuzz::MemoryStore store;
  std::vector<index::IndexEntry> entries;
  for (int64_t i = 0; i < 40; ++i) {
    index::IndexEntry e;
    e.key.parts = {{i * 3, ""}};
    e.file = static_cast<int32_t>(i % 2);
    e.first_row = i * 10;
    e.num_rows = 2;
    e.cover = Cover(i);
    entries.push_back(std::move(e));
  }
  const std::vector<index::KeyColumn> key = {{"id", index::KeyType::kInt64}};
  index::SortEntries(key, &entries);
  index::FragmentWriteOptions wo;
  wo.page_rows = 16;
  auto written = index::WriteFragment(store, "idx", "covered.parquet", key, /*cover=*/true, {}, 0, 1, entries, wo);
  if (written.ok()) {
    auto tail = store.ReadTail("idx/covered.parquet", 1 << 20, {}, nullptr);
    if (tail.ok()) Write("index_fragment", "rap_covered", std::string(reinterpret_cast<const char*>(tail->first.data()), tail->first.size()));
  } else {
    std::cerr << "rap_fuzz_seeds: covered fragment: " << written.status().ToString() << "\n";
  }
  std::vector<index::IndexEntry> named;
  for (int64_t i = 0; i < 40; ++i) {
    index::IndexEntry e;
    e.key.parts = {{0, "name" + std::to_string(i)}, {i, ""}};
    e.first_row = i;
    e.num_rows = 1;
    named.push_back(std::move(e));
  }
  const std::vector<index::KeyColumn> key2 = {{"name", index::KeyType::kString}, {"n", index::KeyType::kInt32}};
  index::SortEntries(key2, &named);
  written = index::WriteFragment(store, "idx", "named.parquet", key2, /*cover=*/false, {}, 0, 1, named, wo);
  if (written.ok()) {
    auto tail = store.ReadTail("idx/named.parquet", 1 << 20, {}, nullptr);
    if (tail.ok()) Write("index_fragment", "rap_named", std::string(reinterpret_cast<const char*>(tail->first.data()), tail->first.size()));
  } else {
    std::cerr << "rap_fuzz_seeds: named fragment: " << written.status().ToString() << "\n";
  }
}

}  // namespace

void OrcSeeds(const fs::path& dir) {
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".orc" || e.file_size() > 64 * 1024) continue;
      Write("orc_tail", e.path().filename().string(), ReadAll(e.path()));
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) == "--help") {
    std::cerr << "usage: rap_fuzz_seeds OUT_DIR SHARED_DIR\n"
                 "Writes the generated seed corpora of the fuzz targets into OUT_DIR/<target>/ from\n"
                 "SHARED_DIR/parquet-testing, SHARED_DIR/delta-tables and rap's own writers.\n";
    return argc == 2 ? 0 : 2;
  }
  g_out = argv[1];
  const fs::path shared = argv[2];
  ParquetSeeds(shared / "parquet-testing" / "data");
  ParquetSeeds(shared / "parquet-testing" / "bad_data");
  EncodingSeeds();
  LevelSeeds();
  CodecSeeds();
  DeltaSeeds(shared / "delta-tables");
  IndexSeeds();
  OrcSeeds(shared / "orc" / "examples");
  std::cout << "rap_fuzz_seeds: " << g_written << " seeds in " << g_out << "\n";
  return 0;
}

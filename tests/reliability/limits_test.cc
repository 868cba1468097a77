// Files built to blow up the reader: a tiny ZSTD page that really decompresses to 200 MiB, a page
// header claiming 2 GiB decompressed, a dictionary page claiming 2^31-1 entries (fixed-width and
// strings), and a list page claiming 2^31-1 elements. Each read ends with a clear error naming the
// file (ResourceExhausted where the claim is over the page limit, Corrupt where the bytes cannot
// hold what is claimed), and the peak RSS of the read (VmHWM, reset before each case) stays under
// the page limit, the reader's memory budget, plus a fixed allowance for the process. The same files
// read through a Scanner whose memory budget (ScanOptions::memory_limit) is the only limit (the
// page limit left at its 1 GiB default) end with ResourceExhausted from the budget, naming the file,
// column and page offset, and the peak RSS stays under the budget.
#include <gtest/gtest.h>
#include <zstd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "rap/format/thrift.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/read/scanner.h"
#include "testing/paths.h"
#include "testing/result_check.h"

namespace rap {
namespace {

using namespace rap::parquet;

constexpr int64_t kBudget = 64 << 20;          // FileReaderOptions::max_page_bytes in these reads
constexpr int64_t kAllowanceKb = 96 << 10;     // process growth besides the page buffers (KiB)

// Peak resident set since the last reset, in KiB.
int64_t PeakRssKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

struct Page {
  PageHeader header;
  std::string body;
};

// PAR1, the pages of one column chunk, the footer: one row group of `num_rows` rows.
std::string BuildFile(const std::vector<SchemaElement>& schema, Type type, Codec codec, int64_t num_rows,
                      const std::vector<Page>& pages) {
  std::string file = "PAR1";
  ColumnMetaData cm;
  cm.type = type;
  cm.encodings = {Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY};
  cm.path_in_schema = {};
  for (size_t i = 1; i < schema.size(); ++i) cm.path_in_schema.push_back(schema[i].name);
  cm.codec = codec;
  cm.num_values = num_rows;
  for (const Page& p : pages) {
    const int64_t offset = static_cast<int64_t>(file.size());
    if (p.header.type == PageType::DICTIONARY_PAGE) {
      cm.dictionary_page_offset = offset;
    } else if (cm.data_page_offset == 0) {
      cm.data_page_offset = offset;
    }
    EncodePageHeader(p.header, &file);
    file += p.body;
  }
  cm.total_compressed_size = static_cast<int64_t>(file.size()) - 4;
  cm.total_uncompressed_size = cm.total_compressed_size;
  FileMetaData md;
  md.version = 1;
  md.schema = schema;
  md.num_rows = num_rows;
  RowGroup rg;
  ColumnChunk cc;
  cc.file_offset = 4;
  cc.meta_data = cm;
  rg.columns = {cc};
  rg.num_rows = num_rows;
  rg.total_byte_size = cm.total_uncompressed_size;
  md.row_groups = {rg};
  std::string footer;
  EncodeFileMetaData(md, &footer);
  file += footer;
  const uint32_t len = static_cast<uint32_t>(footer.size());
  file.append(reinterpret_cast<const char*>(&len), 4);
  file += "PAR1";
  return file;
}

std::vector<SchemaElement> FlatSchema(Type type, Repetition rep = Repetition::REQUIRED) {
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement col;
  col.name = "c";
  col.type = type;
  col.repetition_type = rep;
  return {root, col};
}

// optional group l (LIST) { repeated group list { optional int32 element } }
std::vector<SchemaElement> ListSchema() {
  SchemaElement root, l, list, element;
  root.name = "schema";
  root.num_children = 1;
  l.name = "l";
  l.repetition_type = Repetition::OPTIONAL;
  l.num_children = 1;
  l.converted_type = ConvertedType::LIST;
  list.name = "list";
  list.repetition_type = Repetition::REPEATED;
  list.num_children = 1;
  element.name = "element";
  element.type = Type::INT32;
  element.repetition_type = Repetition::OPTIONAL;
  return {root, l, list, element};
}

PageHeader DataPage(int32_t num_values, Encoding encoding, size_t compressed, int64_t uncompressed) {
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.compressed_page_size = static_cast<int32_t>(compressed);
  h.uncompressed_page_size = static_cast<int32_t>(uncompressed);
  DataPageHeader d;
  d.num_values = num_values;
  d.encoding = encoding;
  h.data_page_header = d;
  return h;
}

// `bytes` of zeros as one ZSTD frame, compressed in 1 MiB steps (the input is never whole in memory).
std::string ZstdZeros(size_t bytes) {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setPledgedSrcSize(cctx.get(), bytes);
  const std::string zeros(1 << 20, '\0');
  std::string out(ZSTD_CStreamOutSize(), '\0');
  std::string frame;
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(zeros.size(), bytes - done);
    done += n;
    ZSTD_inBuffer in{zeros.data(), n, 0};
    const ZSTD_EndDirective mode = done == bytes ? ZSTD_e_end : ZSTD_e_continue;
    size_t left = 0;
    do {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      left = ZSTD_compressStream2(cctx.get(), &o, &in, mode);
      EXPECT_FALSE(ZSTD_isError(left));
      frame.append(out.data(), o.pos);
    } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
  }
  return frame;
}

class Limits : public ::testing::Test {
 protected:
  // Reads the file with the page budget; returns the error and checks the peak RSS of the read.
  Status ReadWithBudget(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.Join(name);
    rap::testing::WriteStringToFile(path, bytes);
    auto url = io::OpenUrl(path);
    RAP_TEST_CHECK_OK(url);
    read::FileReaderOptions o;
    o.max_page_bytes = kBudget;
    o.use_metadata_cache = false;
    ResetPeakRss();
    const int64_t before = PeakRssKb();
    Status st = [&]() -> Status {
      RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(url->store, url->path, o));
      RAP_ASSIGN_OR_RETURN(read::Projection all, reader->Project());
      RAP_ASSIGN_OR_RETURN(auto batches, reader->ReadAll(std::nullopt, all));
      return Status::OK();
    }();
    const int64_t peak = PeakRssKb();
    EXPECT_LT(peak - before, kBudget / 1024 + kAllowanceKb) << name << ": peak RSS grew by " << (peak - before) << " KiB";
    EXPECT_NE(st.ToString().find(name), std::string::npos) << st.ToString();
    std::cout << name << ": peak RSS +" << (peak - before) << " KiB: " << st.ToString() << "\n";
    return st;
  }

  // Reads the file through a Scanner (3 producers, RAW warmup) with a memory budget of kBudget
  // bytes and the default page limit; checks the peak RSS of the scan.
  Status ScanWithBudget(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.Join(name);
    rap::testing::WriteStringToFile(path, bytes);
    auto url = io::OpenUrl(path);
    RAP_TEST_CHECK_OK(url);
    read::ScanSource src;
    src.store = url->store;
    read::ScanFile f;
    f.path = url->path;
    f.size = bytes.size();
    src.files = {f, f};  // the second one is warmed
    read::ScanOptions o;
    o.memory_limit = kBudget;
    o.reader.use_metadata_cache = false;
    o.prefetch.min_file_bytes = 0;
    ResetPeakRss();
    const int64_t before = PeakRssKb();
    Status st = [&]() -> Status {
      RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(src, o));
      while (true) {
        RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
        if (!b) break;
      }
      return Status::OK();
    }();
    const int64_t peak = PeakRssKb();
    EXPECT_LT(peak - before, kBudget / 1024) << name << ": peak RSS grew by " << (peak - before) << " KiB";
    EXPECT_NE(st.ToString().find(name), std::string::npos) << st.ToString();
    EXPECT_TRUE(st.Is(StatusCode::kResourceExhausted)) << st.ToString();
    EXPECT_NE(st.message().find("more than the memory budget of 67108864 bytes"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("page at offset"), std::string::npos) << st.ToString();
    std::cout << name << " (scan, budget): peak RSS +" << (peak - before) << " KiB: " << st.ToString() << "\n";
    return st;
  }

  rap::testing::TempDir dir_;
};

TEST_F(Limits, ZstdPageThatDecompressesTo200MiB) {
  const size_t size = 200 << 20;
  const std::string frame = ZstdZeros(size);
  ASSERT_LT(frame.size(), 64u << 10);  // a tiny page
  const int32_t n = 1000;  // few values, so the page size (not the level memory) is what is over the limit
  const std::string file = BuildFile(FlatSchema(Type::INT64), Type::INT64, Codec::ZSTD, n,
                                     {{DataPage(n, Encoding::PLAIN, frame.size(), size), frame}});
  Status st = ReadWithBudget("zstd_bomb.parquet", file);
  EXPECT_TRUE(st.Is(StatusCode::kResourceExhausted)) << st.ToString();
  EXPECT_NE(st.message().find("page decompresses to 209715200 bytes"), std::string::npos) << st.ToString();
  st = ScanWithBudget("zstd_bomb_scan.parquet", file);
  EXPECT_NE(st.message().find("column 'c' page at offset 4: decompressed page: needs 209715200 bytes"),
            std::string::npos)
      << st.ToString();
}

TEST_F(Limits, PageClaimingTwoGiBDecompressed) {
  const std::string frame = ZstdZeros(1024);
  const std::string file = BuildFile(FlatSchema(Type::INT64), Type::INT64, Codec::ZSTD, 128,
                                     {{DataPage(128, Encoding::PLAIN, frame.size(), INT32_MAX), frame}});
  Status st = ReadWithBudget("claims_2gib.parquet", file);
  EXPECT_TRUE(st.Is(StatusCode::kResourceExhausted)) << st.ToString();
}

// A dictionary page whose header claims 2^31-1 entries in 16 bytes, then one data page of indices.
std::string DictionaryBomb(Type type) {
  PageHeader dict;
  dict.type = PageType::DICTIONARY_PAGE;
  const std::string values(16, '\x01');
  dict.compressed_page_size = dict.uncompressed_page_size = static_cast<int32_t>(values.size());
  DictionaryPageHeader dh;
  dh.num_values = INT32_MAX;
  dict.dictionary_page_header = dh;
  // Indices: bit width 1, one RLE run of 8 zeros.
  const std::string indices = std::string("\x01", 1) + std::string("\x10\x00", 2);
  return BuildFile(FlatSchema(type), type, Codec::UNCOMPRESSED, 8,
                   {{dict, values}, {DataPage(8, Encoding::RLE_DICTIONARY, indices.size(), indices.size()), indices}});
}

TEST_F(Limits, DictionaryClaimingTwoBillionInt64Entries) {
  Status st = ReadWithBudget("dict_int64.parquet", DictionaryBomb(Type::INT64));
  EXPECT_FALSE(st.ok());
  st = ScanWithBudget("dict_int64_scan.parquet", DictionaryBomb(Type::INT64));
  EXPECT_NE(st.message().find("dictionary of 2147483647 values: needs 17179869176 bytes"), std::string::npos)
      << st.ToString();
}

TEST_F(Limits, DictionaryClaimingTwoBillionStrings) {
  Status st = ReadWithBudget("dict_strings.parquet", DictionaryBomb(Type::BYTE_ARRAY));
  EXPECT_FALSE(st.ok());
  st = ScanWithBudget("dict_strings_scan.parquet", DictionaryBomb(Type::BYTE_ARRAY));
  EXPECT_NE(st.message().find("dictionary of 2147483647 values"), std::string::npos) << st.ToString();
}

TEST_F(Limits, ListClaimingTwoToThe31Elements) {
  // Repetition then definition levels (RLE, 4-byte length prefix): one run of 2^31-1 ones / threes.
  auto run = [](uint8_t value) {
    std::string r;
    uint64_t header = uint64_t{INT32_MAX} << 1;  // RLE run of INT32_MAX values
    while (header >= 0x80) {
      r.push_back(static_cast<char>((header & 0x7f) | 0x80));
      header >>= 7;
    }
    r.push_back(static_cast<char>(header));
    r.push_back(static_cast<char>(value));
    const uint32_t len = static_cast<uint32_t>(r.size());
    return std::string(reinterpret_cast<const char*>(&len), 4) + r;
  };
  const std::string body = run(1) + run(3) + std::string(8, '\0');
  const std::string file = BuildFile(ListSchema(), Type::INT32, Codec::UNCOMPRESSED, 1,
                                     {{DataPage(INT32_MAX, Encoding::PLAIN, body.size(), body.size()), body}});
  Status st = ReadWithBudget("list_2g.parquet", file);
  EXPECT_TRUE(st.Is(StatusCode::kResourceExhausted)) << st.ToString();
  st = ScanWithBudget("list_2g_scan.parquet", file);
  EXPECT_NE(st.message().find("2147483647 levels: needs 8589934588 bytes"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace rap

// Avro object container files (rap/avro/object_container.h) read through Avro C: the manifest lists
// and manifests of the shared Iceberg tables (deflate and null codecs), and malformed files that
// must give Corrupt naming the byte offset, never a crash.
#include "rap/avro/object_container.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testing/paths.h"

namespace rap::avro {
namespace {

std::string Ice(const std::string& rel) { return testing::SharedDir() + "/iceberg-tables/" + rel; }

Result<ContainerFile> Read(const std::string& bytes, const std::string& what = "f.avro") {
  return ReadContainerFile(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                           what);
}

TEST(AvroContainer, ManifestListOfPositionDeleteTable) {
  // Snapshot 1497619269847778439 of impala_v2_pos_deletes_parquet: its manifest list names 6 manifests.
  const std::string path = Ice(
      "impala_v2_pos_deletes_parquet/metadata/snap-1497619269847778439-1-ea749da1-7b98-4dca-a4eb-f7d5d62f9dde.avro");
  auto file = Read(testing::ReadFileToString(path), path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_NE(file->schema_json.find("manifest_file"), std::string::npos);
  ASSERT_EQ(file->records.size(), 6u);
  for (const Value& m : file->records) {
    ASSERT_EQ(m.kind, Kind::kRecord);
    const Value* p = m.Find("manifest_path");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->kind, Kind::kString);
    EXPECT_NE(p->bytes.find("-m0.avro"), std::string::npos) << p->bytes;
    int64_t content = -1;
    ASSERT_TRUE(m.GetInt("content", &content));
    EXPECT_TRUE(content == 0 || content == 1);
  }
}

TEST(AvroContainer, DeflateManifestEntries) {
  const std::string path = Ice("duckdb_lineitem_v2/metadata");
  // Every manifest of the lineitem table (deflate): each entry is a record with a data_file record.
  int manifests = 0;
  for (const auto& e : std::filesystem::directory_iterator(path)) {
    const std::string f = e.path().string();
    if (f.size() < 8 || f.substr(f.size() - 8) != "-m0.avro") continue;
    auto file = Read(testing::ReadFileToString(f), f);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_EQ(file->codec, "deflate");
    ASSERT_FALSE(file->records.empty());
    const Value* df = file->records[0].Find("data_file");
    ASSERT_NE(df, nullptr);
    int64_t n = 0;
    EXPECT_TRUE(df->GetInt("record_count", &n));
    EXPECT_GT(n, 0);
    ++manifests;
  }
  EXPECT_GE(manifests, 2);
}

TEST(AvroContainer, MalformedFilesAreCorrupt) {
  const std::string path = Ice(
      "impala_v2_pos_deletes_parquet/metadata/snap-1497619269847778439-1-ea749da1-7b98-4dca-a4eb-f7d5d62f9dde.avro");
  const std::string good = testing::ReadFileToString(path);
  ASSERT_GT(good.size(), 200u);
  auto no_magic = Read("Obj\x02" + good.substr(4));
  ASSERT_FALSE(no_magic.ok());
  EXPECT_NE(no_magic.status().message().find("magic"), std::string::npos);
  // Every truncation is an error naming a byte offset (or a too-short header), never a crash.
  for (size_t n = 0; n < good.size(); n += 7) {
    auto r = Read(good.substr(0, n));
    ASSERT_FALSE(r.ok()) << n;  // the file has one block: any cut loses part of it
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt) << r.status().ToString();
    EXPECT_NE(r.status().message().find("byte offset"), std::string::npos) << r.status().ToString();
  }
  // Every single-byte flip decodes or fails cleanly.
  for (size_t i = 0; i < good.size(); i += 3) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    auto r = Read(bad);
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
}

// The header of a container file with `schema` and no blocks (zigzag varints, as the spec encodes longs).
std::string HeaderOnly(const std::string& schema) {
  auto zigzag = [](int64_t v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    std::string out;
    while (z >= 0x80) {
      out += static_cast<char>((z & 0x7f) | 0x80);
      z >>= 7;
    }
    out += static_cast<char>(z);
    return out;
  };
  const std::string key = "avro.schema";
  std::string f = std::string("Obj\x01", 4) + zigzag(1) + zigzag(static_cast<int64_t>(key.size())) + key +
                  zigzag(static_cast<int64_t>(schema.size())) + schema + zigzag(0);
  return f + std::string(16, '\x5a');
}

TEST(AvroContainer, SchemaChecksBeforeAvroC) {
  // A well-formed schema with no blocks: no records.
  auto ok = Read(HeaderOnly(R"({"type":"record","name":"a","fields":[{"name":"x","type":"int"}]})"));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(ok->records.empty());
  // A named type defined twice (Avro C leaks its partial schema on it: the fuzz finding) is Corrupt
  // before Avro C sees it, naming the type, as is the same name in one inherited namespace.
  for (const std::string schema :
       {R"({"type":"record","name":"a","fields":[{"name":"x","type":{"type":"enum","name":"a","symbols":["A"]}}]})",
        R"({"type":"record","name":"n.r","fields":[{"name":"x","type":{"type":"fixed","name":"f","size":2}},)"
        R"({"name":"y","type":{"type":"fixed","name":"n.f","size":2}}]})"}) {
    auto r = Read(HeaderOnly(schema));
    ASSERT_FALSE(r.ok()) << schema;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
    EXPECT_NE(r.status().message().find("twice"), std::string::npos) << r.status().ToString();
  }
  // The same simple name in two namespaces is two types (the specification's full names).
  auto two = Read(HeaderOnly(R"({"type":"record","name":"a","namespace":"p","fields":[{"name":"x","type":)"
                             R"({"type":"record","name":"a","namespace":"q","fields":[]}}]})"));
  EXPECT_TRUE(two.ok()) << two.status().ToString();
  // Nesting past the limit, and a schema that is not JSON.
  std::string deep = "\"int\"";
  for (int i = 0; i < 100; ++i) deep = R"({"type":"array","items":)" + deep + "}";
  auto d = Read(HeaderOnly(deep));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("deeper"), std::string::npos) << d.status().ToString();
  auto j = Read(HeaderOnly("{not json"));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace rap::avro

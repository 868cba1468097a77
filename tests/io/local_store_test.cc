#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "rap/io/object_store.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  return s;
}

TEST(LocalStore, HeadReadRangesAndTail) {
  rap::testing::TempDir dir;
  std::string data = Pattern(10000);
  rap::testing::WriteStringToFile(dir.Join("a.bin"), data);
  auto r = OpenUrl(dir.Join("a.bin"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ObjectStore& store = *r->store;
  EXPECT_FALSE(store.is_remote());
  EXPECT_EQ(store.endpoint(), "file");

  auto info = store.Head(r->path);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->size, 10000u);
  EXPECT_NE(info->etag.find("-10000"), std::string::npos);
  EXPECT_GT(info->mtime_ms, 0);

  std::vector<ByteRange> ranges = {{0, 1}, {9999, 1}, {100, 5000}, {0, 10000}, {50, 0}};
  ReadStats stats;
  auto bufs = store.ReadRanges(r->path, ranges, ReadOptions{}, &stats);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  ASSERT_EQ(bufs->size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ((*bufs)[i].view(), std::string_view(data).substr(ranges[i].offset, ranges[i].length)) << i;
  }
  EXPECT_EQ(stats.requests.size(), ranges.size());
  EXPECT_EQ(stats.payload_bytes, 1u + 1 + 5000 + 10000);

  auto tail = store.ReadTail(r->path, 300, ReadOptions{}, nullptr);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->first.view(), std::string_view(data).substr(9700));
  EXPECT_EQ(tail->second.size, 10000u);
  auto whole = store.ReadTail(r->path, 1 << 20, ReadOptions{}, nullptr);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->first.view(), data);
}

TEST(LocalStore, Errors) {
  rap::testing::TempDir dir;
  rap::testing::WriteStringToFile(dir.Join("a.bin"), "hello");
  auto r = OpenUrl("file://" + dir.Join("a.bin"));
  ASSERT_TRUE(r.ok());
  std::vector<ByteRange> past_end = {{3, 3}};
  auto bad = r->store->ReadRanges(r->path, past_end, ReadOptions{}, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("outside the object of 5 bytes"), std::string::npos);

  auto missing = r->store->Head(dir.Join("nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().Is(StatusCode::kNotFound));

  ReadOptions opts;
  opts.expected_etag = "1-5";
  std::vector<ByteRange> one = {{0, 1}};
  auto changed = r->store->ReadRanges(r->path, one, opts, nullptr);
  ASSERT_FALSE(changed.ok());
  EXPECT_TRUE(changed.status().Is(StatusCode::kChanged));

  CancellationToken token;
  token.Cancel();
  ReadOptions copts;
  copts.cancel = &token;
  auto cancelled = r->store->ReadRanges(r->path, one, copts, nullptr);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_TRUE(cancelled.status().Is(StatusCode::kCancelled));

  EXPECT_TRUE(OpenUrl("ftp://x/y").status().Is(StatusCode::kNotSupported));
  EXPECT_FALSE(OpenUrl("file://relative/path").ok());
}

TEST(LocalStore, ListAndPut) {
  rap::testing::TempDir dir;
  auto r = OpenUrl(dir.path());
  ASSERT_TRUE(r.ok());
  ObjectStore& store = *r->store;
  ASSERT_TRUE(store.Put(dir.Join("t/b/2.bin"), Buffer::Copy("two")).ok());
  ASSERT_TRUE(store.Put(dir.Join("t/a.bin"), Buffer::Copy("one")).ok());
  ASSERT_TRUE(store.Put(dir.Join("t/c/x/3.bin"), Buffer::Copy("three")).ok());
  ASSERT_TRUE(store.Put(dir.Join("u.bin"), Buffer::Copy("u")).ok());
  // Overwrite is atomic and replaces the content.
  ASSERT_TRUE(store.Put(dir.Join("t/a.bin"), Buffer::Copy("ONE!")).ok());
  EXPECT_EQ(rap::testing::ReadFileToString(dir.Join("t/a.bin")), "ONE!");

  auto all = store.List(dir.Join("t"));
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].path, dir.Join("t/a.bin"));
  EXPECT_EQ((*all)[1].path, dir.Join("t/b/2.bin"));
  EXPECT_EQ((*all)[2].path, dir.Join("t/c/x/3.bin"));
  EXPECT_EQ((*all)[0].size, 4u);

  auto pre = store.List(dir.Join("t/b"));
  ASSERT_TRUE(pre.ok());
  ASSERT_EQ(pre->size(), 1u);
  auto partial = store.List(dir.Join("u"));  // a path prefix, not a directory
  ASSERT_TRUE(partial.ok());
  ASSERT_EQ(partial->size(), 1u);
  EXPECT_EQ((*partial)[0].path, dir.Join("u.bin"));
  // No temp files left behind.
  auto everything = store.List(dir.path());
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(everything->size(), 4u);
}

// Descriptors this process holds open on files under `dir` (the /proc/self/fd links).
int OpenDescriptorsUnder(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code lec;
    const std::string target = std::filesystem::read_symlink(it->path(), lec).string();
    if (!lec && target.rfind(dir, 0) == 0) ++n;
  }
  return n;
}

std::string ReadAll(ObjectStore& store, const std::string& path, uint64_t n, const std::string& etag = "") {
  ReadOptions ro;
  ro.expected_etag = etag;
  ByteRange r{0, n};
  auto b = store.ReadRanges(path, std::span<const ByteRange>(&r, 1), ro, nullptr);
  if (!b.ok()) return "error: " + b.status().ToString();
  return std::string(reinterpret_cast<const char*>((*b)[0].data()), (*b)[0].size());
}

// Reads reuse a cached descriptor (local_store.cc, Acquire), and still see every change of the file
// a path names: a replacement by rename (a new inode), an in-place rewrite, a deletion.
TEST(LocalStore, CachedDescriptorsFollowTheFileAPathNames) {
  rap::testing::TempDir dir;
  const std::string path = dir.Join("f.bin");
  rap::testing::WriteStringToFile(path, "first version");
  auto r = OpenUrl(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ObjectStore& store = *r->store;
  auto before = store.Head(path);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(ReadAll(store, path, 13), "first version");
  EXPECT_EQ(ReadAll(store, path, 13), "first version");
  EXPECT_EQ(OpenDescriptorsUnder(dir.path()), 1) << "one cached descriptor for repeated reads";

  // Replaced by rename (what Put and every writer here do): the new inode's bytes, and a reader
  // that expects the old ETag is told the object changed. (The local ETag is mtime and size, so the
  // new version differs in size: two same-size versions within one mtime tick share an ETag.)
  const std::string tmp = dir.Join("f.tmp");
  rap::testing::WriteStringToFile(tmp, "other version!");
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
  EXPECT_EQ(ReadAll(store, path, 14), "other version!");
  const std::string changed = ReadAll(store, path, 13, before->etag);
  EXPECT_NE(changed.find("changed"), std::string::npos) << changed;
  EXPECT_EQ(OpenDescriptorsUnder(dir.path()), 1) << "the replaced file's descriptor is closed";

  // Rewritten in place (same inode): the new bytes through the cached descriptor.
  rap::testing::WriteStringToFile(path, "third version, longer");
  EXPECT_EQ(ReadAll(store, path, 21), "third version, longer");

  // Deleted behind the store's back: NotFound, although a descriptor is cached.
  std::filesystem::remove(path);
  const std::string gone = ReadAll(store, path, 5);
  EXPECT_NE(gone.find("Not found"), std::string::npos) << gone;

  // Deleted through the store: its descriptor is closed at once.
  rap::testing::WriteStringToFile(path, "again");
  EXPECT_EQ(ReadAll(store, path, 5), "again");
  ASSERT_TRUE(store.Delete(path).ok());
  EXPECT_EQ(OpenDescriptorsUnder(dir.path()), 0);
}

TEST(LocalStore, CachedDescriptorsAreBounded) {
  rap::testing::TempDir dir;
  ObjectStore* store = nullptr;
  for (int i = 0; i < 100; ++i) {
    const std::string path = dir.Join("f" + std::to_string(i));
    rap::testing::WriteStringToFile(path, "file " + std::to_string(i));
    auto r = OpenUrl(path);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    store = r->store.get();
    EXPECT_EQ(ReadAll(*store, path, 6), "file " + std::to_string(i).substr(0, 1));
  }
  EXPECT_LE(OpenDescriptorsUnder(dir.path()), 64);
  EXPECT_GE(OpenDescriptorsUnder(dir.path()), 1);
}

TEST(ObjectStore, NativeMergesAndSlices) {
  rap::testing::TempDir dir;
  std::string data = Pattern(4 << 20);
  rap::testing::WriteStringToFile(dir.Join("a.bin"), data);
  auto r = OpenUrl(dir.Join("a.bin"));
  ASSERT_TRUE(r.ok());
  // Unsorted, overlapping, and one range far away (> 1 MiB gap).
  std::vector<ByteRange> ranges = {{3 << 20, 100}, {10, 20}, {0, 15}, {500000, 1000}, {25, 5}};
  ReadStats stats;
  auto bufs = r->store->ReadRangesNative(r->path, ranges, ReadOptions{}, &stats);
  ASSERT_TRUE(bufs.ok());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ((*bufs)[i].view(), std::string_view(data).substr(ranges[i].offset, ranges[i].length)) << i;
  }
  EXPECT_EQ(stats.requests.size(), 2u);  // [0, 501000) and the far one
}

TEST(ObjectStore, FinalizeReadStatsUnionsPayloadIntervals) {
  ReadStats s;
  RequestTiming a{{0, 10}, 0.0, 1.0, 3.0, 10, 1};
  RequestTiming b{{10, 10}, 0.5, 2.0, 4.0, 20, 3};
  RequestTiming c{{20, 10}, 5.0, 6.0, 6.5, 5, 1};
  s.requests = {a, b, c};
  FinalizeReadStats(&s);
  EXPECT_EQ(s.payload_bytes, 35u);
  EXPECT_DOUBLE_EQ(s.payload_wall_s, 3.0 + 0.5);
  EXPECT_DOUBLE_EQ(s.wall_s, 6.5);
  EXPECT_EQ(s.retries, 2);
}

TEST(ObjectStore, JoinPath) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "/b"), "a/b");
  EXPECT_EQ(JoinPath("/", "b"), "/b");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("a", ""), "a");
  EXPECT_EQ(JoinPath("s3dir//", "x/y"), "s3dir/x/y");
}

}  // namespace
}  // namespace rap::io

// The latest-version bundle: the newest manifest and its schema files in one object.
#include "rap/index/latest_bundle.h"

#include <openssl/evp.h>

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/util/thread_pool.h"

namespace rap::index {

using nlohmann::json;

namespace {

// Base64 through OpenSSL's EVP block coder (already a dependency of the index for key hashing).
std::string Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Unbase64(std::string_view text, const std::string& what) {
  if (text.size() % 4 != 0 || text.size() > (size_t{1} << 30)) {
    return Status::Corrupt(what + ": a schema file's base64 is " + std::to_string(text.size()) +
                           " characters (not a multiple of 4)");
  }
  std::string out(3 * (text.size() / 4), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return Status::Corrupt(what + ": a schema file's base64 does not decode");
  // EVP_DecodeBlock keeps the padding's zero bytes: drop one per '='.
  size_t pad = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '=' && pad < 2; --i) ++pad;
  if (static_cast<size_t>(n) < pad) return Status::Corrupt(what + ": a schema file's base64 is all padding");
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace

std::string LatestBundlePath(const std::string& index_dir) { return io::JoinPath(index_dir, "_manifest/_latest.json"); }

std::string LatestBundleToJson(const LatestBundle& b) {
  json schemas = json::object();
  for (const auto& [path, bytes] : b.schema_files) schemas[path] = Base64(bytes.view());
  // The manifest is embedded as its own JSON text (ManifestToJson), so that it reads back exactly.
  std::string out = "{\"bundle_format\":" + std::to_string(kLatestBundleFormat) +
                    ",\"version\":" + std::to_string(b.manifest.version) + ",\"schema_files\":" + schemas.dump() +
                    ",\"manifest\":" + ManifestToJson(b.manifest) + "}";
  return out;
}

Result<LatestBundle> LatestBundleFromJson(std::string_view text, const std::string& what) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return Status::Corrupt(what + ": not JSON at byte " + std::to_string(e.byte) + " (" + e.what() + ")");
  } catch (const json::exception& e) {  // e.g. out_of_range: a number too large for any type
    return Status::Corrupt(what + ": not readable JSON (" + e.what() + ")");
  }
  if (!j.is_object()) return Status::Corrupt(what + ": not a JSON object");
  const auto fmt = j.find("bundle_format");
  if (fmt == j.end() || !fmt->is_number_integer()) return Status::Corrupt(what + ": /bundle_format missing");
  if (fmt->get<int64_t>() != kLatestBundleFormat) {
    return Status::NotSupported(what + ": bundle_format " + std::to_string(fmt->get<int64_t>()) + " (this rap reads " +
                                std::to_string(kLatestBundleFormat) + ")");
  }
  const auto ver = j.find("version");
  const auto man = j.find("manifest");
  const auto sch = j.find("schema_files");
  if (ver == j.end() || !ver->is_number_integer()) return Status::Corrupt(what + ": /version missing or not an integer");
  if (man == j.end() || !man->is_object()) return Status::Corrupt(what + ": /manifest missing or not an object");
  if (sch == j.end() || !sch->is_object()) return Status::Corrupt(what + ": /schema_files missing or not an object");
  LatestBundle b;
  RAP_ASSIGN_OR_RETURN(b.manifest, ManifestFromJson(man->dump(), what + " /manifest"));
  if (b.manifest.version != ver->get<int64_t>()) {
    return Status::Corrupt(what + ": /version " + std::to_string(ver->get<int64_t>()) + " but the manifest is version " +
                           std::to_string(b.manifest.version));
  }
  for (const auto& [path, value] : sch->items()) {
    if (!value.is_string()) return Status::Corrupt(what + ": /schema_files/" + path + " is not a string");
    if (std::find(b.manifest.schemas.begin(), b.manifest.schemas.end(), path) == b.manifest.schemas.end()) {
      return Status::Corrupt(what + ": /schema_files/" + path + " is not a schema file of the manifest");
    }
    RAP_ASSIGN_OR_RETURN(std::string bytes, Unbase64(value.get_ref<const std::string&>(), what + " /schema_files/" + path));
    b.schema_files.emplace(path, Buffer::FromString(std::move(bytes)));
  }
  return b;
}

Status WriteLatestBundle(io::ObjectStore& store, const std::string& index_dir, const Manifest& m) {
  LatestBundle b;
  b.manifest = m;
  // The schema files in one parallel round (a publisher over S3 would otherwise wait a round trip
  // per file).
  using Tail = Result<std::pair<Buffer, io::ObjectInfo>>;
  std::vector<Tail> tails(m.schemas.size(), Status::Internal("not read"));
  {
    ThreadPool pool(std::min<size_t>(8, std::max<size_t>(1, m.schemas.size())));
    for (size_t i = 0; i < m.schemas.size(); ++i) {
      pool.Submit([&, i] {
        tails[i] = store.ReadTail(io::JoinPath(index_dir, m.schemas[i]), kLatestBundleMaxBytes, io::ReadOptions{}, nullptr);
      });
    }
  }  // the pool finishes its tasks and joins
  uint64_t total = 0;
  bool fits = true;
  for (size_t i = 0; i < tails.size() && fits; ++i) {
    RAP_RETURN_NOT_OK(tails[i].status());
    total += tails[i]->second.size;
    fits = tails[i]->second.size <= tails[i]->first.size() && total <= kLatestBundleMaxBytes;
    if (fits) b.schema_files.emplace(m.schemas[i], std::move(tails[i]->first));
  }
  std::string text;
  if (fits) {
    text = LatestBundleToJson(b);
    fits = text.size() <= kLatestBundleMaxBytes;
  }
  if (!fits) {
    Status st = store.Delete(LatestBundlePath(index_dir));
    if (st.ok() || st.code() == StatusCode::kNotFound || st.code() == StatusCode::kNotSupported) return Status::OK();
    return st;
  }
  return store.Put(LatestBundlePath(index_dir), Buffer::FromString(std::move(text)));
}

Result<std::optional<LatestBundle>> ReadLatestBundle(io::ObjectStore& store, const std::string& index_dir) {
  const std::string path = LatestBundlePath(index_dir);
  auto tail = store.ReadTail(path, kLatestBundleMaxBytes, io::ReadOptions{}, nullptr);
  if (!tail.ok()) {
    if (tail.status().code() == StatusCode::kNotFound) return std::optional<LatestBundle>();
    return tail.status();
  }
  if (tail->second.size > tail->first.size()) return std::optional<LatestBundle>();  // over the limit: not ours
  auto b = LatestBundleFromJson(tail->first.view(), path);
  if (!b.ok()) return std::optional<LatestBundle>();
  return std::optional<LatestBundle>(std::move(*b));
}

}  // namespace rap::index

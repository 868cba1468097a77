// FindManifest: the latest bundle, else the version hint, else probes.
#include "index/find_manifest.h"

#include <future>
#include <optional>

#include "rap/index/build.h"
#include "rap/index/latest_bundle.h"

namespace rap::index {

namespace {

// What round 1 read of one index directory.
struct FirstRound {
  Result<int64_t> hint = int64_t{0};
  std::optional<LatestBundle> bundle;  // none, or a store error reading it (the hint path answers)
};

FirstRound ReadFirstRound(io::ObjectStore& store, const std::string& dir, bool with_bundle) {
  FirstRound fr;
  std::future<Result<std::optional<LatestBundle>>> bundle;
  if (with_bundle) bundle = std::async(std::launch::async, [&] { return ReadLatestBundle(store, dir); });
  fr.hint = ReadVersionHint(store, dir);
  if (with_bundle) {
    auto b = bundle.get();
    if (b.ok()) fr.bundle = std::move(*b);
  }
  return fr;
}

// The manifest one directory's round 1 leads to, or nullopt when the directory has neither a hint
// nor a bundle (then the caller probes).
std::optional<Result<FoundManifest>> FromFirstRound(FirstRound& fr, const std::string& url, const io::ResolvedUrl& where) {
  if (!fr.hint.ok()) return Result<FoundManifest>(fr.hint.status());
  FoundManifest f;
  f.url = url;
  f.where = where;
  if (fr.bundle && fr.bundle->manifest.version >= *fr.hint) {
    f.manifest = std::move(fr.bundle->manifest);
    f.schema_files = std::move(fr.bundle->schema_files);
    f.from_bundle = true;
    f.rounds = 1;
    return Result<FoundManifest>(std::move(f));
  }
  if (*fr.hint <= 0) return std::nullopt;
  auto m = ReadLatestManifest(*where.store, where.path, *fr.hint);
  if (!m.ok()) return Result<FoundManifest>(m.status());
  f.rounds = m->version == *fr.hint ? 2 : 3;
  f.manifest = std::move(*m);
  return Result<FoundManifest>(std::move(f));
}

Result<FoundManifest> Probed(const std::string& url, const io::ResolvedUrl& where) {
  RAP_ASSIGN_OR_RETURN(Manifest m, ReadLatestManifest(*where.store, where.path, 0));
  FoundManifest f;
  f.manifest = std::move(m);
  f.rounds = 3;
  f.url = url;
  f.where = where;
  return f;
}

}  // namespace

Result<FoundManifest> FindManifest(const std::string& url, const io::ResolvedUrl& r) {
  if (url.find("/_rap_index/") != std::string::npos) {
    FirstRound own = ReadFirstRound(*r.store, r.path, true);
    if (auto f = FromFirstRound(own, url, r)) return std::move(*f);
    return Probed(url, r);
  }
  // Perhaps a table's URL (`rap lookup s3://bkt/t`): its own hint, and its default index's hint and
  // bundle, in one round. A table without a hint of its own then goes straight to its default index
  // instead of probing for manifests of its own first.
  const std::string def_url = DefaultIndexUrl(url);
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl d, io::OpenUrl(def_url));
  auto def_future = std::async(std::launch::async, [&] { return ReadFirstRound(*d.store, d.path, true); });
  FirstRound own = ReadFirstRound(*r.store, r.path, false);
  FirstRound def = def_future.get();
  if (!own.hint.ok() || *own.hint > 0) {
    if (auto f = FromFirstRound(own, url, r)) return std::move(*f);
  }
  if (auto f = FromFirstRound(def, def_url, d)) {
    if (f->ok() || f->status().code() != StatusCode::kNotFound) return std::move(*f);
  }
  // Neither hint: versions of the URL itself, then of its default index, are probed.
  auto own_probed = Probed(url, r);
  if (own_probed.ok() || own_probed.status().code() != StatusCode::kNotFound) return own_probed;
  auto def_probed = Probed(def_url, d);
  if (def_probed.ok() || def_probed.status().code() != StatusCode::kNotFound) return def_probed;
  return Status::NotFound(url + ": neither an index nor a table with an index (no " + ManifestPath(r.path, 1) + " or " +
                          ManifestPath(d.path, 1) + ")");
}

}  // namespace rap::index

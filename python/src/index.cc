// rap._rap.Index: point lookups through a RAP index (index::Index), many Python threads at once (the
// GIL is released for the lookup). Keys: a sequence of int/str/bytes (tuples for compound keys) or
// an Arrow array through the PyCapsule interface (__arrow_c_array__).
#include <limits>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "binding.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/columnar/arrow_c.h"

namespace rap::py {
namespace {

[[noreturn]] void KeyError(size_t i, const std::string& what) {
  Raise(Status::InvalidArgument("keys[" + std::to_string(i) + "]: " + what));
}

index::KeyPart PartFromPython(const index::KeyColumn& col, const nb::handle& v, size_t i) {
  index::KeyPart p;
  switch (col.type) {
    case index::KeyType::kInt32:
    case index::KeyType::kInt64: {
      if (!nb::isinstance<nb::int_>(v) || nb::isinstance<nb::bool_>(v)) {
        KeyError(i, "key column '" + col.name + "' is " + index::KeyTypeName(col.type) + ", got " +
                        nb::cast<std::string>(nb::str(v.type().attr("__name__"))));
      }
      int overflow = 0;
      const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
      const bool i32 = col.type == index::KeyType::kInt32;
      if (overflow != 0 || (i32 && (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()))) {
        KeyError(i, nb::cast<std::string>(nb::str(v)) + " is out of range for " + index::KeyTypeName(col.type) +
                        " key column '" + col.name + "'");
      }
      p.i = x;
      return p;
    }
    case index::KeyType::kString:
      if (!nb::isinstance<nb::str>(v)) {
        KeyError(i, "key column '" + col.name + "' is string, got " +
                        nb::cast<std::string>(nb::str(v.type().attr("__name__"))));
      }
      p.s = nb::cast<std::string>(v);
      return p;
    case index::KeyType::kBinary:
      if (!nb::isinstance<nb::bytes>(v)) {
        KeyError(i, "key column '" + col.name + "' is binary, got " +
                        nb::cast<std::string>(nb::str(v.type().attr("__name__"))));
      }
      p.s = std::string(nb::borrow<nb::bytes>(v).c_str(), nb::borrow<nb::bytes>(v).size());
      return p;
  }
  KeyError(i, "unknown key type");
}

// One key part per row of an imported Arrow array (flat integer, string or binary arrays).
Status PartsFromArrow(const ArrowSchema& s, const ArrowArray& a, const index::KeyColumn& col,
                      std::vector<index::Key>* keys, size_t part) {
  const std::string f = s.format ? s.format : "";
  const bool is_int = f.size() == 1 && std::string("cCsSiIlL").find(f[0]) != std::string::npos;
  const bool is_str = f == "u" || f == "z", is_large = f == "U" || f == "Z";
  const bool want_int = index::IsIntegerKey(col.type);
  if (want_int != is_int || (!want_int && !is_str && !is_large)) {
    return Status::InvalidArgument("keys: an Arrow array of format '" + f + "' does not fit " +
                                   index::KeyTypeName(col.type) + " key column '" + col.name + "'");
  }
  const auto* validity = static_cast<const uint8_t*>(a.n_buffers > 0 ? a.buffers[0] : nullptr);
  keys->resize(static_cast<size_t>(a.length));
  for (int64_t r = 0; r < a.length; ++r) {
    const int64_t j = r + a.offset;
    if (a.null_count != 0 && validity && ((validity[j >> 3] >> (j & 7)) & 1) == 0) {
      return Status::InvalidArgument("keys[" + std::to_string(r) + "]: NULL is not a key");
    }
    index::KeyPart p;
    if (is_int) {
      const void* d = a.buffers[1];
      switch (f[0]) {
        case 'c': p.i = static_cast<const int8_t*>(d)[j]; break;
        case 'C': p.i = static_cast<const uint8_t*>(d)[j]; break;
        case 's': p.i = static_cast<const int16_t*>(d)[j]; break;
        case 'S': p.i = static_cast<const uint16_t*>(d)[j]; break;
        case 'i': p.i = static_cast<const int32_t*>(d)[j]; break;
        case 'I': p.i = static_cast<const uint32_t*>(d)[j]; break;
        case 'l': p.i = static_cast<const int64_t*>(d)[j]; break;
        default: {
          const uint64_t u = static_cast<const uint64_t*>(d)[j];
          if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            return Status::InvalidArgument("keys[" + std::to_string(r) + "]: " + std::to_string(u) + " is out of range for int64");
          }
          p.i = static_cast<int64_t>(u);
        }
      }
      if (col.type == index::KeyType::kInt32 &&
          (p.i < std::numeric_limits<int32_t>::min() || p.i > std::numeric_limits<int32_t>::max())) {
        return Status::InvalidArgument("keys[" + std::to_string(r) + "]: " + std::to_string(p.i) +
                                       " is out of range for int32 key column '" + col.name + "'");
      }
    } else {
      const char* data = static_cast<const char*>(a.buffers[2]);
      int64_t b = 0, e = 0;
      if (is_large) {
        b = static_cast<const int64_t*>(a.buffers[1])[j];
        e = static_cast<const int64_t*>(a.buffers[1])[j + 1];
      } else {
        b = static_cast<const int32_t*>(a.buffers[1])[j];
        e = static_cast<const int32_t*>(a.buffers[1])[j + 1];
      }
      p.s.assign(data + b, static_cast<size_t>(e - b));
    }
    auto& key = (*keys)[static_cast<size_t>(r)];
    key.parts.resize(std::max(key.parts.size(), part + 1));
    key.parts[part] = std::move(p);
  }
  return Status::OK();
}

std::vector<index::Key> KeysFromArrow(const nb::handle& obj, const std::vector<index::KeyColumn>& cols) {
  nb::object caps = obj.attr("__arrow_c_array__")();
  nb::tuple t = nb::borrow<nb::tuple>(caps);
  auto* s = static_cast<ArrowSchema*>(PyCapsule_GetPointer(t[0].ptr(), "arrow_schema"));
  auto* a = static_cast<ArrowArray*>(PyCapsule_GetPointer(t[1].ptr(), "arrow_array"));
  if (s == nullptr || a == nullptr) throw nb::python_error();
  std::vector<index::Key> keys;
  const std::string f = s->format ? s->format : "";
  if (f == "+s") {
    if (static_cast<size_t>(s->n_children) != cols.size() || a->n_children != s->n_children) {
      Raise(Status::InvalidArgument("keys: a struct array needs one child per key column (" + std::to_string(cols.size()) + ")"));
    }
    if (a->offset != 0) Raise(Status::InvalidArgument("keys: a sliced struct array is not supported"));
    for (size_t c = 0; c < cols.size(); ++c) Check(PartsFromArrow(*s->children[c], *a->children[c], cols[c], &keys, c));
  } else {
    if (cols.size() != 1) {
      Raise(Status::InvalidArgument("keys: the index has a compound key; give a struct array or tuples"));
    }
    Check(PartsFromArrow(*s, *a, cols[0], &keys, 0));
  }
  return keys;
}

std::vector<index::Key> KeysFromPython(const nb::handle& obj, const std::vector<index::KeyColumn>& cols) {
  if (nb::hasattr(obj, "__arrow_c_array__")) return KeysFromArrow(obj, cols);
  if (nb::isinstance<nb::str>(obj) || nb::isinstance<nb::bytes>(obj) || nb::isinstance<nb::int_>(obj)) {
    Raise(Status::InvalidArgument("keys: expected a sequence of keys (a list), got one " +
                                  nb::cast<std::string>(nb::str(obj.type().attr("__name__")))));
  }
  std::vector<index::Key> keys;
  size_t i = 0;
  for (nb::handle item : obj) {
    index::Key k;
    if (cols.size() == 1 && !nb::isinstance<nb::tuple>(item)) {
      k.parts.push_back(PartFromPython(cols[0], item, i));
    } else {
      if (!nb::isinstance<nb::tuple>(item) || nb::len(item) != cols.size()) {
        KeyError(i, "expected a tuple of " + std::to_string(cols.size()) + " key parts");
      }
      for (size_t c = 0; c < cols.size(); ++c) k.parts.push_back(PartFromPython(cols[c], item[c], i));
    }
    keys.push_back(std::move(k));
    ++i;
  }
  return keys;
}

StatsList LookupStatsList(const index::LookupStats& s) {
  StatsList l;
  auto i = [&](const char* n, double v) { l.push_back({n, v, true, {}, false, std::nullopt}); };
  i("dependent_rounds", s.dependent_rounds);
  i("requests", s.requests);
  i("bytes", static_cast<double>(s.bytes));
  i("index_pages_read", s.index_pages_read);
  i("index_page_cache_hits", s.index_page_cache_hits);
  i("index_data_pages_decoded", s.index_data_pages_decoded);
  i("data_files", s.data_files);
  i("covered_files", s.covered_files);
  i("data_pages_decoded", s.data_pages_decoded);
  i("data_page_cache_hits", s.data_page_cache_hits);
  i("hoisted_only", s.hoisted_only);
  i("rows", s.rows);
  l.push_back({"seconds", s.seconds, false, {}, false, std::nullopt});
  return l;
}

class PyIndex {
 public:
  static std::shared_ptr<PyIndex> Open(const std::string& url, const std::string& name, nb::handle storage_options,
                                       nb::handle data_cache) {
    if (name.empty()) Raise(Status::InvalidArgument("name: empty index name"));
    index::IndexOpenOptions options;
    if (!data_cache.is_none()) options.data_cache_bytes = static_cast<int64_t>(ByteSizeArg("data_cache", data_cache));
    const EnvOverlay overlay = ParseStorageOptions(storage_options);
    auto idx = WithStorageOptions(overlay, [&]() -> Result<std::shared_ptr<index::Index>> {
      // An index URL is used as is; a table URL names its index `name` (rap index's rule).
      std::string index_url = url;
      auto r = io::OpenUrl(url);
      if (!(r.ok() && index::FindLatestVersion(*r->store, r->path).ok())) index_url = index::DefaultIndexUrl(url, name);
      return index::Index::Open(index_url, options);
    });
    if (!idx.ok()) Raise(idx.status());
    auto p = std::make_shared<PyIndex>();
    p->index_ = *idx;
    return p;
  }

  // (reader, next page tokens, rows per key).
  nb::tuple Lookup(nb::handle keys_obj, std::optional<std::vector<std::string>> columns,
                   std::optional<int64_t> limit_per_key, nb::handle page_token) {
    std::vector<index::Key> keys = KeysFromPython(keys_obj, index_->info().key);
    index::LookupOptions lo;
    if (columns) lo.columns = *columns;
    if (limit_per_key) {
      if (*limit_per_key < 1) Raise(Status::InvalidArgument("limit_per_key: " + std::to_string(*limit_per_key) + " is not positive"));
      lo.limit_per_key = *limit_per_key;
    }
    if (!page_token.is_none()) {
      if (nb::isinstance<nb::str>(page_token)) {
        lo.page_tokens.assign(keys.size(), "");
        if (keys.size() != 1) Raise(Status::InvalidArgument("page_token: one token for " + std::to_string(keys.size()) + " keys; give a list, one per key"));
        lo.page_tokens[0] = nb::cast<std::string>(page_token);
      } else {
        for (nb::handle t : page_token) lo.page_tokens.push_back(t.is_none() ? std::string() : nb::cast<std::string>(t));
        if (lo.page_tokens.size() != keys.size()) {
          Raise(Status::InvalidArgument("page_token: " + std::to_string(lo.page_tokens.size()) + " tokens for " +
                                        std::to_string(keys.size()) + " keys"));
        }
      }
    }
    if (keys.empty()) Raise(Status::InvalidArgument("keys: no key given"));
    Result<index::LookupResult> res = index::LookupResult{};
    {
      nb::gil_scoped_release release;
      res = index_->Lookup(keys, lo);
    }
    if (!res.ok()) Raise(res.status());
    std::vector<RecordBatch> batches;
    nb::list tokens, counts;
    for (index::KeyRows& k : res->keys) {
      counts.append(k.rows.num_rows);
      if (k.next_page_token.empty()) {
        tokens.append(nb::none());
      } else {
        tokens.append(nb::str(k.next_page_token.c_str()));
      }
      if (k.rows.num_rows > 0) batches.push_back(std::move(k.rows));
    }
    auto stats = std::make_shared<StatsHolder>();
    stats->Set(LookupStatsList(res->stats));
    auto reader = std::make_unique<Reader>(MakeVectorReader(res->schema, std::move(batches)), res->schema, stats);
    return nb::make_tuple(nb::cast(std::move(reader)), tokens, counts);
  }

  // A bound or prefix: one value (the first key column) or a tuple of the leading columns' values.
  index::Key LeadingKey(nb::handle v, const char* what) const {
    const std::vector<index::KeyColumn>& cols = index_->info().key;
    index::Key k;
    if (nb::isinstance<nb::tuple>(v)) {
      if (nb::len(v) == 0 || nb::len(v) > cols.size()) {
        Raise(Status::InvalidArgument(std::string(what) + ": a tuple of 1 to " + std::to_string(cols.size()) +
                                      " key parts"));
      }
      for (size_t c = 0; c < nb::len(v); ++c) k.parts.push_back(PartFromPython(cols[c], v[c], 0));
    } else {
      k.parts.push_back(PartFromPython(cols[0], v, 0));
    }
    return k;
  }

  // (reader, next page token or None, distinct keys).
  nb::tuple LookupRange(nb::handle lo, nb::handle hi, bool lo_inclusive, bool hi_inclusive, nb::handle prefix,
                        std::optional<std::vector<std::string>> columns, std::optional<int64_t> limit,
                        std::optional<std::string> page_token) {
    index::KeyRange range;
    if (!prefix.is_none()) {
      if (!lo.is_none() || !hi.is_none()) Raise(Status::InvalidArgument("prefix: give a prefix or lo/hi, not both"));
      range = Unwrap(index::PrefixRangeOf(index_->info().key, LeadingKey(prefix, "prefix")));
    } else {
      if (!lo.is_none()) range.lo = index::KeyBound{LeadingKey(lo, "lo"), lo_inclusive};
      if (!hi.is_none()) range.hi = index::KeyBound{LeadingKey(hi, "hi"), hi_inclusive};
    }
    index::RangeLookupOptions ro;
    if (columns) ro.columns = *columns;
    if (limit) {
      if (*limit < 1) Raise(Status::InvalidArgument("limit: " + std::to_string(*limit) + " is not positive"));
      ro.limit = *limit;
    }
    if (page_token) ro.page_token = *page_token;
    Result<index::RangeResult> res = index::RangeResult{};
    {
      nb::gil_scoped_release release;
      res = index_->LookupRange(range, ro);
    }
    if (!res.ok()) Raise(res.status());
    std::vector<RecordBatch> batches;
    nb::list counts;
    counts.append(res->rows.num_rows);
    if (res->rows.num_rows > 0) batches.push_back(std::move(res->rows));
    auto stats = std::make_shared<StatsHolder>();
    stats->Set(LookupStatsList(res->stats));
    auto reader = std::make_unique<Reader>(MakeVectorReader(res->schema, std::move(batches)), res->schema, stats);
    nb::object token = res->next_page_token.empty() ? nb::none() : nb::object(nb::str(res->next_page_token.c_str()));
    return nb::make_tuple(nb::cast(std::move(reader)), token, res->keys);
  }

  bool Refresh() {
    Result<bool> r = false;
    {
      nb::gil_scoped_release release;
      r = index_->Refresh();
    }
    return Unwrap(std::move(r));
  }

  nb::dict Info() const {
    const index::IndexInfo& i = index_->info();
    nb::dict d;
    d["index_url"] = i.index_url;
    d["table_url"] = i.table_url;
    nb::list key;
    for (const index::KeyColumn& k : i.key) key.append(nb::make_tuple(k.name, index::KeyTypeName(k.type)));
    d["key"] = key;
    d["manifest_version"] = i.manifest_version;
    d["table_version"] = i.table_version;
    d["table_kind"] = i.table_kind;
    d["buckets"] = i.buckets;
    d["name"] = i.name;
    d["kind"] = index::IndexKindName(i.kind);
    d["files"] = i.files;
    d["fragments"] = i.fragments;
    d["cover"] = i.cover;
    d["hoist"] = i.hoist;
    d["open_rounds"] = i.open_rounds;
    d["opened_from_bundle"] = i.opened_from_bundle;
    const index::PageCacheStats pc = index_->page_cache_stats();
    nb::dict cache;
    cache["hits"] = pc.hits;
    cache["misses"] = pc.misses;
    cache["evictions"] = pc.evictions;
    cache["entries"] = pc.entries;
    cache["bytes"] = pc.bytes;
    d["page_cache"] = cache;
    return d;
  }

 private:
  std::shared_ptr<index::Index> index_;
};

}  // namespace

void BindIndex(nb::module_& m) {
  nb::class_<PyIndex>(m, "Index")
      .def_static("open", &PyIndex::Open, nb::arg("url"), nb::arg("name") = "default",
                  nb::arg("storage_options") = nb::none(), nb::arg("data_cache") = nb::none())
      .def("lookup", &PyIndex::Lookup, nb::arg("keys"), nb::arg("columns") = nb::none(),
           nb::arg("limit_per_key") = nb::none(), nb::arg("page_token") = nb::none())
      .def("lookup_range", &PyIndex::LookupRange, nb::arg("lo") = nb::none(), nb::arg("hi") = nb::none(),
           nb::arg("lo_inclusive") = true, nb::arg("hi_inclusive") = true, nb::arg("prefix") = nb::none(),
           nb::arg("columns") = nb::none(), nb::arg("limit") = nb::none(), nb::arg("page_token") = nb::none())
      .def("refresh", &PyIndex::Refresh)
      .def("info", &PyIndex::Info);
}

}  // namespace rap::py

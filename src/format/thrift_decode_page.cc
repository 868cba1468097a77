// Decoding of page headers and of the page index (ColumnIndex, OffsetIndex) from the Thrift
// compact protocol, with the field ids of parquet.thrift.
#include "rap/format/thrift.h"

#include "format/thrift_compact.h"
#include "format/thrift_decode_util.h"

namespace rap::parquet {
namespace thrift {
namespace {

Status ReadDataPageHeader(Reader& r, DataPageHeader* h) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I32(f, "num_values", &h->num_values));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.Enum(f, "encoding", &h->encoding));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.Enum(f, "definition_level_encoding", &h->definition_level_encoding));
        break;
      case 4:
        RAP_RETURN_NOT_OK(r.Enum(f, "repetition_level_encoding", &h->repetition_level_encoding));
        break;
      case 5:
        RAP_RETURN_NOT_OK(ReadNested(r, f, "statistics", [&] { return ReadStatistics(r, &h->statistics.emplace()); }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(
      seen, {{1, "num_values"}, {2, "encoding"}, {3, "definition_level_encoding"}, {4, "repetition_level_encoding"}});
}

Status ReadDictionaryPageHeader(Reader& r, DictionaryPageHeader* h) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I32(f, "num_values", &h->num_values));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.Enum(f, "encoding", &h->encoding));
        break;
      case 3:
        RAP_RETURN_NOT_OK(Opt(r, f, "is_sorted", &h->is_sorted));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "num_values"}, {2, "encoding"}});
}

Status ReadDataPageHeaderV2(Reader& r, DataPageHeaderV2* h) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I32(f, "num_values", &h->num_values));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.I32(f, "num_nulls", &h->num_nulls));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.I32(f, "num_rows", &h->num_rows));
        break;
      case 4:
        RAP_RETURN_NOT_OK(r.Enum(f, "encoding", &h->encoding));
        break;
      case 5:
        RAP_RETURN_NOT_OK(r.I32(f, "definition_levels_byte_length", &h->definition_levels_byte_length));
        break;
      case 6:
        RAP_RETURN_NOT_OK(r.I32(f, "repetition_levels_byte_length", &h->repetition_levels_byte_length));
        break;
      case 7:
        RAP_RETURN_NOT_OK(OptIf(r, f, f.type == kBoolFalse ? kBoolFalse : kBoolTrue,
                                [&] { return r.Bool(f, "is_compressed", &h->is_compressed); }));
        break;
      case 8:
        RAP_RETURN_NOT_OK(ReadNested(r, f, "statistics", [&] { return ReadStatistics(r, &h->statistics.emplace()); }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "num_values"},
                          {2, "num_nulls"},
                          {3, "num_rows"},
                          {4, "encoding"},
                          {5, "definition_levels_byte_length"},
                          {6, "repetition_levels_byte_length"}});
}

Status ReadPageHeader(Reader& r, PageHeader* h) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.Enum(f, "type", &h->type));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.I32(f, "uncompressed_page_size", &h->uncompressed_page_size));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.I32(f, "compressed_page_size", &h->compressed_page_size));
        break;
      case 4:
        RAP_RETURN_NOT_OK(Opt(r, f, "crc", &h->crc));
        break;
      case 5:
        RAP_RETURN_NOT_OK(ReadNested(r, f, "data_page_header",
                                     [&] { return ReadDataPageHeader(r, &h->data_page_header.emplace()); }));
        break;
      case 6:
        h->has_index_page_header = true;
        RAP_RETURN_NOT_OK(ReadNested(r, f, "index_page_header", [&] { return SkipStructBody(r); }));
        break;
      case 7:
        RAP_RETURN_NOT_OK(ReadNested(r, f, "dictionary_page_header", [&] {
          return ReadDictionaryPageHeader(r, &h->dictionary_page_header.emplace());
        }));
        break;
      case 8:
        RAP_RETURN_NOT_OK(ReadNested(r, f, "data_page_header_v2",
                                     [&] { return ReadDataPageHeaderV2(r, &h->data_page_header_v2.emplace()); }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  RAP_RETURN_NOT_OK(r.Require(seen, {{1, "type"}, {2, "uncompressed_page_size"}, {3, "compressed_page_size"}}));
  // Sizes are used to slice the page and to allocate its output: reject nonsense here, once.
  if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0) {
    return r.Error(0, "negative page size (compressed " + std::to_string(h->compressed_page_size) + ", uncompressed " +
                          std::to_string(h->uncompressed_page_size) + ")");
  }
  const char* missing = nullptr;
  switch (h->type) {
    case PageType::DATA_PAGE:
      missing = h->data_page_header ? nullptr : "data_page_header (field 5)";
      break;
    case PageType::DICTIONARY_PAGE:
      missing = h->dictionary_page_header ? nullptr : "dictionary_page_header (field 7)";
      break;
    case PageType::DATA_PAGE_V2:
      missing = h->data_page_header_v2 ? nullptr : "data_page_header_v2 (field 8)";
      break;
    default:
      break;  // index pages and unknown page types carry nothing rap reads
  }
  if (missing) return r.Error(0, std::string("page of type ") + PageTypeName(h->type) + " has no " + missing);
  return Status::OK();
}

Status ReadPageLocation(Reader& r, PageLocation* p) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I64(f, "offset", &p->offset));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.I32(f, "compressed_page_size", &p->compressed_page_size));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.I64(f, "first_row_index", &p->first_row_index));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "offset"}, {2, "compressed_page_size"}, {3, "first_row_index"}});
}

Status ReadOffsetIndex(Reader& r, OffsetIndex* index) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(ReadStructList(r, f, "page_locations", &index->page_locations, ReadPageLocation));
        ;
        break;
      case 2:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadI64List(r, f, "unencoded_byte_array_data_bytes", &index->unencoded_byte_array_data_bytes);
        }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "page_locations"}});
}

Status ReadColumnIndex(Reader& r, ColumnIndex* index) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(ReadBoolList(r, f, "null_pages", &index->null_pages));
        break;
      case 2:
        RAP_RETURN_NOT_OK(ReadStringList(r, f, "min_values", &index->min_values));
        ;
        break;
      case 3:
        RAP_RETURN_NOT_OK(ReadStringList(r, f, "max_values", &index->max_values));
        ;
        break;
      case 4:
        RAP_RETURN_NOT_OK(r.Enum(f, "boundary_order", &index->boundary_order));
        break;
      case 5:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] { return ReadI64List(r, f, "null_counts", &index->null_counts); }));
        break;
      case 6:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadI64List(r, f, "repetition_level_histograms", &index->repetition_level_histograms);
        }));
        break;
      case 7:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadI64List(r, f, "definition_level_histograms", &index->definition_level_histograms);
        }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  RAP_RETURN_NOT_OK(r.Require(seen, {{1, "null_pages"}, {2, "min_values"}, {3, "max_values"}, {4, "boundary_order"}}));
  size_t pages = index->null_pages.size();
  if (index->min_values.size() != pages || index->max_values.size() != pages ||
      (!index->null_counts.empty() && index->null_counts.size() != pages)) {
    return r.Error(0, "list lengths disagree: null_pages " + std::to_string(pages) + ", min_values " +
                          std::to_string(index->min_values.size()) + ", max_values " +
                          std::to_string(index->max_values.size()) + ", null_counts " +
                          std::to_string(index->null_counts.size()));
  }
  return Status::OK();
}

}  // namespace
}  // namespace thrift

Result<PageHeader> DecodePageHeader(std::span<const uint8_t> bytes, size_t* header_size, const ThriftLimits& limits) {
  thrift::Reader r(bytes, limits, "PageHeader");
  PageHeader h;
  RAP_RETURN_NOT_OK(thrift::ReadPageHeader(r, &h));
  if (header_size) *header_size = r.pos();
  return h;
}

Result<ColumnIndex> DecodeColumnIndex(std::span<const uint8_t> bytes, const ThriftLimits& limits) {
  thrift::Reader r(bytes, limits, "ColumnIndex");
  ColumnIndex index;
  RAP_RETURN_NOT_OK(thrift::ReadColumnIndex(r, &index));
  return index;
}

Result<OffsetIndex> DecodeOffsetIndex(std::span<const uint8_t> bytes, const ThriftLimits& limits) {
  thrift::Reader r(bytes, limits, "OffsetIndex");
  OffsetIndex index;
  RAP_RETURN_NOT_OK(thrift::ReadOffsetIndex(r, &index));
  return index;
}

}  // namespace rap::parquet

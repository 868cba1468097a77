// Decoding of FileMetaData and everything inside it from the Thrift compact protocol, with the field
// ids of parquet.thrift. Unknown fields are skipped; required fields are checked.
#include <algorithm>

#include "rap/format/thrift.h"

#include "format/thrift_compact.h"
#include "format/thrift_decode_util.h"

namespace rap::parquet {
namespace thrift {

Status ReadStatistics(Reader& r, Statistics* s) {
  Field f;
  bool more = false;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) return Status::OK();
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(Opt(r, f, "max", &s->max));
        break;
      case 2:
        RAP_RETURN_NOT_OK(Opt(r, f, "min", &s->min));
        break;
      case 3:
        RAP_RETURN_NOT_OK(Opt(r, f, "null_count", &s->null_count));
        break;
      case 4:
        RAP_RETURN_NOT_OK(Opt(r, f, "distinct_count", &s->distinct_count));
        break;
      case 5:
        RAP_RETURN_NOT_OK(Opt(r, f, "max_value", &s->max_value));
        break;
      case 6:
        RAP_RETURN_NOT_OK(Opt(r, f, "min_value", &s->min_value));
        break;
      case 7:
        RAP_RETURN_NOT_OK(Opt(r, f, "is_max_value_exact", &s->is_max_value_exact));
        break;
      case 8:
        RAP_RETURN_NOT_OK(Opt(r, f, "is_min_value_exact", &s->is_min_value_exact));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
    }
  }
}

namespace {

Status ReadKeyValue(Reader& r, KeyValue* kv) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.Binary(f, "key", &kv->key));
        break;
      case 2:
        RAP_RETURN_NOT_OK(Opt(r, f, "value", &kv->value));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "key"}});
}

Status ReadPageEncodingStats(Reader& r, PageEncodingStats* s) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.Enum(f, "page_type", &s->page_type));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.Enum(f, "encoding", &s->encoding));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.I32(f, "count", &s->count));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "page_type"}, {2, "encoding"}, {3, "count"}});
}

Status ReadSizeStatistics(Reader& r, SizeStatistics* s) {
  Field f;
  bool more = false;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) return Status::OK();
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(Opt(r, f, "unencoded_byte_array_data_bytes", &s->unencoded_byte_array_data_bytes));
        break;
      case 2:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadI64List(r, f, "repetition_level_histogram", &s->repetition_level_histogram);
        }));
        break;
      case 3:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadI64List(r, f, "definition_level_histogram", &s->definition_level_histogram);
        }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
    }
  }
}

Status ReadColumnMetaData(Reader& r, ColumnMetaData* m) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.Enum(f, "type", &m->type));
        RAP_RETURN_NOT_OK(CheckPhysicalType(r, f, m->type));
        break;
      case 2: {
        uint32_t n = 0;
        RAP_RETURN_NOT_OK(r.ListBegin(f, "encodings", kI32, &n));
        m->encodings.resize(n);
        for (uint32_t i = 0; i < n; ++i) RAP_RETURN_NOT_OK(r.EnumElem("encodings", &m->encodings[i]));
        break;
      }
      case 3:
        RAP_RETURN_NOT_OK(ReadStringList(r, f, "path_in_schema", &m->path_in_schema));
        ;
        break;
      case 4:
        RAP_RETURN_NOT_OK(r.Enum(f, "codec", &m->codec));
        break;
      case 5:
        RAP_RETURN_NOT_OK(r.I64(f, "num_values", &m->num_values));
        break;
      case 6:
        RAP_RETURN_NOT_OK(r.I64(f, "total_uncompressed_size", &m->total_uncompressed_size));
        break;
      case 7:
        RAP_RETURN_NOT_OK(r.I64(f, "total_compressed_size", &m->total_compressed_size));
        break;
      case 8:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadStructList(r, f, "key_value_metadata", &m->key_value_metadata, ReadKeyValue);
        }));
        break;
      case 9:
        RAP_RETURN_NOT_OK(r.I64(f, "data_page_offset", &m->data_page_offset));
        break;
      case 10:
        RAP_RETURN_NOT_OK(Opt(r, f, "index_page_offset", &m->index_page_offset));
        break;
      case 11:
        RAP_RETURN_NOT_OK(Opt(r, f, "dictionary_page_offset", &m->dictionary_page_offset));
        break;
      case 12:
        RAP_RETURN_NOT_OK(ReadNested(r, f, "statistics", [&] { return ReadStatistics(r, &m->statistics.emplace()); }));
        break;
      case 13:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadStructList(r, f, "encoding_stats", &m->encoding_stats, ReadPageEncodingStats);
        }));
        break;
      case 14:
        RAP_RETURN_NOT_OK(Opt(r, f, "bloom_filter_offset", &m->bloom_filter_offset));
        break;
      case 15:
        RAP_RETURN_NOT_OK(Opt(r, f, "bloom_filter_length", &m->bloom_filter_length));
        break;
      case 16:
        RAP_RETURN_NOT_OK(
            ReadNested(r, f, "size_statistics", [&] { return ReadSizeStatistics(r, &m->size_statistics.emplace()); }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "type"},
                          {2, "encodings"},
                          {3, "path_in_schema"},
                          {4, "codec"},
                          {5, "num_values"},
                          {6, "total_uncompressed_size"},
                          {7, "total_compressed_size"},
                          {9, "data_page_offset"}});
}

Status ReadColumnChunk(Reader& r, ColumnChunk* c) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(Opt(r, f, "file_path", &c->file_path));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.I64(f, "file_offset", &c->file_offset));
        break;
      case 3:
        RAP_RETURN_NOT_OK(
            ReadNested(r, f, "meta_data", [&] { return ReadColumnMetaData(r, &c->meta_data.emplace()); }));
        break;
      case 4:
        RAP_RETURN_NOT_OK(Opt(r, f, "offset_index_offset", &c->offset_index_offset));
        break;
      case 5:
        RAP_RETURN_NOT_OK(Opt(r, f, "offset_index_length", &c->offset_index_length));
        break;
      case 6:
        RAP_RETURN_NOT_OK(Opt(r, f, "column_index_offset", &c->column_index_offset));
        break;
      case 7:
        RAP_RETURN_NOT_OK(Opt(r, f, "column_index_length", &c->column_index_length));
        break;
      case 8:
        c->has_crypto_metadata = true;
        RAP_RETURN_NOT_OK(r.SkipField(f));
        break;
      case 9:
        c->has_encrypted_column_metadata = true;
        RAP_RETURN_NOT_OK(r.SkipField(f));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{2, "file_offset"}});
}

Status ReadSortingColumn(Reader& r, SortingColumn* s) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I32(f, "column_idx", &s->column_idx));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.Bool(f, "descending", &s->descending));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.Bool(f, "nulls_first", &s->nulls_first));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "column_idx"}, {2, "descending"}, {3, "nulls_first"}});
}

Status ReadRowGroup(Reader& r, RowGroup* g) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(ReadStructList(r, f, "columns", &g->columns, ReadColumnChunk));
        ;
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.I64(f, "total_byte_size", &g->total_byte_size));
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.I64(f, "num_rows", &g->num_rows));
        break;
      case 4:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadStructList(r, f, "sorting_columns", &g->sorting_columns, ReadSortingColumn);
        }));
        break;
      case 5:
        RAP_RETURN_NOT_OK(Opt(r, f, "file_offset", &g->file_offset));
        break;
      case 6:
        RAP_RETURN_NOT_OK(Opt(r, f, "total_compressed_size", &g->total_compressed_size));
        break;
      case 7:
        RAP_RETURN_NOT_OK(Opt(r, f, "ordinal", &g->ordinal));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "columns"}, {2, "total_byte_size"}, {3, "num_rows"}});
}

// ColumnOrder union: TYPE_ORDER(1) is the only member parquet.thrift defines.
Status ReadColumnOrder(Reader& r, bool* type_defined) {
  Field f;
  bool more = false;
  *type_defined = false;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) return Status::OK();
    if (f.id == 1 && f.type == kStruct) *type_defined = true;
    RAP_RETURN_NOT_OK(r.SkipField(f));
  }
}

Status ReadFileMetaData(Reader& r, FileMetaData* md) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I32(f, "version", &md->version));
        break;
      case 2:
        RAP_RETURN_NOT_OK(ReadStructList(r, f, "schema", &md->schema, ReadSchemaElement));
        ;
        break;
      case 3:
        RAP_RETURN_NOT_OK(r.I64(f, "num_rows", &md->num_rows));
        break;
      case 4:
        RAP_RETURN_NOT_OK(ReadStructList(r, f, "row_groups", &md->row_groups, ReadRowGroup));
        ;
        break;
      case 5:
        RAP_RETURN_NOT_OK(OptIf(r, f, kList, [&] {
          return ReadStructList(r, f, "key_value_metadata", &md->key_value_metadata, ReadKeyValue);
        }));
        break;
      case 6:
        RAP_RETURN_NOT_OK(Opt(r, f, "created_by", &md->created_by));
        break;
      case 7: {
        if (f.type != kList) {
          RAP_RETURN_NOT_OK(r.SkipField(f));
          break;
        }
        uint32_t n = 0;
        RAP_RETURN_NOT_OK(r.ListBegin(f, "column_orders", kStruct, &n));
        md->column_orders_type_defined.assign(n, false);
        for (uint32_t i = 0; i < n; ++i) {
          bool defined = false;
          RAP_RETURN_NOT_OK(r.Enter("column_orders", i));
          RAP_RETURN_NOT_OK(ReadColumnOrder(r, &defined));
          r.Leave();
          md->column_orders_type_defined[i] = defined;
        }
        break;
      }
      case 8:
        md->has_encryption_algorithm = true;
        RAP_RETURN_NOT_OK(r.SkipField(f));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "version"}, {2, "schema"}, {3, "num_rows"}, {4, "row_groups"}});
}

}  // namespace
}  // namespace thrift

Result<FileMetaData> DecodeFileMetaData(std::span<const uint8_t> bytes, const ThriftLimits& limits) {
  thrift::Reader r(bytes, limits, "FileMetaData");
  FileMetaData md;
  RAP_RETURN_NOT_OK(thrift::ReadFileMetaData(r, &md));
  return md;
}

}  // namespace rap::parquet

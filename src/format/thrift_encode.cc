// Encoding of Parquet metadata into the Thrift compact protocol, field for field the mirror of
// thrift_decode*.cc. Fields are written in increasing id order (short field-header deltas), optional
// fields only when set, exactly as Thrift-generated writers do, so any Parquet reader accepts it.
#include "rap/format/thrift.h"

#include "format/thrift_compact.h"

namespace rap::parquet {
namespace thrift {

void WriteStatistics(Writer& w, const Statistics& s) {
  if (s.max) w.Binary(1, *s.max);
  if (s.min) w.Binary(2, *s.min);
  if (s.null_count) w.I64(3, *s.null_count);
  if (s.distinct_count) w.I64(4, *s.distinct_count);
  if (s.max_value) w.Binary(5, *s.max_value);
  if (s.min_value) w.Binary(6, *s.min_value);
  if (s.is_max_value_exact) w.Bool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.Bool(8, *s.is_min_value_exact);
}

namespace {

void WriteKeyValues(Writer& w, int16_t id, const std::vector<KeyValue>& kvs) {
  w.ListBegin(id, kStruct, kvs.size());
  for (const auto& kv : kvs) {
    w.StructElemBegin();
    w.Binary(1, kv.key);
    if (kv.value) w.Binary(2, *kv.value);
    w.StructElemEnd();
  }
}

void WriteI64List(Writer& w, int16_t id, const std::vector<int64_t>& values) {
  w.ListBegin(id, kI64, values.size());
  for (int64_t v : values) w.I64Elem(v);
}

void WriteStringList(Writer& w, int16_t id, const std::vector<std::string>& values) {
  w.ListBegin(id, kBinary, values.size());
  for (const auto& v : values) w.BinaryElem(v);
}

// An empty struct as the value of field `id` (union members without fields).
void WriteEmptyStruct(Writer& w, int16_t id) {
  w.StructBegin(id);
  w.StructEnd();
}

void WriteLogicalType(Writer& w, const LogicalType& lt) {
  auto id = static_cast<int16_t>(lt.kind);
  switch (lt.kind) {
    case LogicalType::Kind::NONE:
      return;  // an empty union: nothing set
    case LogicalType::Kind::DECIMAL:
      w.StructBegin(id);
      w.I32(1, lt.decimal_scale);
      w.I32(2, lt.decimal_precision);
      w.StructEnd();
      return;
    case LogicalType::Kind::TIME:
    case LogicalType::Kind::TIMESTAMP:
      w.StructBegin(id);
      w.Bool(1, lt.is_adjusted_to_utc);
      w.StructBegin(2);  // TimeUnit union
      WriteEmptyStruct(w, static_cast<int16_t>(lt.unit));
      w.StructEnd();
      w.StructEnd();
      return;
    case LogicalType::Kind::INTEGER:
      w.StructBegin(id);
      w.I8(1, lt.bit_width);
      w.Bool(2, lt.is_signed);
      w.StructEnd();
      return;
    default:
      WriteEmptyStruct(w, id);
      return;
  }
}

void WriteSchemaElement(Writer& w, const SchemaElement& e) {
  if (e.type) w.Enum(1, *e.type);
  if (e.type_length) w.I32(2, *e.type_length);
  if (e.repetition_type) w.Enum(3, *e.repetition_type);
  w.Binary(4, e.name);
  if (e.num_children) w.I32(5, *e.num_children);
  if (e.converted_type) w.Enum(6, *e.converted_type);
  if (e.scale) w.I32(7, *e.scale);
  if (e.precision) w.I32(8, *e.precision);
  if (e.field_id) w.I32(9, *e.field_id);
  if (e.logical_type && e.logical_type->kind != LogicalType::Kind::NONE) {
    w.StructBegin(10);
    WriteLogicalType(w, *e.logical_type);
    w.StructEnd();
  }
}

void WriteColumnMetaData(Writer& w, const ColumnMetaData& m) {
  w.Enum(1, m.type);
  w.ListBegin(2, kI32, m.encodings.size());
  for (Encoding e : m.encodings) w.I32Elem(static_cast<int32_t>(e));
  WriteStringList(w, 3, m.path_in_schema);
  w.Enum(4, m.codec);
  w.I64(5, m.num_values);
  w.I64(6, m.total_uncompressed_size);
  w.I64(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteKeyValues(w, 8, m.key_value_metadata);
  w.I64(9, m.data_page_offset);
  if (m.index_page_offset) w.I64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.I64(11, *m.dictionary_page_offset);
  if (m.statistics) {
    w.StructBegin(12);
    WriteStatistics(w, *m.statistics);
    w.StructEnd();
  }
  if (!m.encoding_stats.empty()) {
    w.ListBegin(13, kStruct, m.encoding_stats.size());
    for (const auto& s : m.encoding_stats) {
      w.StructElemBegin();
      w.Enum(1, s.page_type);
      w.Enum(2, s.encoding);
      w.I32(3, s.count);
      w.StructElemEnd();
    }
  }
  if (m.bloom_filter_offset) w.I64(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.I32(15, *m.bloom_filter_length);
  if (m.size_statistics) {
    const SizeStatistics& s = *m.size_statistics;
    w.StructBegin(16);
    if (s.unencoded_byte_array_data_bytes) w.I64(1, *s.unencoded_byte_array_data_bytes);
    if (!s.repetition_level_histogram.empty()) WriteI64List(w, 2, s.repetition_level_histogram);
    if (!s.definition_level_histogram.empty()) WriteI64List(w, 3, s.definition_level_histogram);
    w.StructEnd();
  }
}

void WriteColumnChunk(Writer& w, const ColumnChunk& c) {
  if (c.file_path) w.Binary(1, *c.file_path);
  w.I64(2, c.file_offset);
  if (c.meta_data) {
    w.StructBegin(3);
    WriteColumnMetaData(w, *c.meta_data);
    w.StructEnd();
  }
  if (c.offset_index_offset) w.I64(4, *c.offset_index_offset);
  if (c.offset_index_length) w.I32(5, *c.offset_index_length);
  if (c.column_index_offset) w.I64(6, *c.column_index_offset);
  if (c.column_index_length) w.I32(7, *c.column_index_length);
  // Fields 8/9 (column encryption) are only flags here: rap never writes encrypted files.
}

void WriteRowGroup(Writer& w, const RowGroup& g) {
  w.ListBegin(1, kStruct, g.columns.size());
  for (const auto& c : g.columns) {
    w.StructElemBegin();
    WriteColumnChunk(w, c);
    w.StructElemEnd();
  }
  w.I64(2, g.total_byte_size);
  w.I64(3, g.num_rows);
  if (!g.sorting_columns.empty()) {
    w.ListBegin(4, kStruct, g.sorting_columns.size());
    for (const auto& s : g.sorting_columns) {
      w.StructElemBegin();
      w.I32(1, s.column_idx);
      w.Bool(2, s.descending);
      w.Bool(3, s.nulls_first);
      w.StructElemEnd();
    }
  }
  if (g.file_offset) w.I64(5, *g.file_offset);
  if (g.total_compressed_size) w.I64(6, *g.total_compressed_size);
  if (g.ordinal) w.I16(7, *g.ordinal);
}

}  // namespace
}  // namespace thrift

void EncodeFileMetaData(const FileMetaData& md, std::string* out) {
  thrift::Writer w(out);
  w.Begin();
  w.I32(1, md.version);
  w.ListBegin(2, thrift::kStruct, md.schema.size());
  for (const auto& e : md.schema) {
    w.StructElemBegin();
    thrift::WriteSchemaElement(w, e);
    w.StructElemEnd();
  }
  w.I64(3, md.num_rows);
  w.ListBegin(4, thrift::kStruct, md.row_groups.size());
  for (const auto& g : md.row_groups) {
    w.StructElemBegin();
    thrift::WriteRowGroup(w, g);
    w.StructElemEnd();
  }
  if (!md.key_value_metadata.empty()) thrift::WriteKeyValues(w, 5, md.key_value_metadata);
  if (md.created_by) w.Binary(6, *md.created_by);
  if (!md.column_orders_type_defined.empty()) {
    w.ListBegin(7, thrift::kStruct, md.column_orders_type_defined.size());
    for (bool type_defined : md.column_orders_type_defined) {
      w.StructElemBegin();                               // ColumnOrder union
      if (type_defined) thrift::WriteEmptyStruct(w, 1);  // TYPE_ORDER
      w.StructElemEnd();
    }
  }
  // Field 8 (encryption_algorithm) is never written: rap does not write encrypted files.
  w.End();
}

void EncodePageHeader(const PageHeader& h, std::string* out) {
  thrift::Writer w(out);
  w.Begin();
  w.Enum(1, h.type);
  w.I32(2, h.uncompressed_page_size);
  w.I32(3, h.compressed_page_size);
  if (h.crc) w.I32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.StructBegin(5);
    w.I32(1, d.num_values);
    w.Enum(2, d.encoding);
    w.Enum(3, d.definition_level_encoding);
    w.Enum(4, d.repetition_level_encoding);
    if (d.statistics) {
      w.StructBegin(5);
      thrift::WriteStatistics(w, *d.statistics);
      w.StructEnd();
    }
    w.StructEnd();
  }
  if (h.has_index_page_header) thrift::WriteEmptyStruct(w, 6);
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.StructBegin(7);
    w.I32(1, d.num_values);
    w.Enum(2, d.encoding);
    if (d.is_sorted) w.Bool(3, *d.is_sorted);
    w.StructEnd();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.StructBegin(8);
    w.I32(1, d.num_values);
    w.I32(2, d.num_nulls);
    w.I32(3, d.num_rows);
    w.Enum(4, d.encoding);
    w.I32(5, d.definition_levels_byte_length);
    w.I32(6, d.repetition_levels_byte_length);
    w.Bool(7, d.is_compressed);
    if (d.statistics) {
      w.StructBegin(8);
      thrift::WriteStatistics(w, *d.statistics);
      w.StructEnd();
    }
    w.StructEnd();
  }
  w.End();
}

void EncodeColumnIndex(const ColumnIndex& index, std::string* out) {
  thrift::Writer w(out);
  w.Begin();
  w.ListBegin(1, thrift::kBoolTrue, index.null_pages.size());
  for (bool b : index.null_pages) w.BoolElem(b);
  thrift::WriteStringList(w, 2, index.min_values);
  thrift::WriteStringList(w, 3, index.max_values);
  w.Enum(4, index.boundary_order);
  if (!index.null_counts.empty()) thrift::WriteI64List(w, 5, index.null_counts);
  if (!index.repetition_level_histograms.empty()) thrift::WriteI64List(w, 6, index.repetition_level_histograms);
  if (!index.definition_level_histograms.empty()) thrift::WriteI64List(w, 7, index.definition_level_histograms);
  w.End();
}

void EncodeOffsetIndex(const OffsetIndex& index, std::string* out) {
  thrift::Writer w(out);
  w.Begin();
  w.ListBegin(1, thrift::kStruct, index.page_locations.size());
  for (const auto& p : index.page_locations) {
    w.StructElemBegin();
    w.I64(1, p.offset);
    w.I32(2, p.compressed_page_size);
    w.I64(3, p.first_row_index);
    w.StructElemEnd();
  }
  if (!index.unencoded_byte_array_data_bytes.empty()) {
    thrift::WriteI64List(w, 2, index.unencoded_byte_array_data_bytes);
  }
  w.End();
}

}  // namespace rap::parquet

#include "orc/proto_util.h"

#include <limits>

#include "orc_metadata.pb.h"

namespace rap::orc {

Status ParseProto(google::protobuf::MessageLite* msg, const Buffer& bytes, const std::string& where) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::Corrupt(where + ": " + std::to_string(bytes.size()) + " bytes is too large for a protobuf message");
  }
  if (!msg->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corrupt(where + ": the " + std::to_string(bytes.size()) + " bytes are not a valid " +
                           msg->GetTypeName() + " message");
  }
  return Status::OK();
}

namespace {
std::string Dbl(double d) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}
}  // namespace

ColumnStats ConvertStats(const proto::ColumnStatistics& s) {
  ColumnStats c;
  c.num_values = s.number_of_values();
  if (s.has_has_null()) c.has_null = s.has_null();
  if (s.has_int_statistics()) {
    const auto& i = s.int_statistics();
    c.kind = "int";
    if (i.has_minimum()) c.min = std::to_string(i.minimum());
    if (i.has_maximum()) c.max = std::to_string(i.maximum());
    if (i.has_sum()) c.sum = std::to_string(i.sum());
  } else if (s.has_double_statistics()) {
    const auto& d = s.double_statistics();
    c.kind = "double";
    if (d.has_minimum()) c.min = Dbl(d.minimum());
    if (d.has_maximum()) c.max = Dbl(d.maximum());
    if (d.has_sum()) c.sum = Dbl(d.sum());
  } else if (s.has_string_statistics()) {
    const auto& d = s.string_statistics();
    c.kind = "string";
    c.min = d.has_minimum() ? d.minimum() : d.lower_bound();
    c.max = d.has_maximum() ? d.maximum() : d.upper_bound();
    if (d.has_sum()) c.sum = std::to_string(d.sum());
  } else if (s.has_decimal_statistics()) {
    const auto& d = s.decimal_statistics();
    c.kind = "decimal";
    c.min = d.minimum();
    c.max = d.maximum();
    c.sum = d.sum();
  } else if (s.has_date_statistics()) {
    const auto& d = s.date_statistics();
    c.kind = "date";
    if (d.has_minimum()) c.min = std::to_string(d.minimum());
    if (d.has_maximum()) c.max = std::to_string(d.maximum());
  } else if (s.has_timestamp_statistics()) {
    const auto& d = s.timestamp_statistics();
    c.kind = "timestamp";
    if (d.has_minimum_utc())
      c.min = std::to_string(d.minimum_utc());
    else if (d.has_minimum())
      c.min = std::to_string(d.minimum());
    if (d.has_maximum_utc())
      c.max = std::to_string(d.maximum_utc());
    else if (d.has_maximum())
      c.max = std::to_string(d.maximum());
  } else if (s.has_binary_statistics()) {
    c.kind = "binary";
    if (s.binary_statistics().has_sum()) c.sum = std::to_string(s.binary_statistics().sum());
  } else if (s.has_bucket_statistics()) {
    c.kind = "bucket";
    if (s.bucket_statistics().count_size() > 0) c.sum = std::to_string(s.bucket_statistics().count(0));
  } else if (s.has_collection_statistics()) {
    const auto& d = s.collection_statistics();
    c.kind = "collection";
    c.min = std::to_string(d.min_children());
    c.max = std::to_string(d.max_children());
    c.sum = std::to_string(d.total_children());
  }
  return c;
}

}  // namespace rap::orc

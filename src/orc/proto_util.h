// Glue between the generated protobuf classes (orc_metadata.pb.h, build tree) and rap's types.
#pragma once

#include <string>

#include "rap/orc/tail.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace google::protobuf {
class MessageLite;
}

namespace rap::orc {

namespace proto {
class ColumnStatistics;
}

// Parses `bytes` into `msg`; Corrupt naming `where` when it is no valid message of that type.
Status ParseProto(google::protobuf::MessageLite* msg, const Buffer& bytes, const std::string& where);

ColumnStats ConvertStats(const proto::ColumnStatistics& s);

}  // namespace rap::orc

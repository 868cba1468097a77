// `rap cat` on an ORC file (declared in orc_cli.h). Apart from orc_cli.cc because it writes through
// the CLI's output formats (output_format.cc), which the Python module, compiling orc_cli.cc for
// rap.inspect, does not link.
#include "orc_cli.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rap::cli {

namespace {

Result<std::vector<int>> ResolveColumns(const orc::OrcReader& reader, const std::vector<std::string>& columns) {
  std::vector<int> fields;
  const orc::OrcType& root = reader.tail().types.nodes.at(0);
  for (const std::string& c : columns) {
    auto it = std::find(root.field_names.begin(), root.field_names.end(), c);
    if (it == root.field_names.end()) {
      return Status::NotFound(fmt::format("{}: no top-level column '{}' (columns: {})", reader.tail().name, c,
                                          fmt::join(root.field_names, ", ")));
    }
    fields.push_back(static_cast<int>(it - root.field_names.begin()));
  }
  return fields;
}

}  // namespace

Status CatOrc(const orc::OrcReader& reader, const std::vector<std::string>& columns, const read::RowSelection& rows,
              const OutputFlags& output) {
  RAP_ASSIGN_OR_RETURN(std::vector<int> fields, ResolveColumns(reader, columns));
  const orc::TypeTree& types = reader.tail().types;
  const orc::OrcType& root = types.nodes.at(0);
  const bool struct_root = root.kind == orc::TypeKind::kStruct;
  if (fields.empty()) {
    for (size_t i = 0; i < (struct_root ? root.subtypes.size() : 1); ++i) fields.push_back(static_cast<int>(i));
  }
  auto schema = std::make_shared<Schema>();
  for (int f : fields) {
    const size_t i = static_cast<size_t>(f);
    RAP_ASSIGN_OR_RETURN(DataTypePtr type, types.ArrowType(struct_root ? root.subtypes[i] : 0));
    schema->fields.push_back(Field{struct_root ? root.field_names[i] : "_col0", type, true});
  }
  RAP_ASSIGN_OR_RETURN(auto out, OpenBatchOutput(output, schema));
  int64_t base = 0;
  for (size_t s = 0; s < reader.num_stripes(); ++s) {
    const int64_t n = static_cast<int64_t>(reader.tail().stripes[s].num_rows);
    const read::RowSelection in_stripe = rows.Slice(base, base + n);
    base += n;
    if (in_stripe.empty()) continue;
    RAP_ASSIGN_OR_RETURN(RecordBatch batch, reader.ReadStripe(s, fields));
    for (const auto& r : in_stripe) {
      RecordBatch part{schema, r.end - r.begin, {}};
      for (const ArrayPtr& col : batch.columns) part.columns.push_back(SliceArray(col, r.begin, r.end - r.begin));
      RAP_RETURN_NOT_OK(out->Write(part));
    }
  }
  return out->Close();
}

}  // namespace rap::cli

// CSV (RFC 4180) and JSON-lines readers of `rap convert`, with schema inference from a sample.
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "convert_input.h"

namespace rap::cli {
namespace {

using json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// CSV records.

struct CsvRecord {
  std::vector<std::string> fields;
  std::vector<bool> quoted;  // a quoted empty field is an empty string, not null
  int64_t line = 0;          // 1-based line where the record starts
};

class CsvRecords {
 public:
  CsvRecords(std::istream& in, char delim, std::string name) : in_(in), delim_(delim), name_(std::move(name)) {}

  // Reads the next record; false at the end of the input.
  Result<bool> Next(CsvRecord* r) {
    std::string line;
    if (!ReadLine(&line)) return false;
    r->fields.clear();
    r->quoted.clear();
    r->line = line_;
    std::string field;
    bool in_quotes = false, quoted = false, after_quote = false;
    size_t i = 0;
    while (true) {
      if (i == line.size()) {
        if (in_quotes) {  // the quoted field continues on the next line
          std::string next;
          if (!ReadLine(&next)) {
            return Status::InvalidArgument(fmt::format("{} line {}: unterminated quoted field", name_, r->line));
          }
          field.push_back('\n');
          line = std::move(next);
          i = 0;
          continue;
        }
        r->fields.push_back(std::move(field));
        r->quoted.push_back(quoted);
        return true;
      }
      const char c = line[i++];
      if (in_quotes) {
        if (c == '"') {
          if (i < line.size() && line[i] == '"') {
            field.push_back('"');
            ++i;
          } else {
            in_quotes = false;
            after_quote = true;
          }
        } else {
          field.push_back(c);
        }
      } else if (c == delim_) {
        r->fields.push_back(std::move(field));
        r->quoted.push_back(quoted);
        field.clear();
        quoted = after_quote = false;
      } else if (after_quote) {
        return Status::InvalidArgument(fmt::format("{} line {}: unexpected '{}' after a closing quote in field {}",
                                                   name_, line_, c, r->fields.size() + 1));
      } else if (c == '"' && field.empty() && !quoted) {
        in_quotes = quoted = true;
      } else {
        field.push_back(c);
      }
    }
  }

  uint64_t bytes() const { return bytes_; }

 private:
  bool ReadLine(std::string* line) {
    if (!std::getline(in_, *line)) return false;
    ++line_;
    bytes_ += line->size() + 1;
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return true;
  }
  std::istream& in_;
  char delim_;
  std::string name_;
  int64_t line_ = 0;
  uint64_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Inference.

DataTypePtr InferTextColumn(const std::vector<const std::string*>& values) {
  bool all_int = true, all_double = true, all_bool = true, all_date = true, all_ts = true;
  auto ok = [](const DataTypePtr& t, const std::string& v) {
    auto b = columnar::MakeColumnBuilder(Field{"x", t, true});
    return b->AppendText(v).ok();
  };
  const auto i64 = MakeType(TypeId::kInt64), f64 = MakeType(TypeId::kFloat64), bl = MakeType(TypeId::kBool);
  const auto date = MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond);
  const auto ts = MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kMicro);
  for (const std::string* v : values) {
    if (all_int) all_int = ok(i64, *v);
    if (all_double) all_double = ok(f64, *v);
    if (all_bool) {
      std::string l = *v;
      for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      all_bool = l == "true" || l == "false";
    }
    if (all_date) all_date = ok(date, *v);
    // Timestamps need a date part: bare integers are not inferred as timestamps.
    if (all_ts) all_ts = v->size() >= 10 && (*v)[4] == '-' && ok(ts, *v);
  }
  if (values.empty()) return MakeType(TypeId::kString);
  if (all_int) return i64;
  if (all_double) return f64;
  if (all_bool) return bl;
  if (all_date) return date;
  if (all_ts) return ts;
  return MakeType(TypeId::kString);
}

// JSON: a merged description of the values seen for one field.
struct JsonShape {
  enum Kind { kUnknown, kBool, kInt, kDouble, kString, kList, kObject, kMixed } kind = kUnknown;
  std::unique_ptr<JsonShape> item;
  std::vector<std::string> names;  // object members in first-seen order
  std::vector<JsonShape> fields;

  void Merge(const json& v) {
    if (v.is_null()) return;
    Kind k = v.is_boolean()          ? kBool
             : v.is_number_integer() ? kInt
             : v.is_number()         ? kDouble
             : v.is_string()         ? kString
             : v.is_array()          ? kList
                                     : kObject;
    if (kind == kUnknown) {
      kind = k;
    } else if ((kind == kInt && k == kDouble) || (kind == kDouble && k == kInt)) {
      kind = kDouble;
    } else if (kind != k) {
      kind = kMixed;
    }
    if (kind == kList && v.is_array()) {
      if (!item) item = std::make_unique<JsonShape>();
      for (const auto& e : v) item->Merge(e);
    } else if (kind == kObject && v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        const size_t f = static_cast<size_t>(std::find(names.begin(), names.end(), it.key()) - names.begin());
        if (f == names.size()) {
          names.push_back(it.key());
          fields.emplace_back();
        }
        fields[f].Merge(*it);
      }
    }
  }

  DataTypePtr ToType() const {
    switch (kind) {
      case kBool:
        return MakeType(TypeId::kBool);
      case kInt:
        return MakeType(TypeId::kInt64);
      case kDouble:
        return MakeType(TypeId::kFloat64);
      case kList:
        return MakeList(Field{"item", item ? item->ToType() : MakeType(TypeId::kString), true});
      case kObject: {
        if (fields.empty()) break;
        std::vector<Field> fs;
        for (size_t i = 0; i < names.size(); ++i) fs.push_back(Field{names[i], fields[i].ToType(), true});
        return MakeStruct(std::move(fs));
      }
      case kMixed: {  // values of several kinds: kept as JSON text
        auto t = std::make_shared<DataType>(*MakeType(TypeId::kString));
        t->extension = "json";
        return t;
      }
      default:
        break;
    }
    return MakeType(TypeId::kString);
  }
};

// ---------------------------------------------------------------------------------------------
// Sources.

class TextSource : public BatchSource {
 public:
  SchemaPtr schema() const override { return schema_; }
  uint64_t total_bytes() const override { return total_; }

 protected:
  Status OpenFile(const std::string& path) {
    name_ = path;
    in_.open(path, std::ios::binary);
    if (!in_) return Status::NotFound("cannot open input " + path);
    std::error_code ec;
    total_ = std::filesystem::file_size(path, ec);
    if (ec) total_ = 0;
    return Status::OK();
  }
  void MakeBuilders() {
    builders_.clear();
    for (const auto& f : schema_->fields) builders_.push_back(columnar::MakeColumnBuilder(f));
  }
  RecordBatch FinishBatch(int64_t rows) {
    RecordBatch b;
    b.schema = schema_;
    b.num_rows = rows;
    for (auto& bl : builders_) b.columns.push_back(bl->Finish());
    return b;
  }
  Status ValueError(const Status& st, int64_t line, const std::string& column) const {
    return Status::InvalidArgument(fmt::format("{} line {}, column '{}': {}", name_, line, column, st.message()));
  }

  std::string name_;
  std::ifstream in_;
  uint64_t total_ = 0;
  SchemaPtr schema_;
  std::vector<std::unique_ptr<columnar::ColumnBuilder>> builders_;
  TextInputOptions options_;
};

class CsvSource : public TextSource {
 public:
  Status Open(const std::string& path, const TextInputOptions& o) {
    options_ = o;
    RAP_RETURN_NOT_OK(OpenFile(path));
    records_ = std::make_unique<CsvRecords>(in_, o.delimiter, path);
    std::vector<std::string> header;
    CsvRecord r;
    if (o.header) {
      RAP_ASSIGN_OR_RETURN(bool got, records_->Next(&r));
      if (!got) return Status::InvalidArgument(path + ": empty CSV input (no header line)");
      header = r.fields;
    }
    // Sample records for inference (replayed before the rest of the file).
    while (static_cast<int64_t>(sample_.size()) < std::max<int64_t>(o.infer_rows, 1)) {
      RAP_ASSIGN_OR_RETURN(bool got, records_->Next(&r));
      if (!got) break;
      sample_.push_back(r);
    }
    if (!o.header) {
      const size_t n = sample_.empty() ? 0 : sample_.front().fields.size();
      for (size_t i = 0; i < n; ++i) header.push_back(fmt::format("c{}", i));
    }
    if (header.empty()) return Status::InvalidArgument(path + ": no columns");
    if (o.schema) {
      schema_ = o.schema;
      for (const auto& f : schema_->fields) {
        auto it = std::find(header.begin(), header.end(), f.name);
        if (it == header.end())
          return Status::InvalidArgument(path + ": schema column '" + f.name + "' is not in the CSV header");
        column_of_field_.push_back(static_cast<int>(it - header.begin()));
      }
    } else {
      auto s = std::make_shared<Schema>();
      for (size_t c = 0; c < header.size(); ++c) {
        std::vector<const std::string*> values;
        for (const auto& rec : sample_) {
          if (c < rec.fields.size() && !IsNull(rec, c)) values.push_back(&rec.fields[c]);
        }
        if (s->FieldIndex(header[c]) >= 0)
          return Status::InvalidArgument(path + ": duplicate column '" + header[c] + "'");
        s->fields.push_back(Field{header[c], InferTextColumn(values), true});
        column_of_field_.push_back(static_cast<int>(c));
      }
      schema_ = s;
    }
    num_fields_ = header.size();
    MakeBuilders();
    return Status::OK();
  }

  Result<std::optional<RecordBatch>> Next() override {
    int64_t rows = 0;
    CsvRecord r;
    while (rows < options_.batch_rows) {
      if (!sample_.empty()) {
        r = std::move(sample_.front());
        sample_.pop_front();
      } else {
        RAP_ASSIGN_OR_RETURN(bool got, records_->Next(&r));
        if (!got) break;
      }
      if (r.fields.size() == 1 && r.fields[0].empty() && num_fields_ > 1) continue;  // blank line
      if (r.fields.size() != num_fields_) {
        return Status::InvalidArgument(
            fmt::format("{} line {}: expected {} fields, found {}", name_, r.line, num_fields_, r.fields.size()));
      }
      for (size_t f = 0; f < builders_.size(); ++f) {
        const int c = column_of_field_[f];
        Status st = IsNull(r, c) ? builders_[f]->AppendNull() : builders_[f]->AppendText(r.fields[c]);
        if (!st.ok()) return ValueError(st, r.line, schema_->fields[f].name);
      }
      ++rows;
    }
    if (rows == 0) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(FinishBatch(rows));
  }

  uint64_t bytes_read() const override { return records_ ? records_->bytes() : 0; }

 private:
  bool IsNull(const CsvRecord& r, size_t c) const {
    return !r.quoted[c] && (r.fields[c].empty() || (!options_.null_text.empty() && r.fields[c] == options_.null_text));
  }
  std::unique_ptr<CsvRecords> records_;
  std::deque<CsvRecord> sample_;
  std::vector<int> column_of_field_;
  size_t num_fields_ = 0;
};

class JsonLinesSource : public TextSource {
 public:
  Status Open(const std::string& path, const TextInputOptions& o) {
    options_ = o;
    RAP_RETURN_NOT_OK(OpenFile(path));
    JsonShape shape;
    shape.kind = JsonShape::kObject;
    while (static_cast<int64_t>(sample_.size()) < std::max<int64_t>(o.infer_rows, 1)) {
      std::optional<std::pair<json, int64_t>> rec;
      RAP_ASSIGN_OR_RETURN(rec, ReadRecord());
      if (!rec) break;
      if (!o.schema) shape.Merge(rec->first);
      sample_.push_back(std::move(*rec));
    }
    if (o.schema) {
      schema_ = o.schema;
    } else {
      if (shape.fields.empty())
        return Status::InvalidArgument(path + ": no JSON objects with fields to infer a schema from");
      auto s = std::make_shared<Schema>();
      for (size_t i = 0; i < shape.names.size(); ++i) {
        s->fields.push_back(Field{shape.names[i], shape.fields[i].ToType(), true});
      }
      schema_ = s;
    }
    MakeBuilders();
    return Status::OK();
  }

  Result<std::optional<RecordBatch>> Next() override {
    int64_t rows = 0;
    while (rows < options_.batch_rows) {
      std::optional<std::pair<json, int64_t>> rec;
      if (!sample_.empty()) {
        rec = std::move(sample_.front());
        sample_.pop_front();
      } else {
        RAP_ASSIGN_OR_RETURN(rec, ReadRecord());
        if (!rec) break;
      }
      const json& obj = rec->first;
      for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (schema_->FieldIndex(it.key()) < 0) {
          return Status::InvalidArgument(
              fmt::format("{} line {}: field '{}' is not in the schema (inferred from the "
                          "first {} lines; raise --infer-rows or give --schema)",
                          name_, rec->second, it.key(), options_.infer_rows));
        }
      }
      for (size_t f = 0; f < builders_.size(); ++f) {
        auto it = obj.find(schema_->fields[f].name);
        Status st = it == obj.end() ? builders_[f]->AppendNull() : builders_[f]->AppendJson(*it);
        if (!st.ok()) return ValueError(st, rec->second, schema_->fields[f].name);
      }
      ++rows;
    }
    if (rows == 0) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(FinishBatch(rows));
  }

  uint64_t bytes_read() const override { return bytes_; }

 private:
  // The next non-blank line as a JSON object, with its line number.
  Result<std::optional<std::pair<json, int64_t>>> ReadRecord() {
    std::string line;
    while (std::getline(in_, line)) {
      ++line_;
      bytes_ += line.size() + 1;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json v = json::parse(line, nullptr, false);
      if (v.is_discarded()) {
        // Re-parse with exceptions to get the position of the error (caught here, at the edge).
        try {
          [[maybe_unused]] json strict = json::parse(line);
        } catch (const json::parse_error& e) {
          return Status::InvalidArgument(
              fmt::format("{} line {}, byte {}: malformed JSON ({})", name_, line_, e.byte, e.what()));
        }
        return Status::InvalidArgument(fmt::format("{} line {}: malformed JSON", name_, line_));
      }
      if (!v.is_object()) {
        return Status::InvalidArgument(
            fmt::format("{} line {}: expected a JSON object, got {}", name_, line_, v.type_name()));
      }
      return std::optional<std::pair<json, int64_t>>(std::make_pair(std::move(v), line_));
    }
    return std::optional<std::pair<json, int64_t>>();
  }

  std::deque<std::pair<json, int64_t>> sample_;
  int64_t line_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenCsv(const std::string& path, const TextInputOptions& options) {
  auto s = std::make_unique<CsvSource>();
  RAP_RETURN_NOT_OK(s->Open(path, options));
  return std::unique_ptr<BatchSource>(std::move(s));
}

Result<std::unique_ptr<BatchSource>> OpenJsonLines(const std::string& path, const TextInputOptions& options) {
  auto s = std::make_unique<JsonLinesSource>();
  RAP_RETURN_NOT_OK(s->Open(path, options));
  return std::unique_ptr<BatchSource>(std::move(s));
}

}  // namespace rap::cli

// The table-format seam (rap/table/table_format.h): the probe, the registry of formats and what the
// formats rap does not read yet share.
#include "rap/table/table_format.h"

#include "table/formats.h"
#include "table/path_util.h"

namespace rap::table {

TableProbe::TableProbe(std::string url, io::ObjectStorePtr store, std::string root)
    : url_(std::move(url)), store_(std::move(store)), root_(TrimTrailingSlash(std::move(root))) {}

Result<const std::vector<io::ObjectInfo>*> TableProbe::Listing() {
  if (!listed_) {
    listed_ = true;
    if (EndsWith(root_, ".parquet") || EndsWith(root_, ".orc")) {
      // A single object: a one-file table (Head fails with NotFound when it is a folder name).
      auto head = store_->Head(root_);
      if (head.ok()) {
        io::ObjectInfo info = *head;
        info.path = root_;
        listing_.push_back(std::move(info));
        single_file_ = true;
        return &listing_;
      }
    }
    auto listed = store_->List(root_ + "/");
    if (listed.ok()) {
      listing_ = std::move(*listed);
    } else {
      listing_status_ = listed.status();
    }
  }
  if (!listing_status_.ok()) return listing_status_;
  return &listing_;
}

std::vector<std::string> TableProbe::RelativePaths() {
  std::vector<std::string> out;
  auto listing = Listing();
  if (!listing.ok() || single_file_) return out;
  for (const io::ObjectInfo& info : **listing) {
    std::string rel = RelativeTo(root_, info.path);
    if (!rel.empty()) out.push_back(std::move(rel));
  }
  return out;
}

const std::vector<const TableFormat*>& TableFormats() {
  static const std::vector<const TableFormat*> formats = {&DeltaFormat(), &IcebergFormat(), &PaimonFormat(),
                                                          &HudiFormat(), &PendingWriteFormat()};
  return formats;
}

Result<const TableFormat*> DetectTableFormat(TableProbe& probe) {
  for (const TableFormat* format : TableFormats()) {
    if (format->NamedByRoot(probe.root())) return format;
  }
  for (const TableFormat* format : TableFormats()) {
    RAP_ASSIGN_OR_RETURN(bool found, format->Detect(probe));
    if (found) return format;
  }
  return nullptr;
}

Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file) {
  if (snapshot.format) return snapshot.format->DeletedRows(snapshot, file);
  if (file.deletion_vector) {
    return Status::Internal(file.path + ": a deletion vector in a table without a table format");
  }
  return std::vector<uint64_t>{};
}

std::string_view FormatName(const TableSnapshot& snapshot) {
  return snapshot.format ? snapshot.format->name() : std::string_view("directory");
}

std::string UnreadTableFormat::FindMarker(TableProbe& probe) const {
  for (const std::string& rel : probe.RelativePaths()) {
    if (marks_(SplitPath(rel))) return rel;
  }
  return "";
}

Result<bool> UnreadTableFormat::Detect(TableProbe& probe) const { return !FindMarker(probe).empty(); }

Result<TableSnapshot> UnreadTableFormat::Open(TableProbe& probe, const OpenTableOptions&) const {
  const std::string title(title_);
  const char* article = std::string_view("AEIOU").find(title.front()) != std::string_view::npos ? "an " : "a ";
  return Status::NotSupported(probe.url() + ": this is " + article + title + " table (it has " + FindMarker(probe) +
                              "); rap does not read " + title +
                              " tables yet (it reads Delta Lake tables and folders of Parquet files), and its Parquet "
                              "files alone would give deleted and superseded rows");
}

Result<std::vector<uint64_t>> UnreadTableFormat::DeletedRows(const TableSnapshot& snapshot, const DataFile&) const {
  return Status::NotSupported(snapshot.root + ": rap does not read " + std::string(title_) + " tables yet");
}

}  // namespace rap::table

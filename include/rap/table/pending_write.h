// A table being written for the first time on an object store, before its first commit.
//
// A new table on S3 cannot be staged and renamed as a local folder is: its data files appear under
// the output prefix one by one, before the commit that makes them a table (Delta's first log entry,
// or the index of a folder output). A writer of a new table therefore first puts a marker object,
// kPendingWriteMarker, at the table's root (create-if-absent, so two writers of one new table do not
// both proceed), and deletes it last, after its commit. A root that holds the marker and no table
// format's own metadata is refused by OpenTable (NotFound: the table does not exist yet), so a crash
// between the first data file and the commit never reads as a folder table of some of the rows.
// The marker's content (JSON: writer, token, start time) is for people; only its name matters.
#pragma once

#include <string>
#include <string_view>

#include "rap/io/object_store.h"
#include "rap/util/status.h"

namespace rap::table {

inline constexpr std::string_view kPendingWriteMarker = "_rap_pending_write";

// Puts the marker at `root` (a path in `store`) if absent. Changed when one is already there (another
// writer, or a writer that crashed: the message says how to clear it).
Status BeginPendingWrite(io::ObjectStore& store, const std::string& root, std::string_view writer,
                         std::string_view token);

// Deletes the marker (after the commit, or after a failed write has removed its files).
Status EndPendingWrite(io::ObjectStore& store, const std::string& root);

}  // namespace rap::table

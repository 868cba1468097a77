// Import through the Arrow C Data Interface and the Arrow C Stream Interface
// (https://arrow.apache.org/docs/format/CDataInterface.html): the mirror of rap/columnar/arrow_c.h.
// Data from any Arrow producer (pyarrow, polars, DuckDB, arrow-rs ...) becomes rap arrays without a
// copy: the imported Buffers point at the producer's memory and keep the producer's ArrowArray alive
// until the last of them is dropped, then call its release callback (once, for the whole tree).
//
// Ownership: every Import* function takes ownership of the structures it is given (it "moves" them,
// as the specification describes). When it returns, successfully or not, each input structure is
// released or moved from: its `release` member is null, and the caller must not release it again.
//
// Validation: the C structures carry no buffer sizes, so what can be checked is checked, against the
// format string and the declared lengths: lengths, offsets and null counts non-negative and within
// range, the number of buffers and children the type needs, the buffers a non-empty array needs not
// null, list/string offsets non-decreasing from a non-negative start and within the child's length.
// A structure that breaks any rule is InvalidArgument naming the field (its path of names, e.g.
// "column 'tags' item") and the rule; nothing is read past a declared length. Formats rap has no type
// for (large strings/lists, views, durations, intervals, unions, dictionaries, decimal256) are
// NotSupported naming the field and the format.
//
// Types: n b c C s S i I l L e f g u z w:N d:P,S[,128] tdD tts ttm ttu ttn ts{s,m,u,n}:TZ +l +s +m,
// exactly the formats ExportType writes, so export followed by import gives back equal arrays.
//
// Example (a pyarrow table handed over through its capsule, then written with rap's Parquet writer):
//   ArrowArrayStream* stream = ...;                      // from table.__arrow_c_stream__()
//   RAP_ASSIGN_OR_RETURN(auto reader, columnar::ImportRecordBatchReader(stream));
//   while (true) {
//     RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
//     if (!batch) break;
//     ... writer.WriteBatch(*batch) ...
//   }
#pragma once

#include <memory>
#include <string>

#include "rap/columnar/array.h"
#include "rap/columnar/arrow_c.h"
#include "rap/columnar/record_batch_reader.h"
#include "rap/util/result.h"

namespace rap::columnar {

// The field a schema structure describes: its name, type and nullability (ARROW_FLAG_NULLABLE).
// Consumes *schema.
Result<Field> ImportField(ArrowSchema* schema);
// The type alone (the name and flags of *schema ignored). Consumes *schema.
Result<DataTypePtr> ImportType(ArrowSchema* schema);
// A struct ("+s") schema as a record batch schema: one field per child. Consumes *schema.
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);

// An array of `type` (from ImportType, or any rap type with the same layout). Consumes *array;
// zero-copy. `name` names the array in error messages.
Result<ArrayPtr> ImportArray(ArrowArray* array, const DataTypePtr& type, const std::string& name = "array");
// A struct array whose children are the columns of `schema` (as ExportRecordBatch writes it). The
// struct must have no null rows; its offset is applied to the columns (zero-copy slices). Consumes
// *array.
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, const SchemaPtr& schema);
// Both halves at once (ExportRecordBatch with a schema). Consumes *array and *schema.
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);

// A reader over the stream's batches: the schema is fetched here (an error is returned here), each
// Next() imports one batch; a producer's error (non-zero return code) is IOError with the code and
// the producer's message. The reader owns the stream and releases it when destroyed. Consumes
// *stream.
Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(ArrowArrayStream* stream);

}  // namespace rap::columnar

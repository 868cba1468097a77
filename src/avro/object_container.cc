#include "rap/avro/object_container.h"

#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <memory>

#include "avro/binary.h"
#include "avro/datum.h"
#include "avro/schema_check.h"
#include "rap/codec/codec.h"

namespace rap::avro {

namespace {

constexpr uint8_t kMagic[4] = {'O', 'b', 'j', 1};
constexpr size_t kSyncSize = 16;

// Raw deflate (RFC 1951, the Avro "deflate" codec) or a zstd stream, inflated up to `max` bytes.
Result<std::string> Inflate(bool zstd, std::span<const uint8_t> in, uint64_t max, const std::string& where) {
  std::string out;
  std::vector<char> chunk(64 * 1024);
  if (zstd) {
    std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
    if (!ds) return Status::ResourceExhausted(where + ": zstd stream");
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    size_t last = 1;
    while (input.pos < input.size || last != 0) {
      ZSTD_outBuffer output{chunk.data(), chunk.size(), 0};
      last = ZSTD_decompressStream(ds.get(), &output, &input);
      if (ZSTD_isError(last)) return Status::Corrupt(where + ": zstandard: " + ZSTD_getErrorName(last));
      out.append(chunk.data(), output.pos);
      if (out.size() > max) return Status::ResourceExhausted(where + ": inflates past " + std::to_string(max) + " bytes");
      if (output.pos == 0 && input.pos == input.size && last != 0) {
        return Status::Corrupt(where + ": zstandard: the frame is truncated");
      }
    }
    return out;
  }
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Status::ResourceExhausted(where + ": zlib stream");
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
    zs.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return Status::Corrupt(where + ": deflate: " + (zs.msg ? zs.msg : "the stream is truncated or invalid"));
    }
    out.append(chunk.data(), chunk.size() - zs.avail_out);
    if (out.size() > max) {
      inflateEnd(&zs);
      return Status::ResourceExhausted(where + ": inflates past " + std::to_string(max) + " bytes");
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return Status::Corrupt(where + ": deflate: the stream is truncated");
    }
  }
  inflateEnd(&zs);
  return out;
}

// The Avro "snappy" codec: a Snappy block followed by the CRC-32 (big-endian) of the uncompressed bytes.
Result<std::string> Unsnappy(std::span<const uint8_t> in, uint64_t max, const std::string& where) {
  if (in.size() < 4) return Status::Corrupt(where + ": snappy block shorter than its CRC");
  std::span<const uint8_t> body = in.first(in.size() - 4);
  BinaryReader r(body, where);
  uint64_t n = 0;  // the Snappy preamble: the uncompressed length as an unsigned varint
  for (int shift = 0;; shift += 7) {
    if (shift > 28 || r.left() == 0) return Status::Corrupt(where + ": snappy length preamble is malformed");
    const uint8_t b = *r.here();
    RAP_RETURN_NOT_OK(r.Skip(1, "snappy preamble"));
    n |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if (n > max) return Status::ResourceExhausted(where + ": snappy block inflates to " + std::to_string(n) + " bytes");
  std::string out(n, '\0');
  RAP_RETURN_NOT_OK(codec::Decompress(codec::Codec::SNAPPY, body,
                                      std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), out.size())));
  const uint8_t* c = in.data() + in.size() - 4;
  const uint32_t expected = (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | c[3];
  if (static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size()))) !=
      expected) {
    return Status::Corrupt(where + ": snappy block CRC-32 mismatch");
  }
  return out;
}

// The header's metadata map (map<bytes>).
Status ReadMetadata(BinaryReader& r, ContainerFile* file) {
  while (true) {
    RAP_ASSIGN_OR_RETURN(int64_t count, r.Long("header metadata count"));
    if (count == 0) return Status::OK();
    if (count == INT64_MIN) return r.Error("header metadata", "count out of range");
    if (count < 0) {
      count = -count;
      RAP_RETURN_NOT_OK(r.Length("header metadata block size").status());
    }
    if (static_cast<uint64_t>(count) > r.left()) return r.Error("header metadata", "more entries than bytes");
    for (int64_t i = 0; i < count; ++i) {
      RAP_ASSIGN_OR_RETURN(size_t kn, r.Length("header metadata key length"));
      std::string key(reinterpret_cast<const char*>(r.here()), kn);
      RAP_RETURN_NOT_OK(r.Skip(kn, "header metadata key"));
      RAP_ASSIGN_OR_RETURN(size_t vn, r.Length("header metadata value length"));
      std::string value(reinterpret_cast<const char*>(r.here()), vn);
      RAP_RETURN_NOT_OK(r.Skip(vn, "header metadata value"));
      file->metadata[std::move(key)] = std::move(value);
    }
  }
}

struct SchemaHandle {
  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  ~SchemaHandle() {
    if (iface) avro_value_iface_decref(iface);
    if (schema) avro_schema_decref(schema);
  }
};

}  // namespace

Result<ContainerFile> ReadContainerFile(std::span<const uint8_t> bytes, const std::string& what,
                                        const ReadLimits& limits) {
  BinaryReader r(bytes, what);
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return Status::Corrupt(what + ": not an Avro object container file (no 'Obj\\x01' magic at byte offset 0)");
  }
  RAP_RETURN_NOT_OK(r.Skip(4, "magic"));
  ContainerFile file;
  RAP_RETURN_NOT_OK(ReadMetadata(r, &file));
  auto schema_it = file.metadata.find("avro.schema");
  if (schema_it == file.metadata.end()) return Status::Corrupt(what + ": the header has no avro.schema");
  file.schema_json = schema_it->second;
  auto codec_it = file.metadata.find("avro.codec");
  file.codec = codec_it == file.metadata.end() || codec_it->second.empty() ? "null" : codec_it->second;
  if (file.codec != "null" && file.codec != "deflate" && file.codec != "snappy" && file.codec != "zstandard") {
    return Status::NotSupported(what + ": Avro codec '" + file.codec + "' is not supported");
  }
  if (r.left() < kSyncSize) return r.Error("header sync marker", "the file ends inside it");
  const uint8_t* sync = r.here();
  RAP_RETURN_NOT_OK(r.Skip(kSyncSize, "header sync marker"));

  RAP_RETURN_NOT_OK(CheckSchemaJson(file.schema_json, limits.max_depth, what));
  SchemaHandle h;
  if (avro_schema_from_json_length(file.schema_json.data(), file.schema_json.size(), &h.schema) != 0 || !h.schema) {
    return Status::Corrupt(what + ": avro.schema does not parse (Avro C: " + avro_strerror() + ")");
  }
  h.iface = avro_generic_class_from_schema(h.schema);
  if (!h.iface) return Status::Corrupt(what + ": avro.schema: Avro C: " + avro_strerror());

  for (int block = 0; r.left() > 0; ++block) {
    const std::string where = what + ": block " + std::to_string(block) + " at byte offset " + std::to_string(r.offset());
    RAP_ASSIGN_OR_RETURN(int64_t count, r.Long("block record count"));
    if (count < 0) return Status::Corrupt(where + ": negative record count " + std::to_string(count));
    RAP_ASSIGN_OR_RETURN(size_t size, r.Length("block size"));
    if (file.records.size() + static_cast<uint64_t>(count) > limits.max_records) {
      return Status::ResourceExhausted(where + ": more than " + std::to_string(limits.max_records) + " records");
    }
    const uint64_t data_offset = r.offset();
    std::span<const uint8_t> raw(r.here(), size);
    RAP_RETURN_NOT_OK(r.Skip(size, "block data"));
    if (r.left() < kSyncSize || std::memcmp(r.here(), sync, kSyncSize) != 0) {
      return r.Error("block " + std::to_string(block) + " sync marker", "does not match the header's");
    }
    RAP_RETURN_NOT_OK(r.Skip(kSyncSize, "block sync marker"));
    std::string inflated;
    std::span<const uint8_t> data = raw;
    uint64_t base = data_offset;  // byte offsets in messages: in the file for "null", in the block otherwise
    if (file.codec != "null") {
      if (file.codec == "snappy") {
        RAP_ASSIGN_OR_RETURN(inflated, Unsnappy(raw, limits.max_block_bytes, where));
      } else {
        RAP_ASSIGN_OR_RETURN(inflated, Inflate(file.codec == "zstandard", raw, limits.max_block_bytes, where));
      }
      data = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(inflated.data()), inflated.size());
      base = 0;
    } else if (size > limits.max_block_bytes) {
      return Status::ResourceExhausted(where + ": " + std::to_string(size) + " bytes");
    }
    const std::string block_what = file.codec == "null" ? what : where + " (decompressed)";
    RAP_RETURN_NOT_OK(CheckBlockDatums(h.schema, data, static_cast<uint64_t>(count), base, block_what, limits));
    RAP_RETURN_NOT_OK(DecodeBlockDatums(h.iface, data, static_cast<uint64_t>(count), base, block_what, &file.records));
  }
  return file;
}

}  // namespace rap::avro

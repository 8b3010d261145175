#include "lean/lookup_wire.h"

#include <cstdint>
#include <optional>

namespace qdcache::lean {
namespace {

// ---- encoding ----

void PutVarint(std::string& out, std::uint64_t v) {
  while (v > 0x7f) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::size_t VarintSize(std::uint64_t v) {
  std::size_t n = 1;
  while (v > 0x7f) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field; proto3 leaves an empty string or bytes field out.
void PutBytes(std::string& out, int field, std::string_view data, bool even_empty = false) {
  if (data.empty() && !even_empty) return;
  PutVarint(out, static_cast<std::uint64_t>(field) << 3 | 2);
  PutVarint(out, data.size());
  out.append(data);
}

// The qdcache.v1.Target message: the oneof member of the target's family.
std::string TargetMessage(const Target& target) {
  std::string inner;
  int member = 1;
  switch (target.kind) {
    case TargetKind::kCuda:
      PutBytes(inner, 1, target.sm);
      break;
    case TargetKind::kCpu:
    case TargetKind::kAmdgpu:
      member = target.kind == TargetKind::kCpu ? 2 : 3;
      PutBytes(inner, 1, target.cpu);
      for (const std::string& feature : target.features) PutBytes(inner, 2, feature, /*even_empty=*/true);
      break;
  }
  std::string out;
  PutBytes(out, member, inner, /*even_empty=*/true);  // a oneof member is sent when set, even empty
  return out;
}

// ---- decoding ----

class Reader {
 public:
  explicit Reader(std::string_view data)
      : p_(reinterpret_cast<const std::uint8_t*>(data.data())), end_(p_ + data.size()) {}

  [[nodiscard]] bool done() const { return p_ == end_; }
  [[nodiscard]] const char* at() const { return reinterpret_cast<const char*>(p_); }

  [[nodiscard]] bool Varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const std::uint8_t b = *p_++;
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return false;  // more than 10 bytes
  }

  [[nodiscard]] bool Tag(std::uint32_t& field, int& wire) {
    std::uint64_t tag;
    if (!Varint(tag) || tag >> 3 == 0 || tag >> 3 > 0x1fffffff) return false;
    field = static_cast<std::uint32_t>(tag >> 3);
    wire = static_cast<int>(tag & 7);
    return true;
  }

  [[nodiscard]] bool Bytes(std::string_view& v) {
    std::uint64_t n;
    if (!Varint(n) || n > static_cast<std::uint64_t>(end_ - p_)) return false;
    v = std::string_view(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }

  // Past a field of wire type `wire` that is not read.
  [[nodiscard]] bool Skip(int wire) {
    std::uint64_t v;
    std::string_view bytes;
    switch (wire) {
      case 0: return Varint(v);
      case 1: return Advance(8);
      case 2: return Bytes(bytes);
      case 5: return Advance(4);
      default: return false;  // groups (3, 4) are not in qdcache.v1; 6 and 7 are no wire type
    }
  }

 private:
  [[nodiscard]] bool Advance(std::size_t n) {
    if (n > static_cast<std::size_t>(end_ - p_)) return false;
    p_ += n;
    return true;
  }

  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

// Reads each field of the message `data` with `field` (number, wire type,
// reader): false when the bytes are not a message or `field` says so.
template <typename Field>
bool ForEachField(std::string_view data, Field&& field) {
  Reader r(data);
  while (!r.done()) {
    std::uint32_t number;
    int wire;
    if (!r.Tag(number, wire) || !field(number, wire, r)) return false;
  }
  return true;
}

// Appends to `*out` each field of the message `data` as it was sent, but
// those `take` (number, wire type, reader at the field's value) claims: it
// returns nullopt for a field to copy, or whether it read a field it took.
// False when the bytes are not a message or `take` says so.
template <typename Take>
bool CopyFieldsBut(std::string_view data, std::string* out, Take&& take) {
  Reader r(data);
  while (!r.done()) {
    const char* start = r.at();
    std::uint32_t number;
    int wire;
    if (!r.Tag(number, wire)) return false;
    if (const std::optional<bool> taken = take(number, wire, r)) {
      if (!*taken) return false;
      continue;
    }
    if (!r.Skip(wire)) return false;
    out->append(start, r.at());
  }
  return true;
}

// A length-delimited field's bytes (a known field of another wire type is
// kept as unknown, as protobuf does: skipped).
bool ReadBytes(int wire, Reader& r, std::string_view& out) {
  return wire == 2 ? r.Bytes(out) : r.Skip(wire);
}

bool ReadInt(int wire, Reader& r, int& out) {
  if (wire != 0) return r.Skip(wire);
  std::uint64_t v;
  if (!r.Varint(v)) return false;
  out = static_cast<int>(static_cast<std::int32_t>(v));  // int32 and enums: the low 32 bits
  return true;
}

bool ReadArtifact(std::string_view data, WireResult& out) {
  return ForEachField(data, [&](std::uint32_t number, int wire, Reader& r) {
    switch (number) {
      case 1: return ReadInt(wire, r, out.kind);
      case 2: return ReadBytes(wire, r, out.artifact_key);
      case 3: return ReadBytes(wire, r, out.payload);
      case 5: return ReadBytes(wire, r, out.ptx);
      case 6: return ReadBytes(wire, r, out.target);
      default: return r.Skip(wire);
    }
  });
}

bool ReadError(std::string_view data, WireResult& out) {
  return ForEachField(data, [&](std::uint32_t number, int wire, Reader& r) {
    switch (number) {
      case 1: return ReadInt(wire, r, out.error_code);
      case 2: return ReadBytes(wire, r, out.error_message);
      default: return r.Skip(wire);
    }
  });
}

bool ReadDependency(std::string_view data, WireDependency& out) {
  return ForEachField(data, [&](std::uint32_t number, int wire, Reader& r) {
    switch (number) {
      case 1: return ReadBytes(wire, r, out.name);
      case 2: return ReadBytes(wire, r, out.digest);
      default: return r.Skip(wire);
    }
  });
}

bool ReadResult(std::string_view data, WireResult& out) {
  return ForEachField(data, [&](std::uint32_t number, int wire, Reader& r) {
    if (number == 1) return ReadInt(wire, r, out.status);
    if ((number != 2 && number != 3 && number != 6) || wire != 2) return r.Skip(wire);
    std::string_view message;
    if (!r.Bytes(message)) return false;
    if (number == 6) {
      out.dependencies.emplace_back();
      return ReadDependency(message, out.dependencies.back());
    }
    if (number == 2) {
      // The oneof's other member is cleared; a second artifact merges into the first.
      out.has_error = false;
      out.error_code = 0;
      out.error_message = {};
      out.has_artifact = true;
      return ReadArtifact(message, out);
    }
    if (out.has_artifact) {  // every field of the artifact goes; the result's own stay
      WireResult cleared;
      cleared.status = out.status;
      cleared.dependencies = std::move(out.dependencies);
      cleared.raw = out.raw;
      out = std::move(cleared);
    }
    out.has_error = true;
    return ReadError(message, out);
  });
}

}  // namespace

std::string EncodeLookupRequest(std::string_view client_name, const std::vector<std::string_view>& keys,
                                std::string_view ns, const Target& target, bool include_ptx) {
  std::string header;
  header.push_back(0x08);  // protocol_version = PROTOCOL_VERSION_1
  header.push_back(0x01);
  PutBytes(header, 2, client_name);
  // A query is its key, then the namespace and target, which all share.
  std::string space;
  PutBytes(space, 2, ns);
  PutBytes(space, 3, TargetMessage(target), /*even_empty=*/true);
  std::size_t size = header.size() + 4 + keys.size() * (space.size() + 12);
  for (std::string_view key : keys) size += key.size();
  std::string out;
  out.reserve(size);
  PutBytes(out, 1, header, /*even_empty=*/true);
  for (std::string_view key : keys) {
    const std::size_t key_field = key.empty() ? 0 : 1 + VarintSize(key.size()) + key.size();
    PutVarint(out, 2 << 3 | 2);
    PutVarint(out, key_field + space.size());
    PutBytes(out, 1, key);
    out.append(space);
  }
  if (include_ptx) out.append("\x18\x01", 2);
  return out;
}

std::string ResultForParse(const WireResult& item, std::string_view payload, bool dropped) {
  std::string result;
  if (!dropped) {
    result.append(item.raw);
    if (!payload.empty()) {
      std::string artifact;  // merged into the artifact the result holds
      PutBytes(artifact, 3, payload);
      PutBytes(result, 2, artifact);
    }
  } else {
    // Every field but the status, the artifact and the dependencies, as read
    // (DecodeLookupResults read these bytes already: they are a message).
    (void)CopyFieldsBut(item.raw, &result, [](std::uint32_t number, int wire, Reader& r) -> std::optional<bool> {
      if (number != 1 && number != 2 && number != 6) return std::nullopt;
      return r.Skip(wire);
    });
    result.append("\x08\x06", 2);  // status = CACHE_STATUS_MISS
  }
  std::string out;
  PutBytes(out, 1, result, /*even_empty=*/true);
  return out;
}

Expected<std::string_view> AppendWithoutClientName(std::string_view request, std::string* out) {
  std::string_view client;
  out->reserve(out->size() + request.size());
  const bool read = CopyFieldsBut(request, out, [&](std::uint32_t number, int wire, Reader& r) -> std::optional<bool> {
    if (number != 1 || wire != 2) return std::nullopt;  // not the header: as sent
    std::string_view header;
    if (!r.Bytes(header)) return false;
    std::string kept;  // the header's fields but the name
    const bool header_read =
        CopyFieldsBut(header, &kept, [&](std::uint32_t field, int field_wire, Reader& h) -> std::optional<bool> {
          if (field != 2 || field_wire != 2) return std::nullopt;
          return h.Bytes(client);
        });
    if (!header_read) return false;
    PutBytes(*out, 1, kept, /*even_empty=*/true);
    return true;
  });
  if (!read) return Unavailable("a lean Lookup request's LookupRequest does not decode");
  return client;
}

Expected<std::vector<WireResult>> DecodeLookupResults(std::string_view response) {
  std::vector<WireResult> results;
  const bool decoded = ForEachField(response, [&](std::uint32_t number, int wire, Reader& r) {
    if (number != 1 || wire != 2) return r.Skip(wire);
    std::string_view message;
    if (!r.Bytes(message)) return false;
    results.emplace_back();
    results.back().raw = message;
    return ReadResult(message, results.back());
  });
  if (!decoded) return Unavailable("a lean Lookup answer's LookupResponse does not decode");
  return results;
}

}  // namespace qdcache::lean

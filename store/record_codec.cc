#include "store/record_codec.h"

#include <cstring>

#include "common/digest.h"
#include "store/record.pb.h"

namespace qdcache::store {
namespace {

constexpr std::string_view kAliasMagic = "QDA";
constexpr char kAliasFormatVersion = 1;
constexpr char kAliasManifestFormatVersion = 2;
constexpr std::size_t kAliasCheckSize = 8;
constexpr std::size_t kAliasHeaderSize = 3 + 1 + kAliasCheckSize;

void AppendU32BigEndian(std::string* out, std::uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                         static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(bytes, 4);
}

void AppendLengthPrefixed(std::string* out, std::string_view field) {
  AppendU32BigEndian(out, static_cast<std::uint32_t>(field.size()));
  out->append(field);
}

std::string AliasCheck(std::string_view encoded_alias_key, std::string_view artifact_key) {
  Sha256Hasher hasher;
  hasher.UpdateField(encoded_alias_key);
  hasher.UpdateField(artifact_key);
  return DigestBytes(hasher.Finish()).substr(0, kAliasCheckSize);
}

std::string AliasCheck(std::string_view encoded_alias_key, std::string_view artifact_key,
                       std::string_view manifest) {
  Sha256Hasher hasher;
  hasher.UpdateField("manifest");
  hasher.UpdateField(encoded_alias_key);
  hasher.UpdateField(artifact_key);
  hasher.UpdateField(manifest);
  return DigestBytes(hasher.Finish()).substr(0, kAliasCheckSize);
}

std::string StageDigest(std::string_view key, std::string_view value) {
  Sha256Hasher hasher;
  hasher.UpdateField(key);
  hasher.UpdateField(value);
  return DigestBytes(hasher.Finish());
}

}  // namespace

std::string EncodeFixed64(std::uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

std::string EncodeFixed32(std::uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

bool DecodeFixed64(std::string_view bytes, std::uint64_t* out) {
  if (bytes.size() != 8) return false;
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(bytes[i]);
  *out = v;
  return true;
}

bool DecodeFixed32(std::string_view bytes, std::uint32_t* out) {
  if (bytes.size() != 4) return false;
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(bytes[i]);
  *out = v;
  return true;
}

std::string EncodeRecord(const ArtifactRecord& record) {
  internal::StoredRecord body;
  body.set_key(record.key);
  body.set_kind(record.kind);
  body.set_target(record.target);
  body.set_toolchain(record.toolchain);
  body.set_payload(record.payload);
  body.set_payload_digest(record.payload_digest);
  body.set_ptx(record.ptx);
  body.set_metadata(record.metadata);
  body.set_compile_log(record.compile_log);
  body.set_compile_micros(record.compile_micros);
  body.set_created_unix_ms(record.created_unix_ms);

  std::string body_bytes;
  body.SerializeToString(&body_bytes);  // cannot fail: no required fields

  std::string value;
  value.reserve(kRecordHeaderSize + body_bytes.size());
  value.append(kRecordMagic);
  value.append(EncodeFixed32(kRecordFormatVersion));
  value.append(DigestBytes(Sha256(body_bytes)));
  value.append(body_bytes);
  return value;
}

Status DecodeRecord(std::string_view value, ArtifactRecord* out) {
  if (value.size() < kRecordHeaderSize) {
    return DataLoss("record shorter than its header (" + std::to_string(value.size()) + " bytes)");
  }
  if (value.substr(0, 4) != kRecordMagic) return DataLoss("record magic mismatch");
  std::uint32_t version = 0;
  (void)DecodeFixed32(value.substr(4, 4), &version);
  if (version != kRecordFormatVersion) {
    return DataLoss("unsupported record format version " + std::to_string(version));
  }
  const std::string_view stored_digest = value.substr(8, 32);
  const std::string_view body_bytes = value.substr(kRecordHeaderSize);
  if (DigestBytes(Sha256(body_bytes)) != stored_digest)
    return DataLoss("record body digest mismatch");

  internal::StoredRecord body;
  if (body_bytes.size() > static_cast<std::size_t>(INT32_MAX) ||
      !body.ParseFromArray(body_bytes.data(), static_cast<int>(body_bytes.size()))) {
    return DataLoss("record body does not parse");
  }
  out->key = body.key();
  out->kind = body.kind();
  out->target = body.target();
  out->toolchain = body.toolchain();
  out->payload = std::move(*body.mutable_payload());
  out->payload_digest = body.payload_digest();
  out->ptx = std::move(*body.mutable_ptx());
  out->metadata = body.metadata();
  out->compile_log = body.compile_log();
  out->compile_micros = body.compile_micros();
  out->created_unix_ms = body.created_unix_ms();
  return Status::Ok();
}

Status VerifyRecord(const ArtifactRecord& record, std::string_view expected_key) {
  if (record.key != expected_key)
    return DataLoss("record key differs from the key it is stored under");
  if (record.payload.empty()) return DataLoss("record has an empty payload");
  if (record.payload_digest != DigestBytes(Sha256(record.payload))) {
    return DataLoss("payload digest mismatch");
  }
  return Status::Ok();
}

Status ValidateForPut(ArtifactRecord* record, std::uint64_t now_unix_ms) {
  if (record->key.empty()) return InvalidArgument("artifact record has an empty key");
  if (record->payload.empty()) return InvalidArgument("artifact record has an empty payload");
  const std::string actual = DigestBytes(Sha256(record->payload));
  if (record->payload_digest.empty()) {
    record->payload_digest = actual;
  } else if (record->payload_digest != actual) {
    return InvalidArgument("payload_digest does not match SHA-256 of the payload (given " +
                           ToHex(record->payload_digest) + ", actual " + ToHex(actual) + ")");
  }
  if (record->created_unix_ms == 0) record->created_unix_ms = now_unix_ms;
  return Status::Ok();
}

std::string EncodeStageValue(std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(kStageHeaderSize + value.size());
  out.append(kStageMagic);
  out.append(EncodeFixed32(kRecordFormatVersion));
  out.append(StageDigest(key, value));
  out.append(value);
  return out;
}

Status DecodeStageValue(std::string_view key, std::string_view stored, std::string* out) {
  if (stored.size() < kStageHeaderSize) return DataLoss("stage value shorter than its header");
  if (stored.substr(0, 4) != kStageMagic) return DataLoss("stage magic mismatch");
  std::uint32_t version = 0;
  (void)DecodeFixed32(stored.substr(4, 4), &version);
  if (version != kRecordFormatVersion) {
    return DataLoss("unsupported stage format version " + std::to_string(version));
  }
  const std::string_view value = stored.substr(kStageHeaderSize);
  if (stored.substr(8, 32) != StageDigest(key, value)) return DataLoss("stage digest mismatch");
  out->assign(value);
  return Status::Ok();
}

std::string EncodeAliasKey(const AliasKey& alias) {
  std::string out;
  out.reserve(16 + alias.tenant.size() + alias.ns.size() + alias.target.size() + alias.fast_key.size());
  AppendLengthPrefixed(&out, alias.tenant);
  AppendLengthPrefixed(&out, alias.ns);
  AppendLengthPrefixed(&out, alias.target);
  AppendLengthPrefixed(&out, alias.fast_key);
  return out;
}

std::string EncodeAliasKeyPrefix(std::string_view tenant, const std::optional<std::string>& ns) {
  std::string out;
  AppendLengthPrefixed(&out, tenant);
  if (ns) AppendLengthPrefixed(&out, *ns);
  return out;
}

bool DecodeAliasKey(std::string_view encoded, AliasKey* out) {
  std::string* fields[] = {&out->tenant, &out->ns, &out->target, &out->fast_key};
  for (std::string* field : fields) {
    if (encoded.size() < 4) return false;
    const std::uint32_t n = (std::uint32_t{static_cast<std::uint8_t>(encoded[0])} << 24) |
                            (std::uint32_t{static_cast<std::uint8_t>(encoded[1])} << 16) |
                            (std::uint32_t{static_cast<std::uint8_t>(encoded[2])} << 8) |
                            std::uint32_t{static_cast<std::uint8_t>(encoded[3])};
    encoded.remove_prefix(4);
    if (n > encoded.size()) return false;
    field->assign(encoded.substr(0, n));
    encoded.remove_prefix(n);
  }
  return encoded.empty();
}

std::string EncodeAliasValue(std::string_view encoded_alias_key, const AliasValue& value) {
  std::string out;
  out.reserve(kAliasHeaderSize + 4 + value.key.size() + value.manifest.size());
  out.append(kAliasMagic);
  if (value.manifest.empty()) {
    out.push_back(kAliasFormatVersion);
    out.append(AliasCheck(encoded_alias_key, value.key));
    out.append(value.key);
    return out;
  }
  out.push_back(kAliasManifestFormatVersion);
  out.append(AliasCheck(encoded_alias_key, value.key, value.manifest));
  AppendLengthPrefixed(&out, value.key);
  out.append(value.manifest);
  return out;
}

std::string EncodeAliasValue(std::string_view encoded_alias_key, const ArtifactKey& key) {
  return EncodeAliasValue(encoded_alias_key, AliasValue{key, {}});
}

Status DecodeAliasValue(std::string_view encoded_alias_key, std::string_view value, AliasValue* out) {
  if (value.size() <= kAliasHeaderSize) return DataLoss("alias value too short");
  if (value.substr(0, 3) != kAliasMagic) return DataLoss("alias magic mismatch");
  const std::string_view check = value.substr(4, kAliasCheckSize);
  std::string_view rest = value.substr(kAliasHeaderSize);
  if (value[3] == kAliasFormatVersion) {
    if (check != AliasCheck(encoded_alias_key, rest)) return DataLoss("alias check mismatch");
    out->key.assign(rest);
    out->manifest.clear();
    return Status::Ok();
  }
  if (value[3] != kAliasManifestFormatVersion) return DataLoss("unsupported alias format version");
  if (rest.size() < 4) return DataLoss("alias value too short");
  std::uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<std::uint8_t>(rest[i]);
  rest.remove_prefix(4);
  if (length == 0 || length > rest.size()) return DataLoss("alias value is malformed");
  const std::string_view key = rest.substr(0, length);
  const std::string_view manifest = rest.substr(length);
  if (check != AliasCheck(encoded_alias_key, key, manifest)) return DataLoss("alias check mismatch");
  out->key.assign(key);
  out->manifest.assign(manifest);
  return Status::Ok();
}

Status DecodeAliasValue(std::string_view encoded_alias_key, std::string_view value, ArtifactKey* out) {
  AliasValue decoded;
  QDC_RETURN_IF_ERROR(DecodeAliasValue(encoded_alias_key, value, &decoded));
  *out = std::move(decoded.key);
  return Status::Ok();
}

}  // namespace qdcache::store

#include "remote/remote_codec.h"

#include <zstd.h>

#include <cstring>
#include <optional>

#include "common/digest.h"
#include "signing/record_claim.h"
#include "store/record_codec.h"

namespace qdcache::remote {
namespace {

constexpr std::uint8_t kKindArtifact = 1;
constexpr std::uint8_t kKindAlias = 2;
constexpr int kZstdLevel = 3;
constexpr std::uint64_t kMaxAliasBodyBytes = 1 << 20;

constexpr std::size_t kSignatureBlock = signing::kPublicKeyBytes + signing::kSignatureBytes;

std::string Seal(std::uint8_t kind, std::string_view body, const std::optional<signing::Signature>& signature) {
  const std::size_t header = kValueHeaderSize + (signature ? kSignatureBlock : 0);
  std::string out(header, '\0');
  std::memcpy(out.data(), kValueMagic.data(), 4);
  out[4] = static_cast<char>(signature ? kSignedValueVersion : kValueVersion);
  out[5] = static_cast<char>(kind);
  for (int i = 0; i < 8; ++i) out[8 + i] = static_cast<char>(std::uint64_t{body.size()} >> (8 * i));
  const Digest digest = Sha256(body);
  std::memcpy(out.data() + 16, digest.data(), digest.size());
  if (signature) {
    std::memcpy(out.data() + kValueHeaderSize, signature->public_key.data(), signing::kPublicKeyBytes);
    std::memcpy(out.data() + kValueHeaderSize + signing::kPublicKeyBytes, signature->bytes.data(),
                signing::kSignatureBytes);
  }
  const std::size_t bound = ZSTD_compressBound(body.size());
  out.resize(header + bound);
  const std::size_t n = ZSTD_compress(out.data() + header, bound, body.data(), body.size(), kZstdLevel);
  // Compressing into a buffer of ZSTD_compressBound bytes cannot fail.
  out.resize(ZSTD_isError(n) ? header : header + n);
  return out;
}

// Checks the envelope and decompresses its body; `signature` is set for a
// signed value.
Status Open(std::string_view value, std::uint8_t kind, std::uint64_t max_body_bytes, std::string* body,
            std::optional<signing::Signature>* signature) {
  if (value.size() < kValueHeaderSize) return DataLoss("remote value shorter than its header");
  if (value.substr(0, 4) != kValueMagic) return DataLoss("remote value has no qdcache magic");
  const auto version = static_cast<std::uint8_t>(value[4]);
  if (version != kValueVersion && version != kSignedValueVersion) {
    return DataLoss("remote value has envelope version " + std::to_string(version));
  }
  if (static_cast<std::uint8_t>(value[5]) != kind) return DataLoss("remote value of another kind");
  if (value[6] != 0 || value[7] != 0) return DataLoss("remote value has unknown flags");
  std::uint64_t size = 0;
  for (int i = 7; i >= 0; --i) size = (size << 8) | static_cast<std::uint8_t>(value[8 + i]);
  if (size > max_body_bytes) {
    return DataLoss("remote value claims " + std::to_string(size) + " bytes (limit " +
                    std::to_string(max_body_bytes) + ")");
  }
  std::size_t header = kValueHeaderSize;
  signature->reset();
  if (version == kSignedValueVersion) {
    if (value.size() < kValueHeaderSize + kSignatureBlock) return DataLoss("remote value's signature is truncated");
    *signature = signing::Signature{std::string(value.substr(kValueHeaderSize, signing::kPublicKeyBytes)),
                                    std::string(value.substr(kValueHeaderSize + signing::kPublicKeyBytes,
                                                             signing::kSignatureBytes))};
    header += kSignatureBlock;
  }
  const std::string_view frame = value.substr(header);
  const unsigned long long frame_size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (frame_size != size) return DataLoss("remote value's zstd frame does not match its size");
  body->resize(size);
  const std::size_t n = ZSTD_decompress(body->data(), size, frame.data(), frame.size());
  if (ZSTD_isError(n) || n != size) return DataLoss("remote value does not decompress");
  const Digest digest = Sha256(*body);
  if (std::memcmp(digest.data(), value.data() + 16, digest.size()) != 0) {
    return DataLoss("remote value fails its digest");
  }
  return Status::Ok();
}

void AppendU32BigEndian(std::string* out, std::uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                         static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(bytes, 4);
}

}  // namespace

std::string ArtifactRedisKey(std::string_view prefix, const store::ArtifactKey& key) {
  return std::string(prefix) + "v1:a:" + ToHex(key);
}

std::string AliasRedisKey(std::string_view prefix, const store::AliasKey& alias) {
  return std::string(prefix) + "v1:l:" + ToHex(Sha256(store::EncodeAliasKey(alias)));
}

std::string LeaseRedisKey(std::string_view prefix, const store::ArtifactKey& key) {
  return std::string(prefix) + "v1:lease:" + ToHex(key);
}

std::string EncodeArtifactValue(const store::ArtifactRecord& record, const signing::SigningKey* signer) {
  std::optional<signing::Signature> signature;
  if (signer) signature = signer->Sign(signing::SignedMessage(signing::ClaimOf(record, record.key)));
  return Seal(kKindArtifact, store::EncodeRecord(record), signature);
}

Status DecodeArtifactValue(std::string_view value, const store::ArtifactKey& key,
                           std::uint64_t max_body_bytes, store::ArtifactRecord* out,
                           const signing::SignaturePolicy& policy) {
  std::string body;
  std::optional<signing::Signature> signature;
  QDC_RETURN_IF_ERROR(Open(value, kKindArtifact, max_body_bytes, &body, &signature));
  QDC_RETURN_IF_ERROR(store::DecodeRecord(body, out));
  // Against the key asked for: a signed value copied under another key fails
  // here, as untrusted.
  if (policy.checks()) {
    QDC_RETURN_IF_ERROR(policy.Check(signature, signing::SignedMessage(signing::ClaimOf(*out, key))));
  }
  // The record's key must be the one asked for, and its payload must match
  // its digest: a value copied under another key is caught here.
  return store::VerifyRecord(*out, key);
}

std::string EncodeAliasValue(const store::AliasKey& alias, const store::AliasValue& value,
                             const signing::SigningKey* signer) {
  std::string body = store::EncodeAliasKey(alias);
  AppendU32BigEndian(&body, static_cast<std::uint32_t>(value.key.size()));
  body += value.key;
  body += value.manifest;
  std::optional<signing::Signature> signature;
  if (signer) signature = signer->Sign(signing::SignedMessage(signing::ClaimOf(alias, value)));
  return Seal(kKindAlias, body, signature);
}

std::string EncodeAliasValue(const store::AliasKey& alias, const store::ArtifactKey& key) {
  return EncodeAliasValue(alias, store::AliasValue{key, {}});
}

Status DecodeAliasValue(std::string_view value, const store::AliasKey& alias, store::AliasValue* out,
                        const signing::SignaturePolicy& policy) {
  std::string body;
  std::optional<signing::Signature> signature;
  QDC_RETURN_IF_ERROR(Open(value, kKindAlias, kMaxAliasBodyBytes, &body, &signature));
  const std::string expected = store::EncodeAliasKey(alias);
  if (!std::string_view(body).starts_with(expected)) {
    // With signatures checked, whatever the value was signed for, it was not
    // this alias: untrusted here (unsigned values are refused as such first).
    if (policy.checks()) {
      QDC_RETURN_IF_ERROR(policy.Check(signature, {}));
    }
    return DataLoss("remote alias value was written for another alias");
  }
  std::string_view rest = std::string_view(body).substr(expected.size());
  if (rest.size() < 4) return DataLoss("remote alias value is truncated");
  std::uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<std::uint8_t>(rest[i]);
  rest.remove_prefix(4);
  // The target is an artifact key: a SHA-256, 32 bytes; the manifest follows.
  if (length != kKeyBytes || rest.size() < length) return DataLoss("remote alias value is malformed");
  out->key = std::string(rest.substr(0, length));
  out->manifest = std::string(rest.substr(length));
  if (policy.checks()) {
    QDC_RETURN_IF_ERROR(policy.Check(signature, signing::SignedMessage(signing::ClaimOf(alias, *out))));
  }
  return Status::Ok();
}

Status DecodeAliasValue(std::string_view value, const store::AliasKey& alias, store::ArtifactKey* out) {
  store::AliasValue decoded;
  QDC_RETURN_IF_ERROR(DecodeAliasValue(value, alias, &decoded));
  *out = std::move(decoded.key);
  return Status::Ok();
}

}  // namespace qdcache::remote

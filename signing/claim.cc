#include "signing/claim.h"

#include "common/digest.h"

namespace qdcache::signing {
namespace {

constexpr std::string_view kDomain{"qdcache-signature-v1\0", 21};

void Field(std::string* out, std::string_view bytes) {
  const auto n = static_cast<std::uint32_t>(bytes.size());
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out->append(bytes);
}

void DigestField(std::string* out, std::string_view bytes) { Field(out, DigestBytes(Sha256(bytes))); }

std::string Start(char kind) {
  std::string out(kDomain);
  out.push_back(kind);
  return out;
}

}  // namespace

std::string SignedMessage(const ArtifactClaim& claim) {
  std::string out = Start('A');
  Field(&out, claim.key);
  std::string kind;
  for (int i = 0; i < 4; ++i) kind.push_back(static_cast<char>((claim.kind >> (8 * i)) & 0xff));
  Field(&out, kind);
  Field(&out, claim.target);
  Field(&out, claim.toolchain);
  Field(&out, claim.payload_digest);
  DigestField(&out, claim.ptx);
  DigestField(&out, claim.metadata);
  DigestField(&out, claim.compile_log);
  return out;
}

std::string SignedMessage(const AliasClaim& claim) {
  std::string out = Start('L');
  Field(&out, claim.tenant);
  Field(&out, claim.ns);
  Field(&out, claim.target);
  Field(&out, claim.fast_key);
  Field(&out, claim.artifact_key);
  DigestField(&out, claim.manifest);
  return out;
}

}  // namespace qdcache::signing

#include "bundle/entry_signature.h"

#include "signing/claim.h"

namespace qdcache::bundle {

std::optional<std::string> SignedMessageOf(const v1::BundleEntry& entry) {
  if (entry.has_artifact()) {
    const v1::BundleArtifact& a = entry.artifact();
    return signing::SignedMessage(signing::ArtifactClaim{a.artifact_key(), static_cast<std::uint32_t>(a.kind()),
                                                         a.target(), a.toolchain(), a.payload_digest(), a.ptx(),
                                                         a.metadata(), a.compile_log()});
  }
  if (entry.has_alias()) {
    const v1::BundleAlias& a = entry.alias();
    return signing::SignedMessage(
        signing::AliasClaim{a.tenant(), a.namespace_(), a.target(), a.fast_key(), a.artifact_key(), a.manifest()});
  }
  return std::nullopt;
}

void SignEntry(const signing::SigningKey& key, v1::BundleEntry* entry) {
  const std::optional<std::string> message = SignedMessageOf(*entry);
  if (!message) return;
  const signing::Signature signature = key.Sign(*message);
  entry->mutable_signature()->set_public_key(signature.public_key);
  entry->mutable_signature()->set_signature(signature.bytes);
}

}  // namespace qdcache::bundle

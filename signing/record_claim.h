// The claims (claim.h) of the store's records and aliases: what a daemon
// signs when it writes them to a shared place and checks when it reads them.
// Header-only over store/record.h's plain structs (no link dependency).
#pragma once

#include <string_view>

#include "signing/claim.h"
#include "store/record.h"

namespace qdcache::signing {

// `key`: the key the record is stored under, or asked for (a reader passes
// the key it asked for, so a record copied under another key does not verify).
[[nodiscard]] inline ArtifactClaim ClaimOf(const store::ArtifactRecord& record, std::string_view key) {
  return ArtifactClaim{key,           record.kind,  record.target,   record.toolchain, record.payload_digest,
                       record.ptx,    record.metadata, record.compile_log};
}

[[nodiscard]] inline AliasClaim ClaimOf(const store::AliasKey& alias, const store::AliasValue& value) {
  return AliasClaim{alias.tenant, alias.ns, alias.target, alias.fast_key, value.key, value.manifest};
}

}  // namespace qdcache::signing

// Signing bundle entries (`qdcache export --sign`): each entry gets an
// Ed25519 signature over its claim (signing/claim.h), the message a daemon
// with trusted keys checks on import (engine/bundle_import.h) and the same
// one that signs the entry in a shared Redis tier.
#pragma once

#include <optional>
#include <string>

#include "qdcache/v1/qdcache.pb.h"
#include "signing/signing_key.h"

namespace qdcache::bundle {

// The message an entry's signature covers; nullopt for an entry that is
// neither an artifact nor an alias.
[[nodiscard]] std::optional<std::string> SignedMessageOf(const v1::BundleEntry& entry);

// Sets entry->signature (an entry with no message is left unsigned).
void SignEntry(const signing::SigningKey& key, v1::BundleEntry* entry);

}  // namespace qdcache::bundle

// Loads the keys of signed shared entries (--remote-signing-key,
// --remote-trusted-keys, --remote-require-signatures) before the daemon
// starts, and says in the log what the shared tier and imports will trust.
// A key file that is missing, unreadable, too open or not an Ed25519 key is a
// startup error naming the flag.
#pragma once

#include <memory>

#include "common/expected.h"
#include "daemon/daemon_options.h"
#include "signing/signing_key.h"
#include "signing/trusted_keys.h"

namespace qdcache::daemon {

struct SharedEntrySigning {
  std::shared_ptr<const signing::SigningKey> signer;  // null: writes unsigned
  signing::SignaturePolicy policy;                     // remote reads and imports
};

[[nodiscard]] Expected<SharedEntrySigning> LoadSigning(const DaemonOptions& options);

}  // namespace qdcache::daemon

#include "daemon/signing_setup.h"

#include <spdlog/spdlog.h>

namespace qdcache::daemon {
namespace {

std::string Joined(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

}  // namespace

Expected<SharedEntrySigning> LoadSigning(const DaemonOptions& options) {
  SharedEntrySigning out;
  if (!options.remote_signing_key.empty()) {
    Expected<signing::SigningKey> key = signing::SigningKey::Load(options.remote_signing_key);
    if (!key.ok()) return key.status().WithContext("--remote-signing-key");
    out.signer = std::make_shared<const signing::SigningKey>(std::move(key).value());
    if (options.remote_read_only) {
      spdlog::warn("--remote-signing-key {} is not used: the remote is read-only", out.signer->id());
    }
  }
  if (!options.remote_trusted_keys.empty()) {
    Expected<signing::TrustedKeys> keys = signing::TrustedKeys::Load(options.remote_trusted_keys);
    if (!keys.ok()) return keys.status().WithContext("--remote-trusted-keys");
    out.policy.trusted = std::make_shared<const signing::TrustedKeys>(std::move(keys).value());
    out.policy.require = options.remote_require_signatures;
  }
  if (out.policy.checks()) {
    spdlog::info("shared entries: remote values and imported bundle entries are used only when signed by {} "
                 "({}){}", out.policy.trusted->size() == 1 ? "this key" : "one of these keys",
                 Joined(out.policy.trusted->ids()),
                 out.policy.require ? "" : "; unsigned ones are accepted too (--remote-require-signatures=false)");
    if (out.signer && options.remote_url.size() > 0 && !options.remote_read_only &&
        !out.policy.trusted->Verify(out.signer->Sign("probe"), "probe").ok()) {
      spdlog::warn("--remote-signing-key {} is not among --remote-trusted-keys: this daemon will not use what it "
                   "writes itself", out.signer->id());
    }
  } else if (!options.remote_url.empty()) {
    spdlog::warn("shared entries are unauthenticated: without --remote-trusted-keys, whatever anyone writes to "
                 "the remote is served (see docs/operations.md, \"Signed shared entries\")");
  }
  if (out.signer && !options.remote_read_only) {
    spdlog::info("values written to the remote are signed by {}", out.signer->id());
  }
  return out;
}

}  // namespace qdcache::daemon

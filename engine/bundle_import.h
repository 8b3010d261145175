// The transport-free core of Import: verifies each bundle entry and stores
// the good ones. Import needs role admin (the service checks it): the daemon
// cannot re-derive an artifact's key from its bytes, so an imported
// artifact is trusted by every tenant that computes the same key. A daemon
// that checks signatures (ImportOptions::signatures has trusted keys)
// stores only entries signed by a key it trusts, and then needs role write.
//
// What is checked, per entry (a failing entry is refused and counted, never
// an error for the rest):
//   artifacts: a 32-byte key; a known kind; a target and toolchain of sane
//     size; a non-empty payload whose SHA-256 is the given payload digest;
//     metadata this daemon can decode (so the record can be served). An
//     artifact built by another toolchain is skipped as stale: no lookup
//     here could ever serve it.
//   aliases: a 32-byte artifact key; fast key and namespace within the
//     descriptor limits; a target; with keep_tenants, a tenant of a known
//     form ("uid:", "token:", "cert:"). An alias naming an artifact refused
//     or skipped earlier in the same import is skipped too, so a stale
//     bundle never replaces a good alias with one to nothing.
//   signatures, when checked: each entry's (BundleEntry.signature) must be
//     by a trusted key over exactly this entry (signing/claim.h; an alias's
//     claim names the tenant it was exported from, whichever tenant it is
//     stored under); else it is refused as untrusted, and so are the aliases
//     naming an artifact refused so.
// Storing is idempotent: importing the same entries again rewrites the
// same records and aliases.
//
// Not thread-safe: one importer per call, used from one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/expected.h"
#include "engine/descriptor.h"
#include "qdcache/v1/qdcache.pb.h"
#include "signing/trusted_keys.h"
#include "store/artifact_store.h"

namespace qdcache::engine {

struct ImportOptions {
  std::string tenant;         // the importing caller's: aliases go here
  bool keep_tenants = false;  // ... unless this says keep the bundle's tenant
  std::string toolchain;      // this daemon's fingerprint
  DescriptorLimits limits;
  signing::SignaturePolicy signatures;  // no trusted keys: signatures are not checked
};

class BundleImporter {
 public:
  // `store` must outlive the importer.
  BundleImporter(store::ArtifactStore& store, ImportOptions options);

  // Verifies and stores one entry. A refused or stale entry is counted in
  // response(); the Status is non-OK only when the store fails to write,
  // and the import should stop then.
  [[nodiscard]] Status Add(const v1::BundleEntry& entry);

  [[nodiscard]] const v1::ImportResponse& response() const { return response_; }

 private:
  [[nodiscard]] Status AddArtifact(const v1::BundleArtifact& artifact, const std::optional<signing::Signature>& signature);
  [[nodiscard]] Status AddAlias(const v1::BundleAlias& alias, const std::optional<signing::Signature>& signature);
  // Counts a refused entry (untrusted when `why` is UNAUTHENTICATED).
  void Refuse(const std::string& what, const Status& why);

  enum class NotStored { kStale, kRefused, kUntrusted };

  store::ArtifactStore& store_;
  const ImportOptions options_;
  v1::ImportResponse response_;
  // Artifacts of this import that were not stored, and why.
  std::unordered_map<std::string, NotStored> not_stored_;
};

}  // namespace qdcache::engine

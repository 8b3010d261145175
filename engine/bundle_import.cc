#include "engine/bundle_import.h"

#include "common/tenant.h"

#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "engine/artifact_key.h"
#include "engine/artifact_record.h"
#include "engine/manifest.h"
#include "signing/record_claim.h"

namespace qdcache::engine {
namespace {

constexpr std::size_t kMaxNameBytes = 256;  // targets, toolchains, tenants
constexpr int kMaxRejections = 16;


store::ArtifactRecord ToRecord(const v1::BundleArtifact& a) {
  store::ArtifactRecord r;
  r.key = a.artifact_key();
  r.kind = static_cast<std::uint32_t>(a.kind());
  r.target = a.target();
  r.toolchain = a.toolchain();
  r.payload = a.payload();
  r.payload_digest = a.payload_digest();
  r.ptx = a.ptx();
  r.metadata = a.metadata();
  r.compile_log = a.compile_log();
  r.compile_micros = a.compile_micros();
  r.created_unix_ms = a.created_unix_ms();
  return r;
}

Status CheckArtifact(const store::ArtifactRecord& r) {
  if (r.key.size() != kKeyBytes) return InvalidArgument("artifact key is not 32 bytes");
  if (r.target.empty() || r.target.size() > kMaxNameBytes) return InvalidArgument("bad target");
  if (r.toolchain.empty() || r.toolchain.size() > kMaxNameBytes)
    return InvalidArgument("bad toolchain");
  if (r.payload.empty()) return InvalidArgument("empty payload");
  if (r.payload_digest != DigestBytes(Sha256(r.payload))) {
    return DataLoss("payload does not match its digest");
  }
  // Kind and metadata exactly as a read would check them before serving.
  v1::Artifact servable;
  return ToWireArtifact(r, /*include_ptx=*/false, &servable);
}


}  // namespace

BundleImporter::BundleImporter(store::ArtifactStore& store, ImportOptions options)
    : store_(store), options_(std::move(options)) {}

void BundleImporter::Refuse(const std::string& what, const Status& why) {
  const bool untrusted = why.code() == Code::kUnauthenticated;
  if (untrusted) {
    response_.set_untrusted(response_.untrusted() + 1);
  } else {
    response_.set_rejected(response_.rejected() + 1);
  }
  const std::string line = what + (untrusted ? ": untrusted: " : ": ") + why.message();
  spdlog::warn("import: refused {}", line);
  if (response_.rejections_size() < kMaxRejections) response_.add_rejections(line);
}

Status BundleImporter::Add(const v1::BundleEntry& entry) {
  std::optional<signing::Signature> signature;
  if (entry.has_signature()) {
    signature = signing::Signature{entry.signature().public_key(), entry.signature().signature()};
  }
  switch (entry.entry_case()) {
    case v1::BundleEntry::kArtifact:
      return AddArtifact(entry.artifact(), signature);
    case v1::BundleEntry::kAlias:
      return AddAlias(entry.alias(), signature);
    default:
      Refuse("entry", InvalidArgument("unknown entry kind"));
      return Status::Ok();
  }
}

Status BundleImporter::AddArtifact(const v1::BundleArtifact& artifact,
                                   const std::optional<signing::Signature>& signature) {
  store::ArtifactRecord record = ToRecord(artifact);
  const std::string what = "artifact " + ShortKey(record.key);
  Status s = CheckArtifact(record);
  if (s.ok() && options_.signatures.checks()) {
    s = options_.signatures.Check(signature, signing::SignedMessage(signing::ClaimOf(record, record.key)));
  }
  if (!s.ok()) {
    if (record.key.size() == kKeyBytes) {
      not_stored_[record.key] = s.code() == Code::kUnauthenticated ? NotStored::kUntrusted : NotStored::kRefused;
    }
    Refuse(what, s);
    return Status::Ok();
  }
  if (record.toolchain != options_.toolchain) {
    not_stored_[record.key] = NotStored::kStale;
    response_.set_stale(response_.stale() + 1);
    return Status::Ok();
  }
  QDC_RETURN_IF_ERROR(store_.Put(record).WithContext("storing " + what));
  not_stored_.erase(record.key);  // a later good copy of a key refused before
  response_.set_artifacts(response_.artifacts() + 1);
  return Status::Ok();
}

Status BundleImporter::AddAlias(const v1::BundleAlias& alias, const std::optional<signing::Signature>& signature) {
  const std::string what = "alias " + ToHex(alias.fast_key()).substr(0, 16);
  Status check;
  if (alias.artifact_key().size() != kKeyBytes) {
    check = InvalidArgument("artifact key is not 32 bytes");
  } else if (alias.fast_key().empty()) {
    check = InvalidArgument("empty fast key");
  } else if (alias.target().empty() || alias.target().size() > kMaxNameBytes) {
    check = InvalidArgument("bad target");
  } else if (options_.keep_tenants &&
             (alias.tenant().size() > kMaxNameBytes || !IsTenant(alias.tenant()))) {
    check = InvalidArgument("tenant \"" + alias.tenant().substr(0, 64) +
                            "\" is not uid:N, token:NAME or cert:CN");
  } else {
    check = CheckFastKey(alias.fast_key(), alias.namespace_(), options_.limits);
    google::protobuf::RepeatedPtrField<v1::Dependency> dependencies;
    if (check.ok()) check = DecodeManifest(alias.manifest(), &dependencies);
  }
  if (check.ok() && options_.signatures.checks()) {
    const signing::AliasClaim claim{alias.tenant(), alias.namespace_(), alias.target(), alias.fast_key(),
                                    alias.artifact_key(), alias.manifest()};
    check = options_.signatures.Check(signature, signing::SignedMessage(claim));
  }
  if (!check.ok()) {
    Refuse(what, check);
    return Status::Ok();
  }
  if (auto it = not_stored_.find(alias.artifact_key()); it != not_stored_.end()) {
    switch (it->second) {
      case NotStored::kStale:
        response_.set_stale(response_.stale() + 1);
        break;
      case NotStored::kRefused:
        Refuse(what, InvalidArgument("its artifact was refused"));
        break;
      case NotStored::kUntrusted:
        Refuse(what, Status(Code::kUnauthenticated, "its artifact was refused as untrusted"));
        break;
    }
    return Status::Ok();
  }
  const store::AliasKey key{options_.keep_tenants ? alias.tenant() : options_.tenant,
                            alias.namespace_(), alias.target(), alias.fast_key()};
  QDC_RETURN_IF_ERROR(
      store_.PutAliasValue(key, {alias.artifact_key(), alias.manifest()}).WithContext("storing " + what));
  response_.set_aliases(response_.aliases() + 1);
  return Status::Ok();
}

}  // namespace qdcache::engine

// Export and Import: the streaming RPCs, on the callback API with flow
// control. Export writes one chunk at a time and reads the next from the
// store snapshot only when the previous write has completed, so a slow
// client holds one chunk of the daemon's memory, never the bundle. Import
// reads one chunk at a time and stores its entries before asking for the
// next, so a fast client is held back by gRPC's flow control.
//
// Both do their store work on the gRPC callback thread, like the unary
// admin calls (Verify, List): one chunk of it per reaction.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "common/units.h"
#include "daemon/service.h"
#include "daemon/service_status.h"

namespace qdcache::daemon {
namespace {

// About this much per ExportChunk: small enough to interleave with other
// calls and keep memory flat, large enough to amortize a message.
constexpr std::size_t kExportChunkBytes = 1u << 20;
// Room for the chunk's own fields next to its entries.
constexpr std::size_t kChunkOverhead = 64u << 10;

class ExportReactor final : public grpc::ServerWriteReactor<v1::ExportChunk> {
 public:
  ExportReactor(std::unique_ptr<engine::BundleExporter> exporter, PeerLimiter::Slot slot,
                std::size_t max_bytes)
      : exporter_(std::move(exporter)), slot_(std::move(slot)), max_bytes_(max_bytes) {
    WriteNext();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {  // the client has gone (cancelled, deadline); nothing more will be written
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "export stream ended by the client"));
      return;
    }
    WriteNext();
  }
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    chunk_.Clear();
    Expected<bool> more =
        exporter_->Fill(&chunk_, std::min(kExportChunkBytes, max_bytes_), max_bytes_);
    if (!more.ok()) {
      spdlog::error("export failed: {}", more.status().ToString());
      Finish(ToGrpc(more.status()));
      return;
    }
    if (chunk_.entries_size() == 0 && chunk_.skipped_too_large() == 0) {
      Finish(grpc::Status::OK);
      return;
    }
    StartWrite(&chunk_);
  }

  std::unique_ptr<engine::BundleExporter> exporter_;
  PeerLimiter::Slot slot_;
  const std::size_t max_bytes_;
  v1::ExportChunk chunk_;  // the one chunk in flight
};

class ImportReactor final : public grpc::ServerReadReactor<v1::ImportChunk> {
 public:
  ImportReactor(engine::Engine& engine, engine::Peer peer, PeerLimiter::Slot slot, bool admin,
                v1::ImportResponse* response)
      : engine_(engine), peer_(std::move(peer)), slot_(std::move(slot)), admin_(admin), response_(response) {
    StartRead(&chunk_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {  // the client has sent everything (or gone: then nobody reads the answer)
      Done(grpc::Status::OK);
      return;
    }
    if (!importer_) {
      if (grpc::Status s = ToGrpc(CheckHeader(chunk_.header())); !s.ok()) {
        Finish(s);
        return;
      }
      // Other tenants' aliases are an admin's to write, signed or not.
      if (chunk_.keep_tenants() && !admin_) {
        Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                            "Import with keep_tenants needs role admin; " + peer_.tenant +
                                " may import signed entries into its own tenant only"));
        return;
      }
      importer_ = engine_.StartImport(peer_.tenant, chunk_.keep_tenants());
    }
    for (const v1::BundleEntry& entry : chunk_.entries()) {
      if (Status s = importer_->Add(entry); !s.ok()) {
        spdlog::error("import stopped: {}", s.ToString());
        Done(ToGrpc(s));
        return;
      }
    }
    StartRead(&chunk_);
  }
  void OnDone() override { delete this; }

 private:
  void Done(grpc::Status status) {
    if (importer_) {
      *response_ = importer_->response();
      spdlog::info("import by {}: {} artifacts, {} aliases, {} refused, {} untrusted, {} stale", peer_.tenant,
                   response_->artifacts(), response_->aliases(), response_->rejected(), response_->untrusted(),
                   response_->stale());
    }
    Finish(std::move(status));
  }

  engine::Engine& engine_;
  const engine::Peer peer_;
  PeerLimiter::Slot slot_;
  const bool admin_;  // may keep the bundle's tenants
  v1::ImportResponse* response_;
  std::unique_ptr<engine::BundleImporter> importer_;  // made on the first chunk
  v1::ImportChunk chunk_;
};

Expected<engine::ExportScope> ScopeOf(const v1::ExportRequest& request, const engine::Peer& peer) {
  engine::ExportScope scope;
  if (!request.all_tenants()) scope.tenant = peer.tenant;
  if (request.has_namespace_()) scope.ns = request.namespace_();
  if (request.since_seconds() > static_cast<std::uint64_t>(kMaxDuration.count())) {
    return InvalidArgument("since_seconds " + std::to_string(request.since_seconds()) +
                           " is more than a century");
  }
  if (request.since_seconds() > 0) {
    const auto now_ms =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count());
    const std::uint64_t age_ms = request.since_seconds() * 1000;
    scope.since_unix_ms = now_ms > age_ms ? now_ms - age_ms : 1;
  }
  return scope;
}

}  // namespace

grpc::ServerWriteReactor<v1::ExportChunk>* CompileCacheService::Export(
    grpc::CallbackServerContext* context, const v1::ExportRequest* request) {
  using Reactor = grpc::ServerWriteReactor<v1::ExportChunk>;
  const auth::Operation op =
      request->all_tenants() ? auth::Operation::kExportAllTenants : auth::Operation::kExport;
  Expected<Admitted> admitted = Admit(*context, op);
  if (!admitted.ok()) return new Refused<Reactor>(ToGrpc(admitted.status()));
  if (grpc::Status s = ToGrpc(CheckHeader(request->header())); !s.ok()) return new Refused<Reactor>(s);
  Expected<engine::ExportScope> scope = ScopeOf(*request, admitted->peer);
  if (!scope.ok()) return new Refused<Reactor>(ToGrpc(scope.status()));
  Expected<std::unique_ptr<engine::BundleExporter>> exporter =
      engine_.StartExport(std::move(scope).value());
  if (!exporter.ok()) return new Refused<Reactor>(ToGrpc(exporter.status()));
  const std::size_t max_bytes = static_cast<std::size_t>(
      limits_.max_message_bytes -
      std::min<std::uint64_t>(limits_.max_message_bytes / 2, kChunkOverhead));
  return new ExportReactor(std::move(exporter).value(), std::move(admitted->slot), max_bytes);
}

grpc::ServerReadReactor<v1::ImportChunk>* CompileCacheService::Import(
    grpc::CallbackServerContext* context, v1::ImportResponse* response) {
  using Reactor = grpc::ServerReadReactor<v1::ImportChunk>;
  // A daemon that stores only entries signed by a key it trusts lets writers
  // import (into their own tenant); one that would store anything (no
  // trusted keys, or unsigned entries accepted), only admins.
  Expected<Admitted> admitted = Admit(
      *context, engine_.import_needs_signatures() ? auth::Operation::kImportSigned : auth::Operation::kImport);
  if (!admitted.ok()) return new Refused<Reactor>(ToGrpc(admitted.status()));
  const bool admin = admitted->role == auth::Role::kAdmin;
  return new ImportReactor(engine_, admitted->peer, std::move(admitted->slot), admin, response);
}

}  // namespace qdcache::daemon

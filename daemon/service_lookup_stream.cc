// LookupStream: a Lookup whose results go out as a stream of ~1 MiB
// messages. Each message is built when the previous one has been handed to
// the transport, so resolving the next keys overlaps sending the last ones,
// and a warm start of thousands of artifacts never becomes one giant
// message on either side.
#include "daemon/service.h"
#include "daemon/request_log.h"
#include "daemon/service_status.h"

#include <spdlog/spdlog.h>

namespace qdcache::daemon {
namespace {

// About this much per message: large enough to amortize a message, small
// enough to pipeline.
constexpr std::size_t kLookupMessageBytes = 1u << 20;

class LookupStreamReactor final : public grpc::ServerWriteReactor<v1::LookupResponse> {
 public:
  LookupStreamReactor(engine::Engine& engine, engine::Peer peer, PeerLimiter::Slot slot,
                      const v1::LookupRequest& request)
      : engine_(engine),
        peer_(std::move(peer)),
        slot_(std::move(slot)),
        request_(request),
        who_(spdlog::should_log(spdlog::level::debug) ? Who(peer_, request.header()) : std::string()) {
    spdlog::debug("LookupStream: {} fast keys from {}", request_.queries_size(), who_);
    WriteNext();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {  // the client has gone (cancelled, deadline)
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "lookup stream ended by the client"));
      return;
    }
    WriteNext();
  }
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    message_.Clear();
    std::size_t bytes = 0;
    const int n = request_.queries_size();
    while (next_ < n && bytes < kLookupMessageBytes) {
      v1::CompileResult* result = message_.add_results();
      *result = engine_.Lookup(request_.queries(next_++), peer_, request_.include_ptx());
      LogHit(*result, who_);
      bytes += result->artifact().payload().size() + result->artifact().ptx().size() + 256;
    }
    if (message_.results_size() == 0) {
      Finish(grpc::Status::OK);
      return;
    }
    StartWrite(&message_);
  }

  engine::Engine& engine_;
  const engine::Peer peer_;
  PeerLimiter::Slot slot_;
  const v1::LookupRequest& request_;  // owned by gRPC until OnDone
  const std::string who_;
  int next_ = 0;                      // the next query to resolve
  v1::LookupResponse message_;        // the one message in flight
};

}  // namespace

grpc::ServerWriteReactor<v1::LookupResponse>* CompileCacheService::LookupStream(
    grpc::CallbackServerContext* context, const v1::LookupRequest* request) {
  using Reactor = grpc::ServerWriteReactor<v1::LookupResponse>;
  Expected<Admitted> admitted = Admit(*context, auth::Operation::kLookup);
  if (!admitted.ok()) return new Refused<Reactor>(ToGrpc(admitted.status()));
  if (grpc::Status s = ToGrpc(CheckHeader(request->header())); !s.ok()) return new Refused<Reactor>(s);
  if (Status s = CheckBatch(request->queries_size(), limits_.max_batch, "lookup"); !s.ok()) {
    return new Refused<Reactor>(ToGrpc(s));
  }
  return new LookupStreamReactor(engine_, admitted->peer, std::move(admitted->slot), *request);
}

}  // namespace qdcache::daemon

#include "daemon/service.h"

#include <atomic>
#include <memory>
#include <string>

namespace qdcache::daemon {
namespace {

grpc::Status CheckHeader(const v1::RequestHeader& header) {
  if (header.protocol_version() != v1::PROTOCOL_VERSION_1) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "protocol_version " + std::to_string(header.protocol_version()) +
                " is not supported (this daemon speaks 1)"};
  }
  return grpc::Status::OK;
}

grpc::Status CheckBatch(int size, std::size_t limit, const char* what) {
  if (static_cast<std::size_t>(size) > limit) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, std::string(what) + " batch of " +
                                                      std::to_string(size) + " exceeds the limit of " +
                                                      std::to_string(limit)};
  }
  return grpc::Status::OK;
}

}  // namespace

CompileCacheService::CompileCacheService(Engine& engine, const PeerRegistry& peers,
                                         ServiceLimits limits)
    : engine_(engine), peers_(peers), limits_(limits) {}

Peer CompileCacheService::PeerOf(const grpc::CallbackServerContext* context) const {
  return Peer{peers_.UidOf(context->peer()).value_or(kNetworkTenant)};
}

grpc::ServerUnaryReactor* CompileCacheService::Compile(grpc::CallbackServerContext* context,
                                                       const v1::CompileRequest* request,
                                                       v1::CompileResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  grpc::Status status = CheckHeader(request->header());
  if (status.ok()) status = CheckBatch(request->kernels_size(), limits_.max_batch, "compile");
  if (!status.ok() || request->kernels_size() == 0) {
    reactor->Finish(status);
    return reactor;
  }
  const int n = request->kernels_size();
  for (int i = 0; i < n; ++i) response->add_results();
  auto remaining = std::make_shared<std::atomic<int>>(n);
  const Peer peer = PeerOf(context);
  for (int i = 0; i < n; ++i) {
    engine_.Compile(request->kernels(i), peer, request->include_ptx(),
                    [response, i, remaining, reactor](v1::CompileResult result) {
                      *response->mutable_results(i) = std::move(result);
                      if (remaining->fetch_sub(1) == 1) reactor->Finish(grpc::Status::OK);
                    });
  }
  return reactor;
}

grpc::ServerUnaryReactor* CompileCacheService::Lookup(grpc::CallbackServerContext* context,
                                                      const v1::LookupRequest* request,
                                                      v1::LookupResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  grpc::Status status = CheckHeader(request->header());
  if (status.ok()) status = CheckBatch(request->queries_size(), limits_.max_batch, "lookup");
  if (status.ok()) {
    const Peer peer = PeerOf(context);
    for (const v1::FastKeyQuery& q : request->queries()) {
      *response->add_results() = engine_.Lookup(q, peer, request->include_ptx());
    }
  }
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* CompileCacheService::GetStats(grpc::CallbackServerContext* context,
                                                        const v1::GetStatsRequest* request,
                                                        v1::GetStatsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  grpc::Status status = CheckHeader(request->header());
  if (status.ok()) *response->mutable_stats() = engine_.Stats();
  reactor->Finish(status);
  return reactor;
}

}  // namespace qdcache::daemon

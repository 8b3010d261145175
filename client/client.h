// qdcache::client::Client: the C++ client of qdcached. Connects over a unix
// socket (default: the zero-config daemon's) or TCP, optionally with TLS and
// a bearer token; fills in the protocol header; converts transport failures
// into Status values.
//
// Thread-safety: a Client may be used from many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/autospawn.h"
#include "client/client_options.h"
#include "client/lookup_answer.h"
#include "common/expected.h"
#include "qdcache/v1/qdcache.grpc.pb.h"

namespace qdcache::client {

class LeanChannel;

class Client {
 public:
  // Resolves where to connect first (client/endpoint.h: options > the
  // QDCACHE_* environment > the per-user socket > the system service's).
  // Creates the channel; does not contact the daemon (see Ping()), except
  // with spawning on, when it first makes sure a daemon listens at the unix
  // socket, starting one if none does (EnsureDaemon, whose errors it returns).
  // INVALID_ARGUMENT for TLS options without an address, a client
  // certificate without its key, or a token with other than visible ASCII;
  // NOT_FOUND when a TLS file cannot be read, INVALID_ARGUMENT when it holds
  // no PEM data (an empty CA must not fall back to the system's roots).
  [[nodiscard]] static Expected<std::unique_ptr<Client>> Connect(ClientOptions options);
  ~Client();

  // "unix:/path" or "HOST:PORT".
  [[nodiscard]] const std::string& target() const { return target_; }

  // How long one call may take.
  enum class Deadline {
    kTimeout,  // ClientOptions::timeout, from the call's start
    kNone,     // no deadline: for callers whose calls may rightly take longer
               // than any fixed figure (qdcache warm's cold batches)
  };

  // Per-item results are in the response; a non-OK Status means the whole
  // call failed (daemon unreachable, deadline, protocol refusal). On a unix
  // socket, over the lean transport (ClientOptions::lean) where the daemon
  // serves Compile there, else gRPC; the answer is the same either way.
  [[nodiscard]] Expected<v1::CompileResponse> Compile(v1::CompileRequest request,
                                                      Deadline deadline = Deadline::kTimeout);
  // On a unix socket, over the lean transport (ClientOptions::lean). Else,
  // or where it cannot carry the call, a batch of kStreamedLookupMin
  // queries or more goes through LookupStream (the daemon pipelines the
  // results), falling back to the unary Lookup when the daemon does not
  // have it; the answer is the same either way.
  [[nodiscard]] Expected<v1::LookupResponse> Lookup(v1::LookupRequest request);
  static constexpr int kStreamedLookupMin = 16;
  // The same call, payloads left where they arrived (client/lookup_answer.h):
  // over the lean transport, views into the daemon's mapped memfd instead
  // of copies. What the C ABI answers a warm start with.
  [[nodiscard]] Expected<LookupAnswer> LookupViews(v1::LookupRequest request);
  // With `reset`, the daemon zeroes its counters after reading them (admin).
  [[nodiscard]] Expected<v1::Stats> Stats(bool reset = false);
  [[nodiscard]] Expected<v1::ExplainResponse> Explain(v1::ExplainRequest request);
  // Stored artifacts (by hex key or unique prefix) or an alias, explained
  // from their keys alone.
  [[nodiscard]] Expected<v1::ExplainStoredResponse> ExplainStored(v1::ExplainStoredRequest request);
  [[nodiscard]] Expected<v1::ListResponse> List(v1::ListRequest request);
  // NOT_FOUND when the key is not stored.
  [[nodiscard]] Expected<v1::InspectResponse> Inspect(v1::InspectRequest request);
  [[nodiscard]] Expected<v1::EvictResponse> Evict(v1::EvictRequest request);
  [[nodiscard]] Expected<v1::VerifyResponse> Verify();
  // Asks the daemon to drain and stop (admin); the answer carries its pid.
  [[nodiscard]] Expected<v1::ShutdownResponse> Shutdown();
  // What the daemon compiles for.
  [[nodiscard]] Expected<v1::TargetsResponse> Targets();
  // Streams an export: `on_chunk` sees each chunk as it arrives (the next
  // one is not read until it returns); a non-OK Status from it cancels the
  // call and is returned. The whole stream is under one call deadline.
  [[nodiscard]] Status Export(v1::ExportRequest request,
                              const std::function<Status(v1::ExportChunk& chunk)>& on_chunk);
  // Streams an import: `next` fills the next chunk and returns true, or
  // false when there is no more (then the daemon answers); a non-OK Status
  // from it cancels the call and is returned. The header is filled in.
  // Each chunk is sent before the next is asked for (flow control).
  [[nodiscard]] Expected<v1::ImportResponse> Import(
      const std::function<Expected<bool>(v1::ImportChunk* chunk)>& next);
  // The standard grpc.health.v1 check: OK when the daemon is serving.
  // `service` names another health service ("qdcache.remote": the remote
  // cache tier); NOT_FOUND when the daemon does not report one by that name.
  [[nodiscard]] Status Ping(const std::string& service = "");

 private:
  // `make_channel` makes the gRPC channel, on first use: a process whose
  // calls all take the lean transport never starts gRPC (its threads).
  Client(ClientOptions options, std::string target, std::function<std::shared_ptr<grpc::Channel>()> make_channel);
  [[nodiscard]] const std::shared_ptr<grpc::Channel>& channel();
  [[nodiscard]] v1::CompileCache::Stub& stub();
  // A failed call's Status; UNAVAILABLE with nobody at the unix socket
  // names it and says how to start a daemon (client/endpoint.h).
  [[nodiscard]] Status Failure(const grpc::Status& status) const;
  // Deadline and credentials of every call.
  void Authenticate(grpc::ClientContext* context, Deadline deadline = Deadline::kTimeout) const;
  // Authenticate, plus the protocol header.
  void Prepare(grpc::ClientContext* context, v1::RequestHeader* header,
               Deadline deadline = Deadline::kTimeout) const;
  // One unary call through `method` of the stub, header and deadline filled in.
  template <typename Response, typename Request, typename Method>
  Expected<Response> Call(Method method, Request request, Deadline deadline = Deadline::kTimeout);

  const ClientOptions options_;
  const std::string target_;
  const std::function<std::shared_ptr<grpc::Channel>()> make_channel_;
  std::once_flag channel_once_;
  std::shared_ptr<grpc::Channel> channel_;        // set once, by channel()
  std::unique_ptr<v1::CompileCache::Stub> stub_;  // likewise
  std::unique_ptr<LeanChannel> lean_;  // null: gRPC only
};

// The gRPC status as a Status (same code numbers).
[[nodiscard]] Status FromGrpc(const grpc::Status& status);

}  // namespace qdcache::client

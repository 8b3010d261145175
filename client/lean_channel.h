// The C++ client's side of the lean transport (lean/protocol.h,
// docs/protocol.md §1.1): Lookup and Compile over a framed protocol on the
// daemon's unix socket, payloads in a sealed memfd for large answers,
// instead of gRPC's HTTP/2. Client::Lookup and Client::Compile use it on a
// unix socket and fall back to gRPC when it cannot carry a call; a caller
// sees the same answers and errors either way, only faster.
//
// Its connections are a LeanSocket's (client/lean_socket.h).
//
// Thread-safety: a LeanChannel may be used from many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/lean_socket.h"
#include "client/lookup_answer.h"
#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

class LeanChannel {
 public:
  // How long a channel stays off after a daemon there did not take the
  // lean hello (an older daemon, or one at its connection limit).
  static constexpr std::chrono::seconds kRetryAfter = LeanSocket::kRetryAfter;

  // At most this many Compiles at once go the lean way; more go to gRPC.
  // Each holds a connection (and a daemon thread) while it compiles, and
  // the daemon's 256 lean connections are shared by every client: one
  // client's thread pool of compiles must not take them all.
  static constexpr int kMaxCompiles = 4;

  // As LeanSocket's. Opens nothing yet.
  LeanChannel(std::string path, std::string target, std::chrono::milliseconds timeout,
              std::uint64_t max_body = 256ull << 20);
  LeanChannel(const LeanChannel&) = delete;
  LeanChannel& operator=(const LeanChannel&) = delete;

  // Whether a Lookup may be tried now (not within kRetryAfter of a daemon
  // that refused the hello).
  [[nodiscard]] bool enabled() const { return socket_.enabled(); }

  // The daemon's answer, each payload a view into the sealed memfd it came
  // in (mapped read-only, not copied) or into the frame; or its refusal of the
  // call as a Status; UNAVAILABLE / DEADLINE_EXCEEDED when the connection
  // fails after the request went out (it is never sent twice). nullopt
  // when the lean transport cannot carry the call (no connection could be
  // made, or the daemon does not speak it): the caller uses gRPC.
  [[nodiscard]] std::optional<Expected<LookupAnswer>> Lookup(const v1::LookupRequest& request);

  // The same for a Compile, payloads copied into the response. `wait`: how
  // long the answer may take once the request went out (nullopt: as long as
  // the compiles take); when it passes, the connection is closed, which
  // releases the call's compiles in the daemon. nullopt also when
  // kMaxCompiles are under way already, and when the daemon serves Lookup
  // alone over the lean transport (an older one: then later Compiles go to
  // gRPC at once, for kRetryAfter).
  [[nodiscard]] std::optional<Expected<v1::CompileResponse>> Compile(
      const v1::CompileRequest& request, std::optional<std::chrono::milliseconds> wait);

 private:
  // One request of `method`, as Lookup says; the answer's header may take
  // `wait` (nullopt: no limit).
  [[nodiscard]] std::optional<Expected<LookupAnswer>> Call(std::uint8_t method,
                                                           const google::protobuf::MessageLite& request,
                                                           std::optional<std::chrono::milliseconds> wait);

  LeanSocket socket_;
  mutable std::mutex mu_;
  // Guarded by mu_: until when Compiles go to gRPC (the daemon served
  // Lookup alone), and how many are under way over this channel.
  std::chrono::steady_clock::time_point compile_retry_at_{};
  int compiles_ = 0;
};

}  // namespace qdcache::client

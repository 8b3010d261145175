// The C++ client's side of the lean transport (lean/protocol.h,
// docs/protocol.md §1.1): Lookup and Compile over a framed protocol on the
// daemon's unix socket, payloads in a sealed memfd for large answers,
// instead of gRPC's HTTP/2. Client::Lookup and Client::Compile use it on a
// unix socket and fall back to gRPC when it cannot carry a call; a caller
// sees the same answers and errors either way, only faster.
//
// Thread-safety: a LeanChannel may be used from many threads at once; each
// call takes an idle connection or opens one.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/lookup_answer.h"
#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

class LeanChannel {
 public:
  // How long a channel stays off after a daemon there did not take the
  // lean hello (an older daemon, or one at its connection limit).
  static constexpr std::chrono::seconds kRetryAfter{60};

  // At most this many connections are kept between calls.
  static constexpr std::size_t kMaxIdle = 4;

  // At most this many Compiles at once go the lean way; more go to gRPC.
  // Each holds a connection (and a daemon thread) while it compiles, and
  // the daemon's 256 lean connections are shared by every client: one
  // client's thread pool of compiles must not take them all.
  static constexpr int kMaxCompiles = 4;

  // `target`: "unix:<path>", the prefix of the daemon's errors (as gRPC's
  // calls word them). `timeout`: for each send and each read (as a socket
  // timeout, not one deadline for the call). `max_body`: the largest answer
  // body taken (the client's max-message-bytes; a memfd's payloads are not
  // counted). Opens nothing yet.
  LeanChannel(std::string path, std::string target, std::chrono::milliseconds timeout,
              std::uint64_t max_body = 256ull << 20);
  ~LeanChannel();
  LeanChannel(const LeanChannel&) = delete;
  LeanChannel& operator=(const LeanChannel&) = delete;

  // Whether a Lookup may be tried now (not within kRetryAfter of a daemon
  // that refused the hello).
  [[nodiscard]] bool enabled() const;

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
  struct Connection;
  // What an exchange left of its connection.
  struct Outcome {
    bool stale = false;     // the request could not go out: the daemon had closed it
    bool reusable = false;  // it may carry the next request
  };
  // One request of `method` over a kept or new connection, as Lookup says;
  // the answer's header may take `wait` (nullopt: no limit).
  [[nodiscard]] std::optional<Expected<LookupAnswer>> Call(std::uint8_t method,
                                                           const google::protobuf::MessageLite& request,
                                                           std::optional<std::chrono::milliseconds> wait);
  // Sends one request frame and reads its answer.
  [[nodiscard]] Expected<LookupAnswer> Exchange(Connection& connection, const std::string& frame,
                                                std::optional<std::chrono::milliseconds> wait, Outcome* outcome);
  void PutBack(std::unique_ptr<Connection> connection);

  const std::string path_;
  const std::string target_;
  const std::chrono::milliseconds timeout_;
  const std::uint64_t max_body_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;       // guarded by mu_
  std::chrono::steady_clock::time_point retry_at_{};  // guarded by mu_
  // Guarded by mu_: until when Compiles go to gRPC (the daemon served
  // Lookup alone), and how many are under way over this channel.
  std::chrono::steady_clock::time_point compile_retry_at_{};
  int compiles_ = 0;
};

}  // namespace qdcache::client

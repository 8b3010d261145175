// The client's connections of the lean transport (lean/frame.h,
// docs/protocol.md §1.1), without protobuf: a pool of connections to the
// daemon's unix socket, each carrying one request at a time, and the
// exchange of one request frame for its answer, with the sealed memfd a
// large answer comes in mapped read-only. The C++ client
// (client/lean_channel.h) puts protobuf messages in and out of it;
// libqdcache.so (client/capi/front_lookup.cc) its own encoding of a Lookup.
//
// Thread-safety: a LeanSocket may be used from many threads at once; each
// call takes an idle connection or opens one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache::client {

class LeanSocket {
 public:
  // How long a socket stays off after a daemon there did not take the
  // lean hello (an older daemon, or one at its connection limit).
  static constexpr std::chrono::seconds kRetryAfter{60};

  // At most this many connections are kept between calls.
  static constexpr std::size_t kMaxIdle = 4;

  // A connection reads its next answer's body with the header when the
  // last one's was at most this large (room for it is made before the read).
  static constexpr std::size_t kLargestGuess = 256u << 10;

  // `target`: "unix:<path>", the prefix of the daemon's errors (as gRPC's
  // calls word them). `timeout`: for each send and each read (as a socket
  // timeout, not one deadline for the call). `max_body`: the largest answer
  // body taken (the client's max-message-bytes; a memfd's payloads are not
  // counted). Opens nothing yet.
  LeanSocket(std::string path, std::string target, std::chrono::milliseconds timeout,
             std::uint64_t max_body = 256ull << 20);
  ~LeanSocket();
  LeanSocket(const LeanSocket&) = delete;
  LeanSocket& operator=(const LeanSocket&) = delete;

  [[nodiscard]] const std::string& target() const { return target_; }

  // Whether a call may be tried now (not within kRetryAfter of a daemon
  // that refused the hello).
  [[nodiscard]] bool enabled() const;

  // What the views of an answer point into: the body as it was read (with
  // room to align an inline blob), and the passed memfd's mapping. Defined
  // in the .cc.
  struct Held;

  // A successful answer, as the decoder sees it.
  struct Reply {
    std::string_view body;                  // the reply's body (lean/frame.h's layout), kept by `held`
    std::optional<std::string_view> memfd;  // the passed memfd's contents, mapped
    std::shared_ptr<Held> held;            // never null: keeps `body` and `memfd` alive

    // Moves `inline_blob`, the tail of `body` (what follows its offset
    // table), to a 64-byte boundary as in a memfd, so that its payloads keep
    // the alignment their offsets promise (an ELF reader may rely on it),
    // and points `payloads` at it. The blob moves at most 63 bytes forward
    // within `held`'s buffer (no copy elsewhere); the bytes of `body` before
    // the blob stay where they are. UNAVAILABLE when `inline_blob` is not
    // the tail of `body`.
    [[nodiscard]] Status AlignInline(std::string_view inline_blob, std::vector<std::string_view>& payloads);
  };

  // Reads a successful reply into the caller's answer: OK, or UNAVAILABLE
  // when the daemon broke the protocol (the connection is then dropped).
  using Decode = std::function<Status(Reply& reply)>;

  // Sends `frame` (a request header and its body, lean/frame.h) over a kept
  // or new connection and hands the answer to `decode`. Returns its status,
  // the daemon's refusal of the call, or UNAVAILABLE / DEADLINE_EXCEEDED
  // when the connection fails after the request went out (it is never sent
  // twice); nullopt when the lean transport cannot carry the call (no
  // connection could be made, or the daemon does not speak it): the caller
  // uses gRPC. `wait`: how long the answer's first bytes may take (nullopt:
  // no limit); the rest takes the socket's timeout.
  [[nodiscard]] std::optional<Status> Call(const std::string& frame, std::optional<std::chrono::milliseconds> wait,
                                           const Decode& decode);

  // The usual wait: the timeout given.
  [[nodiscard]] std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  struct Connection;
  // What an exchange left of its connection.
  struct Outcome {
    bool stale = false;     // the request could not go out: the daemon had closed it
    bool reusable = false;  // it may carry the next request
  };
  [[nodiscard]] Status Exchange(Connection& connection, const std::string& frame,
                                std::optional<std::chrono::milliseconds> wait, const Decode& decode,
                                Outcome* outcome);
  void PutBack(std::unique_ptr<Connection> connection);

  const std::string path_;
  const std::string target_;
  const std::chrono::milliseconds timeout_;
  const std::uint64_t max_body_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;       // guarded by mu_
  std::chrono::steady_clock::time_point retry_at_{};  // guarded by mu_
};

}  // namespace qdcache::client

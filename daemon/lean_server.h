// Serves the lean transport (lean/protocol.h, docs/protocol.md) on
// unix-socket connections the acceptor hands over: a thread per connection,
// one request at a time, bounded reads and writes. Large answers go out in
// a sealed memfd the client maps instead of reading. While a Compile runs,
// a client that hangs up releases its compiles, as a cancelled gRPC call
// does. Thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/status.h"
#include "daemon/lean_answer_memo.h"
#include "lean/protocol.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::daemon {

// Payloads a Lookup answer sends from where they are (views[i]: result i's,
// when its artifact's payload is empty), and what keeps them alive.
struct LeanPayloads {
  std::vector<std::string_view> views;
  std::shared_ptr<const void> owner;
  // Asked for when the answer may be kept (LeanServer sets it), and then
  // set when every item was a hit: what serving the answer again counts.
  bool want_replay = false;
  std::shared_ptr<const LeanReplay> replay;
};

struct LeanHooks {
  // Answers a Lookup from the peer with this uid (admission included).
  std::function<Status(std::uint32_t uid, const v1::LookupRequest&, v1::LookupResponse*, LeanPayloads*)> lookup;
  // Starts a Compile from the peer with this uid (admission included): as
  // CompileCacheService::LeanCompile, whose contract `done` and `cancel`
  // follow.
  std::function<Status(std::uint32_t uid, const v1::CompileRequest&, v1::CompileResponse*,
                       std::function<void()> done, std::function<void()>* cancel)>
      compile;
  // The generation Lookups are answered under (Engine::LookupGeneration);
  // nullopt, or no hook: no answer is kept (lean_answer_memo.h).
  std::function<std::optional<std::uint64_t>()> generation;
  // A kept answer served again to the peer with this uid, for the client
  // named in the request (for the log): admitted as `lookup` admits, then
  // counted (Engine::ReplayAliasHits). Not OK: the refusal to send instead.
  std::function<Status(std::uint32_t uid, std::string_view client, const LeanReplay&)> replay;
  // Around every Lookup and Compile answered (either may be empty): the
  // idle monitor's activity and the request metrics.
  std::function<void()> started;
  std::function<void(std::uint8_t method, Code code, double seconds)> finished;
};

struct LeanLimits {
  std::uint64_t max_body = 256ull << 20;  // a request's body (--max-message-bytes)
  std::size_t max_connections = 256;      // beyond: closed, and the client falls back to gRPC
  std::uint64_t memfd_from_bytes = 256u << 10;  // payloads at least this large go in a memfd
  std::uint64_t answer_memo_bytes = 0;           // all-hit Lookup answers kept to serve again (0: none)
  // A started read or write (the hello, a request once its first byte came,
  // a reply) must finish within this; idle connections wait without limit.
  std::chrono::milliseconds io_timeout{std::chrono::seconds(30)};
};

class LeanServer {
 public:
  LeanServer(LeanHooks hooks, LeanLimits limits);
  ~LeanServer() { Stop(); }
  LeanServer(const LeanServer&) = delete;
  LeanServer& operator=(const LeanServer&) = delete;

  // Takes over `fd`, a connection whose first bytes are the lean hello from
  // a peer with `uid`; this object closes it.
  void Adopt(int fd, std::uint32_t uid);
  // Stops reading: idle connections end, later Adopt()s close the fd at
  // once, and a request being answered (a Compile included) is answered
  // first. Returns at once.
  void BeginStop();
  // BeginStop, then waits for the connections to end; the Compiles still
  // running at `drain_until` are cancelled (answered CANCELLED). Joins
  // every connection's thread.
  void Stop(std::chrono::steady_clock::time_point drain_until = std::chrono::steady_clock::time_point::min());

 private:
  struct Connection {
    int fd;
    bool done = false;            // guarded by mu_; the fd is closed once set
    std::function<void()> cancel;  // guarded by mu_: the Compile being answered, if any
    int wake_fd = -1;             // the connection thread's: an eventfd a Compile's answerer signals
    std::string body;             // the connection thread's: the request body read, its buffer kept
    std::thread thread;
  };
  struct CompileCall;
  void Serve(Connection* connection, std::uint32_t uid);
  // One request, read and answered; false when the connection must end.
  bool ServeOne(Connection* connection, std::uint32_t uid);
  // Starts a Compile and sees it answered: the thread that answers its last
  // item sends the answer itself when the socket takes it at once (no
  // hand-over to this thread on the way to the client); otherwise this
  // thread sends it. Counts the call (hooks_.finished) either way, before
  // any of its answer is sent. False when the connection must end.
  bool AnswerCompile(Connection* connection, std::uint32_t uid, const v1::CompileRequest& request,
                     std::chrono::steady_clock::time_point started);
  // Run by the thread that answers a Compile's last item.
  void CompileAnswered(CompileCall& call, int fd, int wake_fd);
  [[nodiscard]] bool stopping() const;
  // A Lookup's answer: kept (memo_) when it may be, or made by hooks_.lookup.
  // Counts the call (hooks_.finished) before sending; false when nothing
  // could be sent.
  bool AnswerLookup(int fd, std::uint32_t uid, const lean::RequestHeader& h, const std::string& body,
                    std::chrono::steady_clock::time_point started);
  // An answer to send (its memfd made when the payloads warrant one).
  [[nodiscard]] Expected<std::shared_ptr<LeanAnswer>> Encode(v1::LookupResponse& response,
                                                             const LeanPayloads& payloads) const;
  bool Send(int fd, const LeanAnswer& answer) const;
  // A call answered (hooks_.finished): the request metrics and the idle monitor.
  void Counted(std::uint8_t method, Code code, std::chrono::steady_clock::time_point started) const;

  const LeanHooks hooks_;
  const LeanLimits limits_;
  const std::unique_ptr<LeanAnswerMemo> memo_;  // null: answers are not kept
  mutable std::mutex mu_;
  std::condition_variable ended_;      // a connection ended
  bool stopping_ = false;             // guarded by mu_
  std::list<Connection> connections_;  // guarded by mu_
};

}  // namespace qdcache::daemon

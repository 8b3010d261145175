#include "daemon/lean_server.h"

#include <fcntl.h>
#include <poll.h>
#include <climits>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <google/protobuf/arena.h>
#include <spdlog/spdlog.h>

#include "lean/lookup_wire.h"
#include "lean/protocol.h"

namespace qdcache::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// Room left in a frame for the length prefix and the offset table.
constexpr std::size_t kHeadroom = 64u << 20;

// Waits for `events` on `fd` until `deadline` (none: forever). False on
// timeout or error.
bool WaitFor(int fd, short events, std::optional<Clock::time_point> deadline) {
  for (;;) {
    int timeout = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return false;
      timeout = static_cast<int>(std::min<long long>(left, 60'000));
    }
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, timeout);
    if (n > 0) return true;  // ready, or an error the next call reports
    if (n < 0 && errno != EINTR) return false;
  }
}

// Reads exactly `size` bytes. The first byte may take forever when
// `idle_first` (a connection between requests), the rest `timeout`.
// Tries the socket before waiting on it, except for an idle connection's
// first byte: what follows a header has usually arrived with it.
bool ReadExact(int fd, char* data, std::size_t size, std::chrono::milliseconds timeout, bool idle_first) {
  std::optional<Clock::time_point> deadline;
  if (!idle_first) deadline = Clock::now() + timeout;
  std::size_t got = 0;
  bool wait = idle_first;
  while (got < size) {
    if (wait && !WaitFor(fd, POLLIN, deadline)) return false;
    const ssize_t n = ::recv(fd, data + got, size - got, MSG_DONTWAIT);
    if (n == 0) return false;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      wait = true;
      continue;
    }
    if (!deadline) deadline = Clock::now() + timeout;
    got += static_cast<std::size_t>(n);
    wait = false;
  }
  return true;
}

bool WriteAll(int fd, std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && WaitFor(fd, POLLOUT, deadline)) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Sends the 8 header bytes with `passed` as SCM_RIGHTS.
bool SendHeaderWithFd(int fd, const std::string& header, int passed, Clock::time_point deadline) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{const_cast<char*>(header.data()), header.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &passed, sizeof(int));
  for (;;) {
    const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(header.size())) return true;
    if (n >= 0) return WriteAll(fd, std::string_view(header).substr(static_cast<std::size_t>(n)), deadline);
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && WaitFor(fd, POLLOUT, deadline)) continue;
    return false;
  }
}

// Writes the blob to `fd` from its start: the payloads, with zeros between
// them, in few writev calls (writing is cheaper than faulting in the pages
// of a fresh mapping one by one).
Status WriteBlob(int fd, const lean::LookupReply& reply) {
  static const char kZeros[lean::kPayloadAlignment] = {};
  std::vector<iovec> iov;
  iov.reserve(std::min<std::size_t>(2 * reply.payloads.size(), IOV_MAX));
  auto flush = [&]() -> Status {
    std::size_t first = 0;
    while (first < iov.size()) {
      const ssize_t n = ::writev(fd, iov.data() + first, static_cast<int>(iov.size() - first));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ResourceExhausted(std::string("writing the memfd: ") + std::strerror(errno));
      }
      auto left = static_cast<std::size_t>(n);
      while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
      if (left > 0) {  // a short write inside iov[first]
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
        iov[first].iov_len -= left;
      }
    }
    iov.clear();
    return Status::Ok();
  };
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < reply.payloads.size(); ++i) {
    const std::string_view payload = reply.payloads[i];
    if (payload.empty()) continue;
    if (iov.size() + 2 > IOV_MAX) QDC_RETURN_IF_ERROR(flush());
    if (reply.offsets[i] > at) iov.push_back({const_cast<char*>(kZeros), reply.offsets[i] - at});
    iov.push_back({const_cast<char*>(payload.data()), payload.size()});
    at = reply.offsets[i] + payload.size();
  }
  return flush();
}

// Seals `fd` against any change. F_SEAL_WRITE waits for pages that others
// hold (the kernel's own: page migration, reclaim scans such as DAMON's)
// and gives up with EBUSY after ~75 ms; nobody else can reach this memfd,
// so such holds pass, and it is asked again. False with errno set.
bool Seal(int fd) {
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0) return true;
    if ((errno != EBUSY && errno != EINTR) || attempt == kAttempts) return false;
  }
}

// A sealed memfd holding the reply's blob: the client maps it read-only,
// and the seals promise it never changes or shrinks under that mapping.
Expected<int> BlobMemfd(const lean::LookupReply& reply) {
  const int fd = ::memfd_create("qdcache-lookup", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Internal(std::string("memfd_create: ") + std::strerror(errno));
  Status written = WriteBlob(fd, reply);
  if (written.ok() && !Seal(fd)) written = Internal(std::string("sealing the memfd: ") + std::strerror(errno));
  if (!written.ok()) {
    ::close(fd);
    return written;
  }
  return fd;
}

bool SendError(int fd, const Status& status, Clock::time_point deadline) {
  const std::string message(status.message());
  return WriteAll(fd, lean::EncodeReplyHeader(static_cast<std::uint32_t>(message.size()), status.code(), 0) + message,
                  deadline);
}

}  // namespace

void LeanServer::Adopt(int fd, std::uint32_t uid) {
  std::lock_guard lock(mu_);
  for (auto it = connections_.begin(); it != connections_.end();) {  // reap the finished
    if (it->done) {
      it->thread.join();
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
  if (stopping_ || connections_.size() >= limits_.max_connections) {
    if (!stopping_) {
      spdlog::warn("lean transport: {} connections already; closing a new one (the client falls back to gRPC)",
                   connections_.size());
    }
    ::close(fd);
    return;
  }
  Connection& c = connections_.emplace_back();
  c.fd = fd;
  try {
    c.thread = std::thread([this, &c, uid] { Serve(&c, uid); });
  } catch (const std::system_error& e) {  // out of threads: this connection only
    spdlog::warn("lean transport: cannot start a thread ({}); closing a connection", e.what());
    ::close(fd);
    connections_.pop_back();
  }
}

LeanServer::LeanServer(LeanHooks hooks, LeanLimits limits)
    : hooks_(std::move(hooks)),
      limits_(limits),
      memo_(limits.answer_memo_bytes > 0 && hooks_.generation && hooks_.replay
                ? std::make_unique<LeanAnswerMemo>(limits.answer_memo_bytes)
                : nullptr) {}

void LeanServer::BeginStop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  for (Connection& c : connections_) {
    // Its thread's next read fails; an answer being made (a Compile's
    // too) is still written.
    if (!c.done) ::shutdown(c.fd, SHUT_RD);
  }
}

void LeanServer::Stop(Clock::time_point drain_until) {
  BeginStop();
  std::list<Connection> ending;
  {
    std::unique_lock lock(mu_);
    auto all_done = [&] {
      for (const Connection& c : connections_) {
        if (!c.done) return false;
      }
      return true;
    };
    if (!ended_.wait_until(lock, drain_until, all_done)) {
      // Past the drain: the Compiles still running end CANCELLED.
      std::vector<std::function<void()>> cancels;
      for (const Connection& c : connections_) {
        if (!c.done && c.cancel) cancels.push_back(c.cancel);
      }
      lock.unlock();
      if (!cancels.empty()) {
        spdlog::warn("lean transport: cancelling {} Compile call{} still running at the end of the drain",
                     cancels.size(), cancels.size() == 1 ? "" : "s");
      }
      for (const std::function<void()>& cancel : cancels) cancel();
      lock.lock();
    }
    ending.splice(ending.end(), connections_);
  }
  for (Connection& c : ending) c.thread.join();
}

void LeanServer::Serve(Connection* connection, std::uint32_t uid) {
  const int fd = connection->fd;
  char hello[lean::kHello.size()];
  if (ReadExact(fd, hello, sizeof hello, limits_.io_timeout, false) &&
      std::string_view(hello, sizeof hello) == lean::kHello &&
      WriteAll(fd, lean::kHello, Clock::now() + limits_.io_timeout)) {
    while (ServeOne(connection, uid)) {
    }
  }
  std::lock_guard lock(mu_);
  ::close(fd);
  if (connection->wake_fd >= 0) ::close(connection->wake_fd);
  connection->done = true;
  ended_.notify_all();
}

bool LeanServer::ServeOne(Connection* connection, std::uint32_t uid) {
  const int fd = connection->fd;
  char header[lean::kHeaderBytes];
  if (!ReadExact(fd, header, sizeof header, limits_.io_timeout, true)) return false;
  const std::string_view header_view(header, sizeof header);
  Expected<lean::RequestHeader> h = lean::DecodeRequestHeader(header_view, limits_.max_body);
  if (!h.ok()) {  // the framing cannot be trusted further
    (void)SendError(fd, h.status(), Clock::now() + limits_.io_timeout);
    return false;
  }
  // Grown as the bytes arrive: a header alone cannot make the daemon hold
  // --max-message-bytes for a peer that sends nothing more. The buffer is
  // kept for the next request up to the first chunk's size (no allocation,
  // no fresh pages to fault in, for the usual request); a larger one is
  // let go as soon as the request is read.
  constexpr std::size_t kChunk = 1u << 20;
  std::string& body = connection->body;
  body.clear();
  auto let_go_if_large = [&body] {
    if (body.capacity() > kChunk) std::string().swap(body);
  };
  while (body.size() < h->body_bytes) {
    const std::size_t at = body.size();
    body.resize(at + std::min<std::size_t>(kChunk, h->body_bytes - at));
    if (!ReadExact(fd, body.data() + at, body.size() - at, limits_.io_timeout, false)) return false;
  }

  const auto t0 = Clock::now();
  // Calls are counted (metrics, idle monitor) as the gRPC methods', before
  // their answer goes out (a client that reads the metrics after its answer
  // finds its call there); a method the daemon does not serve is refused
  // without counting.
  const Status method = lean::CheckMethod(h->method);
  if (method.ok() && hooks_.started) hooks_.started();
  bool sent = false;
  if (!method.ok()) {
    sent = SendError(fd, method, Clock::now() + limits_.io_timeout);
  } else if (h->method == lean::kLookup) {
    sent = AnswerLookup(fd, uid, *h, body, t0);
  } else {
    Expected<v1::CompileRequest> request = lean::DecodeCompile(*h, body);
    let_go_if_large();
    if (request.ok()) return AnswerCompile(connection, uid, *request, t0);  // counted there
    Counted(h->method, request.status().code(), t0);
    sent = SendError(fd, request.status(), Clock::now() + limits_.io_timeout);
  }
  let_go_if_large();
  return sent;
}

bool LeanServer::AnswerLookup(int fd, std::uint32_t uid, const lean::RequestHeader& h, const std::string& body,
                              Clock::time_point started) {
  auto refuse = [&](const Status& status) {
    Counted(lean::kLookup, status.code(), started);
    return SendError(fd, status, Clock::now() + limits_.io_timeout);
  };
  std::string_view client;
  // A body that is not a message (refused below) has no key: nothing is kept.
  std::optional<std::string> key =
      memo_ != nullptr && memo_->MayKeep(body.size()) ? LeanAnswerMemo::KeyOf(uid, body, &client) : std::nullopt;
  std::optional<std::uint64_t> generation;
  if (key) generation = hooks_.generation();
  if (generation) {
    if (std::shared_ptr<const LeanAnswer> kept = memo_->Find(*key, *generation)) {
      const Status replayed = hooks_.replay(uid, client, *kept->replay);
      if (!replayed.ok()) return refuse(replayed);
      Counted(lean::kLookup, Code::kOk, started);
      return Send(fd, *kept);
    }
  }
  // The answer lives on an arena: thousands of results' fields without a
  // heap allocation (and a free) each.
  google::protobuf::Arena arena;
  auto& response = *google::protobuf::Arena::CreateMessage<v1::LookupResponse>(&arena);
  LeanPayloads payloads;
  payloads.want_replay = generation.has_value();
  Expected<v1::LookupRequest> request = lean::DecodeLookup(h, body);
  const Status looked_up = request.ok() ? hooks_.lookup(uid, *request, &response, &payloads) : request.status();
  Expected<std::shared_ptr<LeanAnswer>> answer = looked_up;
  if (looked_up.ok()) answer = Encode(response, payloads);
  if (!answer.ok()) return refuse(answer.status());
  Counted(lean::kLookup, Code::kOk, started);
  const bool sent = Send(fd, **answer);
  // Kept when every item was a hit and nothing in the store changed while
  // it was made (a write in between could have changed some items only).
  if (generation && payloads.replay != nullptr && hooks_.generation() == generation) {
    (*answer)->replay = std::move(payloads.replay);
    memo_->Put(std::move(*key), *generation, std::move(*answer));
  }
  return sent;
}

Expected<std::shared_ptr<LeanAnswer>> LeanServer::Encode(v1::LookupResponse& response,
                                                         const LeanPayloads& payloads) const {
  if (const std::size_t proto_bytes = response.ByteSizeLong();
      proto_bytes > static_cast<std::size_t>(INT32_MAX) - kHeadroom) {
    // Serializing would fail (protobuf's 2 GiB limit). The inline blob is
    // below memfd_from_bytes, so a frame that passes this fits in a u32.
    return ResourceExhausted("the answer is " + std::to_string(proto_bytes) +
                             " bytes, more than one lean frame carries; ask for fewer items (or without PTX)");
  }
  lean::LookupReply reply = lean::EncodeLookupReply(response, payloads.views);
  auto answer = std::make_shared<LeanAnswer>();
  if (reply.blob_bytes >= limits_.memfd_from_bytes) {
    QDC_ASSIGN_OR_RETURN(answer->memfd, BlobMemfd(reply));
    answer->memfd_bytes = reply.blob_bytes;
    answer->header =
        lean::EncodeReplyHeader(static_cast<std::uint32_t>(reply.body.size()), Code::kOk, lean::kWithFd);
    answer->rest = std::move(reply.body);
  } else {
    // Inline: the blob follows the body, in the body length.
    answer->header =
        lean::EncodeReplyHeader(static_cast<std::uint32_t>(reply.body.size() + reply.blob_bytes), Code::kOk, 0);
    answer->rest.reserve(answer->header.size() + reply.body.size() + reply.blob_bytes);
    answer->rest = answer->header;  // one write: the header and what follows
    answer->header.clear();
    answer->rest += reply.body;
    const std::size_t blob_at = answer->rest.size();
    answer->rest.resize(blob_at + reply.blob_bytes);
    lean::CopyBlob(reply, answer->rest.data() + blob_at);
  }
  return answer;
}

bool LeanServer::Send(int fd, const LeanAnswer& answer) const {
  const Clock::time_point deadline = Clock::now() + limits_.io_timeout;
  if (answer.memfd >= 0) {
    return SendHeaderWithFd(fd, answer.header, answer.memfd, deadline) && WriteAll(fd, answer.rest, deadline);
  }
  return WriteAll(fd, answer.rest, deadline);  // the header leads it
}

void LeanServer::Counted(std::uint8_t method, Code code, Clock::time_point started) const {
  if (hooks_.finished) hooks_.finished(method, code, std::chrono::duration<double>(Clock::now() - started).count());
}

bool LeanServer::stopping() const {
  std::lock_guard lock(mu_);
  return stopping_;
}

// A Compile being answered, shared by the connection's thread and the
// thread that answers its last item.
struct LeanServer::CompileCall {
  enum class State {
    kRunning,     // items still compiling
    kSent,        // the answerer sent the answer and counted the call
    kHandedBack,  // the connection's thread sends `answer` from `written` (`response` if none
                  // was made, or `status`, an error)
    kGone,        // answered after its client hung up: nothing to send
  };
  std::mutex mu;
  State state = State::kRunning;      // guarded by mu
  bool waiting = false;               // guarded by mu: the connection's thread waits for the wake fd
  bool client_gone = false;           // guarded by mu
  bool woken = false;                 // guarded by mu: the wake fd was signalled
  Status status;                      // guarded by mu
  std::shared_ptr<LeanAnswer> answer;  // guarded by mu
  std::size_t written = 0;            // guarded by mu: of answer->rest
  bool counted = false;               // guarded by mu: the answerer counted the call (hooks_.finished)
  v1::CompileResponse compiled;       // the items' results, filled by the engine
  v1::LookupResponse response;        // then moved here (the same message on the wire)
  Clock::time_point started;
};

void LeanServer::CompileAnswered(CompileCall& call, int fd, int wake_fd) {
  call.response.mutable_results()->Swap(call.compiled.mutable_results());
  // At least what the answer takes: its payloads' blob, laid out as
  // lean::EncodeLookupReply lays it out, and its PTX. From the memfd
  // threshold on, no unix socket takes it at once (nor is it inline): made
  // and sent by the connection's thread, as this thread may have other
  // answers to give.
  std::uint64_t blob_bytes = 0, ptx_bytes = 0;
  for (const v1::CompileResult& r : call.response.results()) {
    const std::uint64_t payload = r.artifact().payload().size();
    if (payload > 0) blob_bytes = lean::AlignedOffset(blob_bytes) + payload;
    ptx_bytes += r.artifact().ptx().size();
  }
  const std::uint64_t answer_bytes = blob_bytes + ptx_bytes;
  std::lock_guard lock(call.mu);
  using State = CompileCall::State;
  if (call.client_gone) {
    call.state = State::kGone;
  } else if (answer_bytes >= limits_.memfd_from_bytes) {
    call.state = State::kHandedBack;
  } else {
    Expected<std::shared_ptr<LeanAnswer>> answer = Encode(call.response, LeanPayloads{});
    call.state = State::kHandedBack;
    if (!answer.ok()) {
      call.status = answer.status();
    } else {
      call.answer = std::move(answer).value();
      // Counted before any of it is sent (the connection's thread counts
      // what this thread does not).
      Counted(lean::kCompile, Code::kOk, call.started);
      call.counted = true;
      // Sent from here only if the socket takes all of it now: this thread
      // must not wait on one client.
      if (call.answer->memfd < 0) {
        const std::string& rest = call.answer->rest;
        ssize_t n;
        do {
          n = ::send(fd, rest.data(), rest.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        } while (n < 0 && errno == EINTR);
        if (n > 0) call.written = static_cast<std::size_t>(n);
        if (call.written == rest.size()) call.state = State::kSent;
        // A failed send is the connection thread's to find: its own write fails too.
      }
    }
  }
  // The connection's thread is woken only when it has something to do; a
  // client that got its answer wakes it with its next request.
  if (call.state != State::kSent || call.waiting) {
    const std::uint64_t one = 1;
    while (::write(wake_fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
    call.woken = true;
  }
}

bool LeanServer::AnswerCompile(Connection* connection, std::uint32_t uid, const v1::CompileRequest& request,
                               Clock::time_point started) {
  const int fd = connection->fd;
  auto finish = [&](const Status& status) {
    Counted(lean::kCompile, status.code(), started);
    return SendError(fd, status, Clock::now() + limits_.io_timeout);
  };
  if (!hooks_.compile) return finish(Status(Code::kUnimplemented, "this daemon answers no Compile over the lean transport"));
  if (connection->wake_fd < 0) {
    connection->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (connection->wake_fd < 0) return finish(Unavailable(std::string("eventfd: ") + std::strerror(errno)));
  }
  const int wake_fd = connection->wake_fd;
  auto call = std::make_shared<CompileCall>();
  call->started = started;
  std::function<void()> cancel;
  const Status admitted = hooks_.compile(
      uid, request, &call->compiled, [this, call, fd, wake_fd] { CompileAnswered(*call, fd, wake_fd); }, &cancel);
  if (!admitted.ok()) return finish(admitted);
  {
    std::lock_guard lock(mu_);
    connection->cancel = cancel;  // for Stop, past its drain
  }
  // Waits for the answer, watching the client meanwhile: one that hangs up
  // (or whose connection breaks) no longer waits, and its compiles are
  // released. A daemon that stops (Stop shuts the reading side) finishes
  // the call instead, as gRPC drains its calls. A request sent ahead of
  // this answer waits unread; the connection is still watched for a
  // hang-up meanwhile.
  using State = CompileCall::State;
  short socket_events = POLLIN | POLLRDHUP;  // 0: the socket is no longer watched
  std::unique_lock lock(call->mu);
  while (call->state == State::kRunning) {
    lock.unlock();
    pollfd p[2] = {{wake_fd, POLLIN, 0}, {fd, socket_events, 0}};
    const int n = ::poll(p, socket_events != 0 ? 2 : 1, -1);
    const int poll_errno = errno;
    const bool hung_up = n > 0 && socket_events != 0 && (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    const bool stop = hung_up && stopping();
    lock.lock();
    if (n < 0 && poll_errno == EINTR) continue;
    if (n < 0) {
      // Cannot watch (no memory for poll): wait for the answer alone,
      // trying again a little later while poll itself fails.
      call->waiting = true;
      while (call->state == State::kRunning) {
        lock.unlock();
        pollfd w{wake_fd, POLLIN, 0};
        if (::poll(&w, 1, -1) < 0 && errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        lock.lock();
      }
      break;
    }
    if (socket_events == 0 || p[1].revents == 0) continue;  // the wake fd: the loop's test says what
    if (call->state != State::kRunning) break;
    call->waiting = true;
    if (!hung_up) {
      // A request sent ahead of this answer: it waits, unread, and only a
      // hang-up is watched for from now on.
      socket_events = POLLRDHUP;
      continue;
    }
    socket_events = 0;
    if (!stop) {
      call->client_gone = true;
      lock.unlock();
      cancel();
      lock.lock();
    }
  }
  if (call->woken) {
    std::uint64_t value;
    while (::read(wake_fd, &value, sizeof value) < 0 && errno == EINTR) {
    }
  }
  const State state = call->state;
  const Status status = call->status;
  std::shared_ptr<LeanAnswer> answer = call->answer;
  const std::size_t written = call->written;
  const bool counted = call->counted;
  lock.unlock();
  {
    std::lock_guard server_lock(mu_);
    connection->cancel = nullptr;
  }
  if (state == State::kSent) return true;
  // Counted as gRPC counts a call its client cancelled; nothing is encoded
  // for a peer that is gone.
  if (state == State::kGone) return finish(Cancelled("the client closed its connection"));
  if (!status.ok()) return finish(status);
  if (answer == nullptr) {
    Expected<std::shared_ptr<LeanAnswer>> encoded = Encode(call->response, LeanPayloads{});
    if (!encoded.ok()) return finish(encoded.status());
    answer = std::move(encoded).value();
  }
  if (!counted) Counted(lean::kCompile, Code::kOk, started);
  // An inline answer goes on from where the answering thread's write stopped.
  return answer->memfd >= 0 ? Send(fd, *answer)
                            : WriteAll(fd, std::string_view(answer->rest).substr(written),
                                       Clock::now() + limits_.io_timeout);
}

}  // namespace qdcache::daemon

#include "client/lean_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "lean/frame.h"

namespace qdcache::client {
namespace {

// A passed memfd must be sealed against writes and shrinking: the daemon
// can then change nothing under the client's mapping (and cannot make it
// fault by truncating it).
constexpr int kRequiredSeals = F_SEAL_SHRINK | F_SEAL_WRITE;

// Why a transfer stopped: the peer closed, the timeout passed, or another error.
enum class IoEnd { kDone, kClosed, kTimeout, kError };

IoEnd SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return IoEnd::kTimeout;
      return errno == EPIPE || errno == ECONNRESET ? IoEnd::kClosed : IoEnd::kError;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return IoEnd::kDone;
}

IoEnd RecvAll(int fd, char* data, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::recv(fd, data + got, size - got, 0);
    if (n == 0) return IoEnd::kClosed;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return IoEnd::kTimeout;
      return errno == ECONNRESET ? IoEnd::kClosed : IoEnd::kError;
    }
    got += static_cast<std::size_t>(n);
  }
  return IoEnd::kDone;
}

// 0: no timeout.
timeval TimevalOf(std::chrono::milliseconds timeout) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
  return timeval{static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
}

void SetReceiveTimeout(int fd, std::chrono::milliseconds timeout) {
  const timeval tv = TimevalOf(timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

// Waits until `fd` has something to read (or an error or hang-up for the
// next read to report), for at most `timeout` (0: no limit). In poll, not
// in a blocking recv: a thread asleep in recv on a unix socket is woken
// each time the daemon reads a request from the connection (the kernel
// announces the client's freed send buffer to every sleeper on its socket),
// a wake-up across CPUs per call for nothing; poll(POLLIN) sleeps through
// it.
IoEnd WaitReadable(int fd, std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int millis = -1;
    if (timeout.count() > 0) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return IoEnd::kTimeout;
      millis = static_cast<int>(std::min<long long>(left, 60'000));
    }
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, millis);
    if (n > 0) return IoEnd::kDone;
    if (n < 0 && errno != EINTR) return IoEnd::kError;
  }
}

// A read-only mapping of a passed memfd, unmapped and closed on destruction.
class MappedBlob {
 public:
  explicit MappedBlob(int fd) : fd_(fd) {}
  ~MappedBlob() {
    if (data_ != nullptr) ::munmap(data_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedBlob(const MappedBlob&) = delete;
  MappedBlob& operator=(const MappedBlob&) = delete;

  [[nodiscard]] Expected<std::string_view> Map() {
    const int seals = ::fcntl(fd_, F_GET_SEALS);
    if (seals < 0 || (seals & kRequiredSeals) != kRequiredSeals) {
      return Unavailable("the daemon passed a memfd that is not sealed");
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return Unavailable(std::string("fstat of the passed memfd: ") + std::strerror(errno));
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ == 0) return std::string_view();
    void* data = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
    if (data == MAP_FAILED) return Unavailable(std::string("mapping the passed memfd: ") + std::strerror(errno));
    data_ = data;
    return std::string_view(static_cast<const char*>(data_), size_);
  }

 private:
  int fd_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

struct LeanSocket::Held {
  std::unique_ptr<MappedBlob> blob;
  // The body as read, placed so that an inline blob `phase` bytes past a
  // 64-byte boundary from its start lands on one, with kPayloadAlignment
  // bytes of room after it for AlignInline to move a blob that does not:
  // read into once, never cleared first.
  std::unique_ptr<char[]> bytes;
  std::size_t room = 0;                   // the allocation's size
  std::optional<std::size_t> blob_phase;  // where AlignInline found the inline blob, mod 64

  // Allocates room for a body of `size` bytes and returns where it starts.
  char* Place(std::size_t size, std::size_t phase) {
    room = size + 2 * lean::kPayloadAlignment;
    bytes.reset(new char[room]);
    const std::uint64_t at = reinterpret_cast<std::uintptr_t>(bytes.get()) + phase;
    return bytes.get() + (lean::AlignedOffset(at) - at);
  }
};

struct LeanSocket::Connection {
  int fd = -1;
  // The last answer's body size and inline blob's place (mod 64) on this
  // connection: a client asking again usually gets an answer of the same
  // shape, read with its header in one call and its blob already aligned.
  std::size_t last_body = 0;
  std::size_t blob_phase = 0;
  ~Connection() {
    if (fd >= 0) ::close(fd);
  }
};

Status LeanSocket::Reply::AlignInline(std::string_view inline_blob, std::vector<std::string_view>& payloads) {
  if (inline_blob.empty()) return Status::Ok();
  const char* const end = body.data() + body.size();
  if (held == nullptr || body.data() < held->bytes.get() ||
      end + lean::kPayloadAlignment > held->bytes.get() + held->room || inline_blob.data() < body.data() ||
      inline_blob.data() + inline_blob.size() != end) {
    return Unavailable("an inline blob that is not the tail of the answer's body");
  }
  held->blob_phase = static_cast<std::size_t>(inline_blob.data() - body.data()) % lean::kPayloadAlignment;
  const std::uint64_t at = reinterpret_cast<std::uintptr_t>(inline_blob.data());
  const std::size_t shift = lean::AlignedOffset(at) - at;
  if (shift == 0) return Status::Ok();
  char* const start = const_cast<char*>(inline_blob.data()) + shift;
  // Within the room after the body (checked above).
  std::memmove(start, inline_blob.data(), inline_blob.size());
  for (std::string_view& payload : payloads) {
    if (!payload.empty()) payload = std::string_view(start + (payload.data() - inline_blob.data()), payload.size());
  }
  return Status::Ok();
}

LeanSocket::LeanSocket(std::string path, std::string target, std::chrono::milliseconds timeout,
                       std::uint64_t max_body)
    : path_(std::move(path)), target_(std::move(target)), timeout_(timeout), max_body_(max_body) {}

LeanSocket::~LeanSocket() = default;

bool LeanSocket::enabled() const {
  std::lock_guard lock(mu_);
  return std::chrono::steady_clock::now() >= retry_at_;
}

std::optional<Status> LeanSocket::Call(const std::string& frame, std::optional<std::chrono::milliseconds> wait,
                                       const Decode& decode) {
  std::unique_ptr<Connection> connection;
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (connection != nullptr) {
    Outcome outcome;
    Status answer = Exchange(*connection, frame, wait, decode, &outcome);
    if (!outcome.stale) {
      if (outcome.reusable) PutBack(std::move(connection));
      return answer;
    }
    // The daemon closed an idle connection (restart, shutdown): a new one.
  }

  connection = std::make_unique<Connection>();
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path_.size() >= sizeof(address.sun_path)) return std::nullopt;
  std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
  connection->fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connection->fd < 0) return std::nullopt;
  SetReceiveTimeout(connection->fd, timeout_);
  const timeval tv = TimevalOf(timeout_);
  ::setsockopt(connection->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  // Nobody there (or not yet): gRPC's path says so in its words, and a
  // daemon may start there later.
  if (::connect(connection->fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return std::nullopt;
  }
  char hello[lean::kHello.size()];
  if (SendAll(connection->fd, lean::kHello) != IoEnd::kDone ||
      RecvAll(connection->fd, hello, sizeof hello) != IoEnd::kDone ||
      std::string_view(hello, sizeof hello) != lean::kHello) {
    std::lock_guard lock(mu_);
    retry_at_ = std::chrono::steady_clock::now() + kRetryAfter;
    return std::nullopt;
  }
  Outcome outcome;
  Status answer = Exchange(*connection, frame, wait, decode, &outcome);
  if (outcome.reusable) PutBack(std::move(connection));
  return answer;
}

Status LeanSocket::Exchange(Connection& connection, const std::string& frame,
                            std::optional<std::chrono::milliseconds> wait, const Decode& decode, Outcome* outcome) {
  const int fd = connection.fd;
  // Worded only when a call times out: building it costs every call.
  auto no_answer = [&] {
    const std::chrono::milliseconds waited = wait.value_or(timeout_);
    return DeadlineExceeded(target_ + ": no answer within " +
                            (waited >= std::chrono::seconds(1)
                                 ? std::to_string(std::chrono::duration_cast<std::chrono::seconds>(waited).count()) + " s"
                                 : std::to_string(waited.count()) + " ms"));
  };
  // Closed while sending: the daemon may have refused the request before
  // closing (a body over its limit), and its answer is still to be read;
  // with none, the connection was one it had closed while idle.
  const IoEnd sent = SendAll(fd, frame);
  if (sent == IoEnd::kTimeout) return no_answer();
  if (sent == IoEnd::kError) return Unavailable(target_ + ": sending the request: " + std::strerror(errno));
  auto failed = [&](IoEnd end, int err) -> Status {
    if (end == IoEnd::kTimeout) return no_answer();
    if (end == IoEnd::kError) return Unavailable(target_ + ": reading the answer: " + std::strerror(err));
    return Unavailable(target_ + ": the daemon closed the connection");
  };
  const bool cut_off = sent == IoEnd::kClosed;

  // The header, with the memfd (if any) as SCM_RIGHTS on its bytes, and
  // as much of the body as the last answer's size (room for it placed
  // first): the daemon sends nothing after an answer before the next
  // request, so what comes with the header is this answer's. A header that
  // carries a memfd comes alone (the kernel ends a read after bytes that
  // carry descriptors).
  char header[lean::kHeaderBytes];
  auto held = std::make_shared<Held>();
  char* guessed = nullptr;
  if (connection.last_body > 0) guessed = held->Place(connection.last_body, connection.blob_phase);
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
  iovec iov[2] = {{header, sizeof header}, {guessed, connection.last_body}};
  msghdr message{};
  message.msg_iov = iov;
  message.msg_iovlen = guessed != nullptr ? 2 : 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  // The answer's first bytes may take the call's own wait (a Compile's);
  // the rest of it, and the next call, the socket's usual timeout.
  const IoEnd arrived = WaitReadable(fd, wait.value_or(std::chrono::milliseconds(0)));
  if (arrived != IoEnd::kDone) return failed(arrived, errno);
  ssize_t got;
  do {
    got = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  // A failed recvmsg filled no control data: nothing to close.
  if (got < 0) {
    const int err = errno;
    return failed(err == EAGAIN || err == EWOULDBLOCK ? IoEnd::kTimeout : IoEnd::kError, err);
  }
  std::unique_ptr<MappedBlob> blob;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int passed;
      std::memcpy(&passed, CMSG_DATA(c) + i * sizeof(int), sizeof passed);
      if (blob == nullptr) {
        blob = std::make_unique<MappedBlob>(passed);
      } else {
        ::close(passed);
      }
    }
  }
  if (got == 0) {
    outcome->stale = cut_off;
    return Unavailable(target_ + ": the daemon closed the connection");
  }
  if (static_cast<std::size_t>(got) < sizeof header) {
    const IoEnd rest = RecvAll(fd, header + got, sizeof header - static_cast<std::size_t>(got));
    if (rest != IoEnd::kDone) return failed(rest, errno);
  }
  const std::size_t body_got = static_cast<std::size_t>(got) > sizeof header ? got - sizeof header : 0;
  Expected<lean::ReplyHeader> h = lean::DecodeReplyHeader(std::string_view(header, sizeof header));
  if (!h.ok()) return h.status().WithContext(target_);
  // The body holds the metadata (and an inline blob, under 256 KiB): past
  // the client's message limit, as gRPC refuses such an answer, it is
  // refused unread (and the connection with it).
  if (h->body_bytes > max_body_) {
    return ResourceExhausted(target_ + ": the daemon's answer is " + std::to_string(h->body_bytes) +
                             " bytes without its memfd, more than max-message-bytes (" + std::to_string(max_body_) +
                             ")");
  }
  if (body_got > h->body_bytes) return Unavailable(target_ + ": the daemon sent more than its answer");
  if ((h->flags & lean::kWithFd) != 0) held->blob = std::move(blob);  // else one passed unannounced is closed
  blob.reset();
  // Room of the body's own size when none was guessed, the body is larger,
  // or it is far smaller (a large room is not kept for a small answer).
  char* start = guessed;
  if (start == nullptr || h->body_bytes > connection.last_body ||
      (connection.last_body > kLargestGuess / 4 && h->body_bytes < connection.last_body / 4)) {
    auto larger = std::make_shared<Held>();
    start = larger->Place(h->body_bytes, connection.blob_phase);
    if (body_got > 0) std::memcpy(start, guessed, body_got);
    larger->blob = std::move(held->blob);
    held = std::move(larger);
  }
  const std::string_view body(start, h->body_bytes);
  const IoEnd read = RecvAll(fd, start + body_got, body.size() - body_got);
  if (read != IoEnd::kDone) return failed(read, errno);
  if (h->code != Code::kOk) {
    // The daemon's refusal of this call. It closes the connection after a
    // request it could not read (INVALID_ARGUMENT) or hold (RESOURCE_EXHAUSTED).
    outcome->reusable = !cut_off && h->code != Code::kInvalidArgument && h->code != Code::kResourceExhausted;
    return Status(h->code, std::string(body)).WithContext(target_);
  }

  Reply reply;
  if ((h->flags & lean::kWithFd) != 0) {
    if (held->blob == nullptr) {
      return Unavailable(target_ + ": the daemon's answer lacks the memfd its header announces");
    }
    Expected<std::string_view> view = held->blob->Map();
    if (!view.ok()) return view.status().WithContext(target_);
    reply.memfd = *view;
  }
  reply.held = held;
  reply.body = body;
  QDC_RETURN_IF_ERROR(decode(reply).WithContext(target_));
  connection.last_body = h->body_bytes <= kLargestGuess ? h->body_bytes : 0;
  connection.blob_phase = held->blob_phase.value_or(0);
  outcome->reusable = !cut_off;
  return Status::Ok();
}

void LeanSocket::PutBack(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(mu_);
  // A few kept are enough for the threads that look up at once: the
  // daemon's lean connections are shared by every client (256 in all).
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(connection));
}

}  // namespace qdcache::client

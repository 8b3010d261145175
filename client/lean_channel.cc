#include "client/lean_channel.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "lean/protocol.h"

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

// What an answer's payload views point into: the frame's body (an inline
// blob) and the passed memfd's mapping.
struct Held {
  std::string body;
  std::unique_ptr<MappedBlob> blob;
};

}  // namespace

struct LeanChannel::Connection {
  int fd = -1;
  ~Connection() {
    if (fd >= 0) ::close(fd);
  }
};

LeanChannel::LeanChannel(std::string path, std::string target, std::chrono::milliseconds timeout)
    : path_(std::move(path)), target_(std::move(target)), timeout_(timeout) {}

LeanChannel::~LeanChannel() = default;

bool LeanChannel::enabled() const {
  std::lock_guard lock(mu_);
  return std::chrono::steady_clock::now() >= retry_at_;
}

std::optional<Expected<LookupAnswer>> LeanChannel::Lookup(const v1::LookupRequest& request) {
  std::string frame;
  const std::size_t body_bytes = request.ByteSizeLong();
  if (body_bytes > UINT32_MAX) return std::nullopt;  // gRPC refuses it in its words
  frame = lean::EncodeRequestHeader(static_cast<std::uint32_t>(body_bytes), lean::kLookup);
  frame.resize(lean::kHeaderBytes + body_bytes);
  request.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(frame.data() + lean::kHeaderBytes));

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
    Expected<LookupAnswer> answer = Exchange(*connection, frame, &outcome);
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
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(timeout_).count();
  const timeval tv{static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
  ::setsockopt(connection->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
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
  Expected<LookupAnswer> answer = Exchange(*connection, frame, &outcome);
  if (outcome.reusable) PutBack(std::move(connection));
  return answer;
}

Expected<LookupAnswer> LeanChannel::Exchange(Connection& connection, const std::string& frame,
                                                   Outcome* outcome) {
  const int fd = connection.fd;
  const std::string no_answer =
      target_ + ": no answer within " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout_).count()) + " s";
  // Closed while sending: the daemon may have refused the request before
  // closing (a body over its limit), and its answer is still to be read;
  // with none, the connection was one it had closed while idle.
  const IoEnd sent = SendAll(fd, frame);
  if (sent == IoEnd::kTimeout) return DeadlineExceeded(no_answer);
  if (sent == IoEnd::kError) return Unavailable(target_ + ": sending the lookup: " + std::strerror(errno));
  const bool cut_off = sent == IoEnd::kClosed;

  // The header, with the memfd (if any) as SCM_RIGHTS on its bytes.
  char header[lean::kHeaderBytes];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  iovec iov{header, sizeof header};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got;
  do {
    got = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  std::unique_ptr<MappedBlob> blob;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
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
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return DeadlineExceeded(no_answer);
    return Unavailable(target_ + ": reading the answer: " + std::strerror(errno));
  }
  if (got == 0) {
    outcome->stale = cut_off;
    return Unavailable(target_ + ": the daemon closed the connection");
  }
  if (static_cast<std::size_t>(got) < sizeof header) {
    const IoEnd rest = RecvAll(fd, header + got, sizeof header - static_cast<std::size_t>(got));
    if (rest == IoEnd::kTimeout) return DeadlineExceeded(no_answer);
    if (rest != IoEnd::kDone) return Unavailable(target_ + ": the daemon closed the connection");
  }
  Expected<lean::ReplyHeader> h = lean::DecodeReplyHeader(std::string_view(header, sizeof header));
  if (!h.ok()) return h.status().WithContext(target_);
  auto held = std::make_shared<Held>();
  held->blob = std::move(blob);
  std::string& body = held->body;
  body.resize(h->body_bytes);
  const IoEnd read = RecvAll(fd, body.data(), body.size());
  if (read == IoEnd::kTimeout) return DeadlineExceeded(no_answer);
  if (read != IoEnd::kDone) return Unavailable(target_ + ": the daemon closed the connection");
  if (h->code != Code::kOk) {
    // The daemon's refusal of this call. It closes the connection after a
    // request it could not read (INVALID_ARGUMENT) or hold (RESOURCE_EXHAUSTED).
    outcome->reusable = !cut_off && h->code != Code::kInvalidArgument && h->code != Code::kResourceExhausted;
    return Status(h->code, body).WithContext(target_);
  }

  std::optional<std::string_view> mapped;
  if ((h->flags & lean::kWithFd) != 0) {
    if (held->blob == nullptr) {
      return Unavailable(target_ + ": the daemon's answer lacks the memfd its header announces");
    }
    Expected<std::string_view> view = held->blob->Map();
    if (!view.ok()) return view.status().WithContext(target_);
    mapped = *view;
  }
  Expected<lean::LookupAnswer> decoded = lean::DecodeLookupAnswer(body, mapped);
  if (!decoded.ok()) return decoded.status().WithContext(target_);
  outcome->reusable = !cut_off;
  return LookupAnswer{std::move(decoded->response), std::move(decoded->payloads), std::move(held)};
}

void LeanChannel::PutBack(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(connection));
}

}  // namespace qdcache::client

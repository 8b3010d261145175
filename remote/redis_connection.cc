#include "remote/redis_connection.h"

#include <hiredis/hiredis.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>

namespace qdcache::remote {
namespace {

timeval ToTimeval(std::chrono::milliseconds d) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(d.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((d.count() % 1000) * 1000);
  return tv;
}

// Deep copy of a hiredis reply (which is freed right after).
Reply Convert(const redisReply& r) {
  Reply out;
  switch (r.type) {
    case REDIS_REPLY_STRING:
      out.type = Reply::Type::kString;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = Reply::Type::kStatus;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = Reply::Type::kError;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = Reply::Type::kInteger;
      out.integer = r.integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::kArray;
      out.elements.reserve(r.elements);
      for (std::size_t i = 0; i < r.elements; ++i) out.elements.push_back(Convert(*r.element[i]));
      break;
    default:
      out.type = Reply::Type::kNil;
      break;
  }
  return out;
}

}  // namespace

RedisConnection::RedisConnection(Endpoint endpoint, redisContext* context)
    : endpoint_(std::move(endpoint)), context_(context) {}

RedisConnection::~RedisConnection() { redisFree(context_); }

bool RedisConnection::PeerClosed() const {
  if (broken_ || context_ == nullptr || context_->fd < 0) return true;
  char byte = 0;
  const ssize_t n = ::recv(context_->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // An idle connection has nothing to read: EOF (0) or an error means the
  // server has gone; a byte would be an unsolicited reply, equally unusable.
  return !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

Expected<std::unique_ptr<RedisConnection>> RedisConnection::Open(const Endpoint& endpoint,
                                                                 const ConnectOptions& options) {
  redisContext* c =
      redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, ToTimeval(options.connect_timeout));
  if (c == nullptr) return Unavailable("redis " + endpoint.ToString() + ": cannot allocate a connection");
  if (c->err != 0) {
    Status s = Unavailable("redis " + endpoint.ToString() + ": " + c->errstr);
    redisFree(c);
    return s;
  }
  if (redisSetTimeout(c, ToTimeval(options.op_timeout)) != REDIS_OK) {
    redisFree(c);
    return Unavailable("redis " + endpoint.ToString() + ": cannot set the timeout");
  }
  std::unique_ptr<RedisConnection> conn(new RedisConnection(endpoint, c));
  if (!options.password.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options.username.empty()) auth.push_back(options.username);
    auth.push_back(options.password);
    Expected<Reply> reply = conn->Command(auth);
    if (!reply.ok()) return reply.status();
    if (reply->is_error()) {
      // The reply names no secret ("WRONGPASS invalid username-password pair").
      return Status(Code::kPermissionDenied, "redis " + endpoint.ToString() + ": AUTH refused: " + reply->str);
    }
  }
  return conn;
}

Status RedisConnection::Failed() {
  broken_ = true;
  const bool timeout =
      context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ETIMEDOUT);
  const std::string what = "redis " + endpoint_.ToString() + ": " +
                           (context_->errstr[0] != '\0' ? context_->errstr : "connection failed");
  return timeout ? DeadlineExceeded(what) : Unavailable(what);
}

Expected<Reply> RedisConnection::Command(const std::vector<std::string>& argv) {
  if (broken_) return Unavailable("redis " + endpoint_.ToString() + ": connection is broken");
  std::vector<const char*> args;
  std::vector<std::size_t> lengths;
  args.reserve(argv.size());
  lengths.reserve(argv.size());
  for (const std::string& a : argv) {
    args.push_back(a.data());
    lengths.push_back(a.size());
  }
  void* raw = redisCommandArgv(context_, static_cast<int>(argv.size()), args.data(), lengths.data());
  if (raw == nullptr) return Failed();
  auto* reply = static_cast<redisReply*>(raw);
  Reply out = Convert(*reply);
  freeReplyObject(reply);
  return out;
}

Expected<std::vector<Reply>> RedisConnection::Pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  if (broken_) return Unavailable("redis " + endpoint_.ToString() + ": connection is broken");
  std::vector<const char*> args;
  std::vector<std::size_t> lengths;
  for (const std::vector<std::string>& argv : commands) {
    args.clear();
    lengths.clear();
    for (const std::string& a : argv) {
      args.push_back(a.data());
      lengths.push_back(a.size());
    }
    // Buffered only: nothing is sent before the first reply is read.
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), args.data(),
                               lengths.data()) != REDIS_OK) {
      return Failed();
    }
  }
  std::vector<Reply> replies;
  replies.reserve(commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) return Failed();
    auto* reply = static_cast<redisReply*>(raw);
    replies.push_back(Convert(*reply));
    freeReplyObject(reply);
  }
  return replies;
}

}  // namespace qdcache::remote

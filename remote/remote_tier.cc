#include "remote/remote_tier.h"

#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "remote/remote_codec.h"

namespace qdcache::remote {
namespace {

constexpr auto kLogInterval = std::chrono::seconds(10);


}  // namespace

RemoteTier::RemoteTier(RemoteOptions options, std::unique_ptr<RedisClient> client,
                       CircuitBreaker::Clock clock)
    : options_(std::move(options)), client_(std::move(client)), breaker_(options_.breaker, std::move(clock)) {}

RemoteTier::~RemoteTier() {
  {
    std::lock_guard lock(probe_mu_);
    stopping_ = true;
  }
  probe_cv_.notify_all();
  if (prober_.joinable()) prober_.join();
}

void RemoteTier::StartRecoveryProbes() {
  prober_ = std::thread([this] { RecoveryLoop(); });
}

void RemoteTier::RecoveryLoop() {
  std::unique_lock lock(probe_mu_);
  while (!stopping_) {
    const std::optional<std::chrono::steady_clock::time_point> retry_at = breaker_.retry_at();
    if (!retry_at) {
      // Closed, or half-open with a call probing: NoteHealth wakes us when
      // that changes.
      probe_cv_.wait(lock);
      continue;
    }
    if (std::chrono::steady_clock::now() < *retry_at) {
      probe_cv_.wait_until(lock, *retry_at);
      continue;
    }
    lock.unlock();
    if (breaker_.Allow()) {
      if (client_->Ping().ok()) {
        breaker_.RecordSuccess();
      } else {
        breaker_.RecordFailure();
      }
      NoteHealth();
    }
    lock.lock();
  }
}

void RemoteTier::SetHealthListener(std::function<void(bool)> listener) {
  health_listener_ = std::move(listener);
}

Status RemoteTier::Probe() {
  Status s = client_->Ping();
  if (s.ok()) {
    spdlog::info("remote cache {} answers{}", options_.url.ToString(),
                 options_.read_only ? " (read-only)" : "");
    return s;
  }
  spdlog::warn("remote cache {} does not answer ({}); serving from the local store, retrying in {} ms",
               options_.url.ToString(), s.ToString(), breaker_.current_backoff().count());
  breaker_.Trip();
  NoteHealth();
  return s;
}

Expected<Reply> RemoteTier::Call(std::string_view key, const std::vector<std::string>& argv,
                                 bool* skipped) {
  *skipped = !breaker_.Allow();
  if (*skipped) {
    ++skipped_;
    return Unavailable("remote cache unavailable (circuit open)");
  }
  Expected<Reply> reply = client_->Execute(key, argv);
  // An error reply about this command alone (FAILED_PRECONDITION, see
  // ReplyError) came from a remote that works: it must not open the breaker.
  if (reply.ok() || reply.status().code() == Code::kFailedPrecondition) {
    breaker_.RecordSuccess();
  } else {
    breaker_.RecordFailure();
  }
  NoteHealth();
  return reply;
}

void RemoteTier::NoteHealth() {
  // One thread at a time: reading the breaker and recording what was read
  // must not interleave, or a stale reading could overwrite a newer one.
  std::lock_guard lock(health_mu_);
  const bool healthy = breaker_.state() == CircuitBreaker::State::kClosed;
  const bool changed = healthy_.exchange(healthy) != healthy;
  if (!healthy || changed) {
    // The prober re-reads the breaker: open again (a failed probe), or closed.
    { std::lock_guard probe_lock(probe_mu_); }
    probe_cv_.notify_all();
  }
  if (!changed) return;
  if (healthy) {
    spdlog::info("remote cache {} is back", options_.url.ToString());
  } else {
    spdlog::warn("remote cache {} degraded: not called for {} ms", options_.url.ToString(),
                 breaker_.current_backoff().count());
  }
  if (health_listener_) health_listener_(healthy);
}

void RemoteTier::LogThrottled(const std::string& message) {
  const auto now = std::chrono::steady_clock::now();
  std::uint64_t suppressed = 0;
  {
    std::lock_guard lock(log_mu_);
    if (now < next_log_) {
      ++suppressed_logs_;
      return;
    }
    next_log_ = now + kLogInterval;
    suppressed = suppressed_logs_;
    suppressed_logs_ = 0;
  }
  if (suppressed > 0) {
    spdlog::warn("remote cache: {} ({} similar messages suppressed)", message, suppressed);
  } else {
    spdlog::warn("remote cache: {}", message);
  }
}

Expected<std::optional<store::ArtifactRecord>> RemoteTier::GetArtifact(const store::ArtifactKey& key) {
  const std::string redis_key = ArtifactRedisKey(options_.url.prefix, key);
  bool skipped = false;
  Expected<Reply> reply = Call(redis_key, {"GET", redis_key}, &skipped);
  if (!reply.ok()) {
    if (!skipped) {
      ++errors_;
      LogThrottled("read of " + ShortKey(key) + " failed: " + reply.status().ToString());
    }
    return reply.status();
  }
  if (reply->type == Reply::Type::kNil) {
    ++misses_;
    return std::optional<store::ArtifactRecord>();
  }
  store::ArtifactRecord record;
  Status s = reply->type == Reply::Type::kString
                 ? DecodeArtifactValue(reply->str, key, options_.max_value_bytes, &record)
                 : DataLoss("not a string value");
  if (!s.ok()) {
    ++corrupt_;
    ++misses_;
    LogThrottled("value for artifact " + ShortKey(key) + " dropped: " + s.message());
    return std::optional<store::ArtifactRecord>();
  }
  ++hits_;
  return std::optional<store::ArtifactRecord>(std::move(record));
}

Expected<std::optional<store::ArtifactKey>> RemoteTier::GetAlias(const store::AliasKey& alias) {
  const std::string redis_key = AliasRedisKey(options_.url.prefix, alias);
  bool skipped = false;
  Expected<Reply> reply = Call(redis_key, {"GET", redis_key}, &skipped);
  if (!reply.ok()) {
    if (!skipped) {
      ++errors_;
      LogThrottled("alias read failed: " + reply.status().ToString());
    }
    return reply.status();
  }
  if (reply->type == Reply::Type::kNil) {
    ++misses_;
    return std::optional<store::ArtifactKey>();
  }
  store::ArtifactKey key;
  Status s = reply->type == Reply::Type::kString ? DecodeAliasValue(reply->str, alias, &key)
                                                 : DataLoss("not a string value");
  if (!s.ok()) {
    ++corrupt_;
    ++misses_;
    LogThrottled("alias value dropped: " + s.message());
    return std::optional<store::ArtifactKey>();
  }
  ++hits_;
  return std::optional<store::ArtifactKey>(std::move(key));
}

Status RemoteTier::PutArtifact(const store::ArtifactRecord& record) {
  if (options_.read_only) return Status::Ok();
  return Write(ArtifactRedisKey(options_.url.prefix, record.key), EncodeArtifactValue(record));
}

Status RemoteTier::PutAlias(const store::AliasKey& alias, const store::ArtifactKey& key) {
  if (options_.read_only) return Status::Ok();
  return Write(AliasRedisKey(options_.url.prefix, alias), EncodeAliasValue(alias, key));
}

Status RemoteTier::Write(const std::string& key, std::string value) {
  std::vector<std::string> argv = {"SET", key, std::move(value)};
  if (options_.ttl.count() > 0) {
    argv.push_back("EX");
    argv.push_back(std::to_string(options_.ttl.count()));
  }
  bool skipped = false;
  Expected<Reply> reply = Call(key, argv, &skipped);
  if (!reply.ok()) {
    if (!skipped) {
      ++write_failures_;
      LogThrottled("write failed: " + reply.status().ToString());
    }
    return reply.status();
  }
  ++writes_;
  return Status::Ok();
}

RemoteStats RemoteTier::Stats() const {
  RemoteStats s;
  s.hits = hits_;
  s.misses = misses_;
  s.errors = errors_;
  s.corrupt = corrupt_;
  s.writes = writes_;
  s.write_failures = write_failures_;
  s.skipped = skipped_;
  s.healthy = breaker_.state() == CircuitBreaker::State::kClosed;
  return s;
}

void RemoteTier::ResetStats() {
  for (std::atomic<std::uint64_t>* counter :
       {&hits_, &misses_, &errors_, &corrupt_, &writes_, &write_failures_, &skipped_}) {
    counter->store(0);
  }
}

}  // namespace qdcache::remote

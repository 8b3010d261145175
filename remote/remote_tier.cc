#include "remote/remote_tier.h"

#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "remote/remote_codec.h"

namespace qdcache::remote {
namespace {

constexpr auto kLogInterval = std::chrono::seconds(10);
constexpr const char* kCircuitOpen = "remote cache unavailable (circuit open)";


}  // namespace

RemoteTier::RemoteTier(RemoteOptions options, std::unique_ptr<RemoteBackend> backend,
                       CircuitBreaker::Clock clock)
    : options_(std::move(options)),
      backend_(std::move(backend)),
      breaker_(options_.breaker, std::move(clock)) {}

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
      if (backend_->Ping().ok()) {
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
  Status s = backend_->Ping();
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

bool RemoteTier::Admit(std::uint64_t reads_or_writes) {
  if (breaker_.Allow()) return true;
  skipped_ += reads_or_writes;
  return false;
}

void RemoteTier::Record(const Status& result) {
  // An error about this command alone (FAILED_PRECONDITION, see
  // remote_backend.h) came from a remote that works: it must not open the
  // breaker.
  if (result.ok() || result.code() == Code::kFailedPrecondition) {
    breaker_.RecordSuccess();
  } else {
    breaker_.RecordFailure();
  }
  NoteHealth();
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

void RemoteTier::Refused(const Status& why, const std::string& what) {
  ++misses_;
  if (why.code() == Code::kUnauthenticated) {
    ++untrusted_;
    LogThrottled(what + " refused, untrusted: " + why.message());
  } else {
    ++corrupt_;
    LogThrottled(what + " dropped: " + why.message());
  }
}

Expected<std::optional<store::ArtifactRecord>> RemoteTier::GetArtifact(const store::ArtifactKey& key) {
  if (!Admit(1)) return Unavailable(kCircuitOpen);
  Expected<std::optional<std::string>> value =
      backend_->Get(ArtifactRedisKey(options_.url.prefix, key));
  Record(value.status());
  if (!value.ok()) {
    ++errors_;
    LogThrottled("read of " + ShortKey(key) + " failed: " + value.status().ToString());
    return value.status();
  }
  return VerifiedArtifact(std::move(value).value(), key);
}

Expected<std::vector<std::optional<store::ArtifactRecord>>> RemoteTier::GetArtifacts(
    const std::vector<store::ArtifactKey>& keys) {
  std::vector<std::optional<store::ArtifactRecord>> records;
  if (keys.empty()) return records;
  if (!Admit(keys.size())) return Unavailable(kCircuitOpen);
  std::vector<std::string> backend_keys;
  backend_keys.reserve(keys.size());
  for (const store::ArtifactKey& key : keys) {
    backend_keys.push_back(ArtifactRedisKey(options_.url.prefix, key));
  }
  Expected<std::vector<std::optional<std::string>>> values = backend_->MultiGet(backend_keys);
  Record(values.status());
  if (values.ok() && values->size() != keys.size()) {
    values = Internal("remote cache: " + std::to_string(values->size()) + " values for " +
                      std::to_string(keys.size()) + " keys");
  }
  if (!values.ok()) {
    errors_ += keys.size();
    LogThrottled("read of " + std::to_string(keys.size()) +
                 " artifacts failed: " + values.status().ToString());
    return values.status();
  }
  records.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    records.push_back(VerifiedArtifact(std::move((*values)[i]), keys[i]));
  }
  return records;
}

std::optional<store::ArtifactRecord> RemoteTier::VerifiedArtifact(std::optional<std::string> value,
                                                                  const store::ArtifactKey& key) {
  if (!value) {
    ++misses_;
    return std::nullopt;
  }
  store::ArtifactRecord record;
  Status s = DecodeArtifactValue(*value, key, options_.max_value_bytes, &record, options_.signatures);
  if (!s.ok()) {
    Refused(s, "value for artifact " + ShortKey(key));
    return std::nullopt;
  }
  ++hits_;
  return record;
}

Expected<std::optional<store::AliasValue>> RemoteTier::GetAlias(const store::AliasKey& alias) {
  if (!Admit(1)) return Unavailable(kCircuitOpen);
  Expected<std::optional<std::string>> value = backend_->Get(AliasRedisKey(options_.url.prefix, alias));
  Record(value.status());
  if (!value.ok()) {
    ++errors_;
    LogThrottled("alias read failed: " + value.status().ToString());
    return value.status();
  }
  if (!value->has_value()) {
    ++misses_;
    return std::optional<store::AliasValue>();
  }
  store::AliasValue target;
  Status s = DecodeAliasValue(**value, alias, &target, options_.signatures);
  if (!s.ok()) {
    Refused(s, "alias value");
    return std::optional<store::AliasValue>();
  }
  ++hits_;
  return std::optional<store::AliasValue>(std::move(target));
}

Status RemoteTier::PutArtifact(const store::ArtifactRecord& record) {
  if (options_.read_only) return Status::Ok();
  return Write(ArtifactRedisKey(options_.url.prefix, record.key),
               EncodeArtifactValue(record, options_.signer.get()));
}

Status RemoteTier::PutAlias(const store::AliasKey& alias, const store::AliasValue& value) {
  if (options_.read_only) return Status::Ok();
  return Write(AliasRedisKey(options_.url.prefix, alias), EncodeAliasValue(alias, value, options_.signer.get()));
}

Status RemoteTier::Write(const std::string& key, std::string value) {
  if (!Admit(1)) return Unavailable(kCircuitOpen);
  Status s = backend_->Put(key, std::move(value), options_.ttl);
  Record(s);
  if (!s.ok()) {
    ++write_failures_;
    LogThrottled("write failed: " + s.ToString());
    return s;
  }
  ++writes_;
  return Status::Ok();
}

Expected<bool> RemoteTier::TakeLease(const store::ArtifactKey& key, const std::string& owner,
                                     std::chrono::milliseconds ttl) {
  if (options_.read_only) return FailedPrecondition("a read-only remote takes no leases");
  if (!Admit(0)) return Unavailable(kCircuitOpen);
  Expected<bool> taken = backend_->PutIfAbsent(LeaseRedisKey(options_.url.prefix, key), owner, ttl);
  Record(taken.status());
  if (!taken.ok()) {
    ++errors_;
    LogThrottled("lease of " + ShortKey(key) + " not taken: " + taken.status().ToString());
  }
  return taken;
}

Expected<bool> RemoteTier::UpdateLease(const store::ArtifactKey& key, const std::string& owner,
                                       std::chrono::milliseconds ttl) {
  if (options_.read_only) return FailedPrecondition("a read-only remote takes no leases");
  if (!Admit(0)) return Unavailable(kCircuitOpen);
  Expected<bool> updated = backend_->UpdateIfEquals(LeaseRedisKey(options_.url.prefix, key), owner, ttl);
  Record(updated.status());
  if (!updated.ok()) ++errors_;
  return updated;
}

Expected<bool> RemoteTier::LeaseHeld(const store::ArtifactKey& key) {
  if (!Admit(0)) return Unavailable(kCircuitOpen);
  Expected<std::optional<std::string>> value = backend_->Get(LeaseRedisKey(options_.url.prefix, key));
  Record(value.status());
  if (!value.ok()) {
    ++errors_;
    return value.status();
  }
  return value->has_value();
}

RemoteStats RemoteTier::Stats() const {
  RemoteStats s;
  s.hits = hits_;
  s.misses = misses_;
  s.errors = errors_;
  s.corrupt = corrupt_;
  s.untrusted = untrusted_;
  s.writes = writes_;
  s.write_failures = write_failures_;
  s.skipped = skipped_;
  s.not_shared_large = not_shared_large_;
  s.not_shared_cheap = not_shared_cheap_;
  s.healthy = breaker_.state() == CircuitBreaker::State::kClosed;
  return s;
}

Share RemoteTier::ShareDecision(const store::ArtifactRecord& record) {
  const std::uint64_t bytes = record.payload.size() + record.ptx.size();
  if (options_.max_share_bytes != 0 && bytes > options_.max_share_bytes) {
    ++not_shared_large_;
    return Share::kTooLarge;
  }
  const auto min_micros = std::chrono::duration_cast<std::chrono::microseconds>(options_.min_share_compile).count();
  if (record.compile_micros < static_cast<std::uint64_t>(min_micros)) {
    ++not_shared_cheap_;
    return Share::kTooCheap;
  }
  return Share::kYes;
}

void RemoteTier::ResetStats() {
  for (std::atomic<std::uint64_t>* counter :
       {&hits_, &misses_, &errors_, &corrupt_, &untrusted_, &writes_, &write_failures_, &skipped_, &not_shared_large_,
        &not_shared_cheap_}) {
    counter->store(0);
  }
}

}  // namespace qdcache::remote

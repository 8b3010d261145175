// The remote tier: artifacts and fast-key aliases in a store shared by many
// daemons, reached through a RemoteBackend (remote_backend.h: Redis
// standalone or Cluster). The tier is the policy over the backend's bytes:
// key names and self-checking envelopes (remote_codec.h), verification, a
// circuit breaker (circuit_breaker.h) so that a remote that is down costs one
// fast failure, not a timeout per call, recovery probes, read-only mode, the
// TTL of written keys, counting and throttled logging.
//
// Failure model: the remote is an optimisation. Reads answer a value, a miss
// (std::nullopt), or a Status for a failure (the backend's UNAVAILABLE or
// FAILED_PRECONDITION, or UNAVAILABLE while the breaker is open), which
// callers treat as a miss. A corrupt or foreign value is a miss, never an
// error, and is counted in Stats().corrupt; one the signature policy refuses
// (RemoteOptions::signatures) is a miss too, counted in Stats().untrusted. Writes answer a Status that
// callers may log and ignore. Everything is counted. The breaker counts every
// backend failure but FAILED_PRECONDITION (a refusal of one command by a
// remote that works).
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/expected.h"
#include "remote/circuit_breaker.h"
#include "remote/redis_url.h"
#include "remote/remote_backend.h"
#include "signing/signing_key.h"
#include "signing/trusted_keys.h"
#include "store/record.h"

namespace qdcache::remote {

struct RemoteOptions {
  RemoteUrl url;  // its prefix names the keys; the URL names the remote in logs
  bool read_only = false;  // never write to the remote
  std::chrono::seconds ttl{0};  // expiry of written keys; 0 = none
  CircuitBreaker::Options breaker;
  // Largest artifact body accepted from the remote (checked before it is
  // decompressed).
  std::uint64_t max_value_bytes = 1ull << 30;
  // Admission to the shared tier (ShareDecision): artifacts whose payload and
  // PTX exceed max_share_bytes (0: no limit), or that compiled in less than
  // min_share_compile, stay local (their aliases are still written).
  std::uint64_t max_share_bytes = 16ull << 20;
  std::chrono::milliseconds min_share_compile{0};
  // Remote hits are written into the local store too (off: the local store
  // holds this daemon's own compiles only). TieredStore reads it.
  bool backfill = true;
  // Signs every value written (null: values are written unsigned).
  std::shared_ptr<const signing::SigningKey> signer;
  // Which values read may be used (no trusted keys: all of them).
  signing::SignaturePolicy signatures;
};

// Whether an artifact may go to the shared tier.
enum class Share { kYes, kTooLarge, kTooCheap };

struct RemoteStats {
  // Reads count per key: a GetArtifacts of n keys adds n to these.
  std::uint64_t hits = 0;            // artifact and alias reads that found a valid value
  std::uint64_t misses = 0;          // reads that found nothing (corrupt values included)
  std::uint64_t errors = 0;          // reads and lease calls that failed (timeout, unreachable,
                                     // Redis error; skipped ones not included)
  std::uint64_t corrupt = 0;         // values that failed verification (served as misses)
  std::uint64_t untrusted = 0;       // values refused by the signature policy: unsigned, signed by
                                     // a key not trusted, or not covering the key they were read
                                     // under (served as misses)
  std::uint64_t writes = 0;          // values written
  std::uint64_t write_failures = 0;  // writes that failed (skipped ones not included)
  std::uint64_t skipped = 0;         // reads and writes not made because the breaker was open
  std::uint64_t not_shared_large = 0;  // artifacts kept local: larger than max_share_bytes
  std::uint64_t not_shared_cheap = 0;  // artifacts kept local: compiled quicker than min_share_compile
  bool healthy = true;               // breaker closed
};

class RemoteTier {
 public:
  // `backend` holds the values (MakeRemoteBackend, remote_backend_factory.h);
  // `clock` drives the breaker (null: steady_clock).
  RemoteTier(RemoteOptions options, std::unique_ptr<RemoteBackend> backend,
             CircuitBreaker::Clock clock = nullptr);
  ~RemoteTier();  // stops the recovery probes
  RemoteTier(const RemoteTier&) = delete;
  RemoteTier& operator=(const RemoteTier&) = delete;

  // One round trip to the remote, made at start-up: logs whether it answered
  // and, if not, opens the breaker (the daemon starts anyway).
  Status Probe();

  // From now on, while the breaker is open, a thread of the tier's own
  // probes the remote once at the end of each back-off: a remote that comes
  // back is used again (and the health listener hears so) without waiting
  // for traffic to probe it. Needs the steady clock (no injected clock).
  // Call once; the destructor stops it.
  void StartRecoveryProbes();

  // The record stored under `key`, verified against it.
  [[nodiscard]] Expected<std::optional<store::ArtifactRecord>> GetArtifact(const store::ArtifactKey& key);
  // The records stored under `keys`, one per key in the same order, each
  // verified as by GetArtifact: one backend call (MultiGet), one breaker
  // decision, all keys answered or the call failed as a whole.
  [[nodiscard]] Expected<std::vector<std::optional<store::ArtifactRecord>>> GetArtifacts(
      const std::vector<store::ArtifactKey>& keys);
  // `record` must be complete (store::ValidateForPut). OK without writing
  // when read-only.
  [[nodiscard]] Status PutArtifact(const store::ArtifactRecord& record);

  // The admission rules of RemoteOptions for `record`; a refusal is counted
  // (not_shared_large, not_shared_cheap).
  [[nodiscard]] Share ShareDecision(const store::ArtifactRecord& record);
  [[nodiscard]] Expected<std::optional<store::AliasValue>> GetAlias(const store::AliasKey& alias);
  [[nodiscard]] Status PutAlias(const store::AliasKey& alias, const store::AliasValue& value);

  // Compile leases (fleet-wide single-flight; daemon/fleet_setup.h): the
  // key LeaseRedisKey(key) holds `owner` and expires after `ttl`. Through the
  // breaker like every call; a read-only tier takes none (FAILED_PRECONDITION).
  // TakeLease: true when this call took it, false when someone holds it.
  [[nodiscard]] Expected<bool> TakeLease(const store::ArtifactKey& key, const std::string& owner,
                                         std::chrono::milliseconds ttl);
  // Extends (ttl > 0) or ends (ttl == 0) a lease `owner` holds: false when
  // it no longer does (it expired, and perhaps another took it).
  [[nodiscard]] Expected<bool> UpdateLease(const store::ArtifactKey& key, const std::string& owner,
                                           std::chrono::milliseconds ttl);
  // Whether anyone holds the lease of `key`.
  [[nodiscard]] Expected<bool> LeaseHeld(const store::ArtifactKey& key);

  [[nodiscard]] RemoteStats Stats() const;
  // Zeroes the counters (not the breaker).
  void ResetStats();
  [[nodiscard]] bool read_only() const { return options_.read_only; }
  [[nodiscard]] const RemoteOptions& options() const { return options_; }

  // Called with false when the breaker opens and true when it closes again
  // (from whichever thread made the call that changed it). Set before use.
  void SetHealthListener(std::function<void(bool healthy)> listener);

 private:
  // Asks the breaker whether a call may be made; when it refuses, counts
  // `reads_or_writes` as skipped and answers false.
  bool Admit(std::uint64_t reads_or_writes);
  // Tells the breaker how an admitted call went.
  void Record(const Status& result);
  // A value read for `key` (or none), verified: the record, or nullopt for a
  // miss, a corrupt value included. Counts the read.
  std::optional<store::ArtifactRecord> VerifiedArtifact(std::optional<std::string> value,
                                                        const store::ArtifactKey& key);
  Status Write(const std::string& key, std::string value);
  void NoteHealth();
  void LogThrottled(const std::string& message);
  // Counts a value that did not decode or was refused (`why`), and logs it.
  void Refused(const Status& why, const std::string& what);
  void RecoveryLoop();

  const RemoteOptions options_;
  const std::unique_ptr<RemoteBackend> backend_;
  CircuitBreaker breaker_;
  std::function<void(bool)> health_listener_;

  std::mutex health_mu_;  // serialises NoteHealth (the listener runs under it)
  std::atomic<bool> healthy_{true};
  std::atomic<std::uint64_t> hits_{0}, misses_{0}, errors_{0}, corrupt_{0}, untrusted_{0}, writes_{0},
      write_failures_{0}, skipped_{0}, not_shared_large_{0}, not_shared_cheap_{0};

  std::mutex probe_mu_;  // taken after health_mu_, never before
  std::condition_variable probe_cv_;  // breaker state changed, or stopping
  bool stopping_ = false;  // guarded by probe_mu_
  std::thread prober_;

  std::mutex log_mu_;
  std::chrono::steady_clock::time_point next_log_{};  // guarded by log_mu_
  std::uint64_t suppressed_logs_ = 0;                 // guarded by log_mu_
};

}  // namespace qdcache::remote

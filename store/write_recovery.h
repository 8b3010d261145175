// How the store gets writing again after a write failed with an I/O error,
// typically a full disk (ENOSPC). Internal to the store.
//
// What RocksDB does: a failed WAL append (or flush) puts the database into a
// "background error" state in which every write fails and reads still work,
// until DB::Resume() succeeds. RocksDB 7.8 also tries to recover by itself
// (an SstFileManager thread polling free space for NoSpace errors, a retry
// thread for other retryable ones), but it does not recover from a failed
// WAL append, and while its attempt counts as in progress a manual Resume()
// is refused as Busy. So the store turns RocksDB's automatic recovery off
// (ManualRecoveryListener and DBOptions::max_bgerror_resume_count = 0, set
// in MakeDbOptions) and resumes by itself, driven by its own writes:
//
//   a write fails with an I/O error
//     -> ResumeGate says whether to try now
//     -> DB::Resume(): flushes every memtable and starts a new WAL, so
//        nothing is ever appended behind a torn WAL record
//     -> on success the same WriteBatch is written once more; a batch whose
//        WAL append failed was never applied, so the retry cannot apply it
//        twice
//
// The write that hit the error fails (the daemon serves its artifact
// uncached and counts a store error); no restart is needed once space is
// back. Reads are unaffected throughout.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/status.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace qdcache::store {

// Rate limit for DB::Resume(). On a disk that stays full every attempt fails
// after trying to flush, so attempts are spaced by `interval`, except that an
// attempt is made at once when the filesystem reports at least kMinFreedBytes
// more free space than at the last failed attempt: the first write after
// space comes back recovers without waiting out the interval.
//
// Not thread-safe; the store calls it under its write lock.
class ResumeGate {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint64_t kMinFreedBytes = 64 * 1024;

  explicit ResumeGate(std::chrono::milliseconds interval) : interval_(interval) {}

  // Whether to call Resume() now. `free_bytes`: the filesystem's free space
  // now (nullopt: unknown, then only the interval counts).
  [[nodiscard]] bool ShouldTry(Clock::time_point now,
                               std::optional<std::uint64_t> free_bytes) const;
  // Records a failed Resume() made at `now` with `free_bytes` free.
  void Failed(Clock::time_point now, std::optional<std::uint64_t> free_bytes);
  // Records a successful Resume(): the next failure may try at once.
  void Succeeded();

 private:
  std::chrono::milliseconds interval_;
  std::optional<Clock::time_point> last_failure_;
  std::optional<std::uint64_t> free_at_failure_;
};

// Writes `batch` to `db` through the WAL (WriteOptions::sync = `sync`,
// disableWAL never set; see rocksdb_layout.h). After a resumable failure it
// calls DB::Resume() when `gate` allows and, if that succeeds, writes the
// same batch once more (the procedure above). `path` names the store in
// logs, `what` the write in errors. Call it under the lock that guards
// `gate`.
[[nodiscard]] Status WriteResuming(rocksdb::DB& db, rocksdb::WriteBatch* batch, bool sync,
                                   ResumeGate& gate, const std::string& path,
                                   std::string_view what);

// True for a write failure that DB::Resume() may clear: an I/O error (no
// space, a failed sync) or the soft/hard background error it left behind.
[[nodiscard]] bool IsResumable(const rocksdb::Status& status);

// Free bytes available to unprivileged users on the filesystem holding
// `path` (statvfs); nullopt when it cannot be read.
[[nodiscard]] std::optional<std::uint64_t> FreeBytes(const std::string& path);

// Switches RocksDB's automatic error recovery off (the store resumes itself,
// see above) and logs every background error.
class ManualRecoveryListener final : public rocksdb::EventListener {
 public:
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason reason, rocksdb::Status error,
                            bool* auto_recovery) override;
};

}  // namespace qdcache::store

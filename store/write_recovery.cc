#include "store/write_recovery.h"

#include <spdlog/spdlog.h>
#include <sys/statvfs.h>

#include "store/rocksdb_status.h"

namespace qdcache::store {

bool ResumeGate::ShouldTry(Clock::time_point now, std::optional<std::uint64_t> free_bytes) const {
  if (!last_failure_) return true;
  if (now - *last_failure_ >= interval_) return true;
  return free_bytes && free_at_failure_ && *free_bytes >= *free_at_failure_ + kMinFreedBytes;
}

void ResumeGate::Failed(Clock::time_point now, std::optional<std::uint64_t> free_bytes) {
  last_failure_ = now;
  free_at_failure_ = free_bytes;
}

void ResumeGate::Succeeded() {
  last_failure_.reset();
  free_at_failure_.reset();
}

bool IsResumable(const rocksdb::Status& status) {
  if (status.ok()) return false;
  const rocksdb::Status::Severity severity = status.severity();
  return status.IsIOError() || severity == rocksdb::Status::Severity::kSoftError ||
         severity == rocksdb::Status::Severity::kHardError;
}

std::optional<std::uint64_t> FreeBytes(const std::string& path) {
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

Status WriteResuming(rocksdb::DB& db, rocksdb::WriteBatch* batch, bool sync, ResumeGate& gate,
                     const std::string& path, std::string_view what) {
  rocksdb::WriteOptions write_options;  // disableWAL stays false: see MakeDbOptions
  write_options.sync = sync;
  rocksdb::Status s = db.Write(write_options, batch);
  if (s.ok() || !IsResumable(s)) return FromRocks(s, what);
  const ResumeGate::Clock::time_point now = ResumeGate::Clock::now();
  const std::optional<std::uint64_t> free_bytes = FreeBytes(path);
  if (!gate.ShouldTry(now, free_bytes)) return FromRocks(s, what);
  rocksdb::Status resumed = db.Resume();
  if (!resumed.ok()) {
    gate.Failed(now, free_bytes);
    spdlog::warn("store '{}': cannot write ({}); resuming failed: {}", path, s.ToString(),
                 resumed.ToString());
    return FromRocks(s, what);
  }
  gate.Succeeded();
  spdlog::info("store '{}': writing again after: {}", path, s.ToString());
  return FromRocks(db.Write(write_options, batch), what);
}

void ManualRecoveryListener::OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                                               rocksdb::Status* error) {
  spdlog::error("store: RocksDB stopped writes (background error, reason {}): {}",
                static_cast<int>(reason), error->ToString());
}

void ManualRecoveryListener::OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status,
                                                  bool* auto_recovery) {
  *auto_recovery = false;
}

}  // namespace qdcache::store

#include "tests/unit/remote/memory_backend.h"

namespace qdcache::remote::testing {

Status MemoryBackend::Begin() {
  ++calls_;
  return failure_;
}

Expected<std::optional<std::string>> MemoryBackend::Get(std::string_view key) {
  std::lock_guard lock(mu_);
  QDC_RETURN_IF_ERROR(Begin());
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<std::string>();
  if (it->second.wrong_type) {
    return FailedPrecondition("WRONGTYPE Operation against a key holding the wrong kind of value");
  }
  return std::optional<std::string>(it->second.value);
}

Expected<std::vector<std::optional<std::string>>> MemoryBackend::MultiGet(
    const std::vector<std::string>& keys) {
  std::lock_guard lock(mu_);
  std::vector<std::optional<std::string>> values;
  if (keys.empty()) return values;  // contacts nothing: no call
  QDC_RETURN_IF_ERROR(Begin());
  for (const std::string& key : keys) {
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.wrong_type) {
      values.emplace_back();
    } else {
      values.emplace_back(it->second.value);
    }
  }
  return values;
}

Expected<bool> MemoryBackend::PutIfAbsent(std::string_view key, std::string value, std::chrono::milliseconds ttl) {
  std::lock_guard lock(mu_);
  QDC_RETURN_IF_ERROR(Begin());
  if (entries_.find(key) != entries_.end()) return false;
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(ttl);
  entries_.emplace(std::string(key), Entry{std::move(value), seconds, false});
  return true;
}

Expected<bool> MemoryBackend::UpdateIfEquals(std::string_view key, std::string_view value,
                                             std::chrono::milliseconds ttl) {
  std::lock_guard lock(mu_);
  QDC_RETURN_IF_ERROR(Begin());
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.wrong_type || it->second.value != value) return false;
  if (ttl.count() == 0) {
    entries_.erase(it);
  } else {
    it->second.ttl = std::chrono::ceil<std::chrono::seconds>(ttl);
  }
  return true;
}

void MemoryBackend::Remove(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

Status MemoryBackend::Put(std::string_view key, std::string value, std::chrono::seconds ttl) {
  std::lock_guard lock(mu_);
  QDC_RETURN_IF_ERROR(Begin());
  entries_.insert_or_assign(std::string(key), Entry{std::move(value), ttl, false});
  return Status::Ok();
}

Status MemoryBackend::Ping() {
  std::lock_guard lock(mu_);
  return Begin();
}

void MemoryBackend::FailEveryCall(Status failure) {
  std::lock_guard lock(mu_);
  failure_ = std::move(failure);
}

void MemoryBackend::StoreWrongType(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.insert_or_assign(key, Entry{"", std::chrono::seconds(0), true});
}

void MemoryBackend::Set(const std::string& key, std::string value) {
  std::lock_guard lock(mu_);
  entries_.insert_or_assign(key, Entry{std::move(value), std::chrono::seconds(0), false});
}

std::optional<std::string> MemoryBackend::Value(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.wrong_type) return std::nullopt;
  return it->second.value;
}

long long MemoryBackend::TtlSeconds(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return -2;
  return it->second.ttl.count() > 0 ? it->second.ttl.count() : -1;
}

std::size_t MemoryBackend::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void MemoryBackend::CopyFrom(const MemoryBackend& other) {
  if (&other == this) return;
  std::scoped_lock lock(mu_, other.mu_);
  entries_ = other.entries_;
}

int MemoryBackend::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

}  // namespace qdcache::remote::testing

#include "tests/crash/crash_oracle.h"

#include <stdexcept>

#include "common/digest.h"

namespace qdcache::crash {

std::string Sha256Hex(const std::string& bytes) { return ToHex(Sha256(bytes)); }

std::string Summary(const v1::CompileResult& result) {
  std::string out = v1::CacheStatus_Name(result.status());
  if (result.has_artifact()) {
    out += " key " + ToHex(result.artifact().artifact_key()) + " payload sha256 " +
           Sha256Hex(result.artifact().payload());
  } else if (result.has_error()) {
    out += " error " + std::to_string(result.error().code()) + ": " + result.error().message();
  }
  return out;
}

Oracle::Oracle(const std::string& path) : file_(path, std::ios::app) {
  if (!file_) throw std::runtime_error("cannot open oracle file " + path);
}

void Oracle::Add(Acknowledged entry) {
  std::lock_guard lock(mu_);
  file_ << entry.round << ' ' << entry.spec.id << ' ' << (entry.spec.cuda ? "cuda" : "cpu") << ' '
        << (entry.spec.fast_key ? "fast" : "-") << ' ' << ToHex(entry.key) << ' '
        << entry.payload_sha256 << '\n';
  file_.flush();
  entries_.push_back(std::move(entry));
}

std::optional<Acknowledged> Oracle::Pick(std::mt19937_64& rng) const {
  std::lock_guard lock(mu_);
  if (entries_.empty()) return std::nullopt;
  std::uniform_int_distribution<std::size_t> index(0, entries_.size() - 1);
  return entries_[index(rng)];
}

std::vector<Acknowledged> Oracle::All() const {
  std::lock_guard lock(mu_);
  return entries_;
}

std::size_t Oracle::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace qdcache::crash

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

bool Carries(const v1::CompileResult& r, const Acknowledged& a) {
  return r.has_artifact() && r.artifact().artifact_key() == a.key &&
         Sha256Hex(r.artifact().payload()) == a.payload_sha256;
}

Oracle::Oracle(const std::string& path) : file_(path, std::ios::app) {
  if (!file_) throw std::runtime_error("cannot open oracle file " + path);
}

void Oracle::Log(const Acknowledged& entry) {
  file_ << entry.round << ' ' << entry.spec.id << ' ' << (entry.spec.cuda ? "cuda" : "cpu") << ' '
        << (entry.spec.fast_key ? "fast" : "-") << ' ' << ToHex(entry.key) << ' ' << entry.payload_sha256
        << ' ' << (entry.guaranteed ? 1 : 0) << '\n';
  file_.flush();
}

void Oracle::Add(Acknowledged entry) {
  std::lock_guard lock(mu_);
  Log(entry);
  auto it = by_id_.find(entry.spec.id);
  if (it == by_id_.end()) {
    by_id_.emplace(entry.spec.id, entries_.size());
    entries_.push_back(std::move(entry));
    return;
  }
  Acknowledged& known = entries_[it->second];
  if (known.key != entry.key || known.payload_sha256 != entry.payload_sha256) {
    throw std::logic_error("kernel " + std::to_string(entry.spec.id) + " recorded with two artifacts");
  }
  known.guaranteed = known.guaranteed || entry.guaranteed;
}

void Oracle::Guarantee(std::uint64_t id, int round) {
  std::lock_guard lock(mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end() || entries_[it->second].guaranteed) return;
  Acknowledged& known = entries_[it->second];
  known.guaranteed = true;
  known.round = round;
  Log(known);
}

void Oracle::DropGuarantees() {
  std::lock_guard lock(mu_);
  for (Acknowledged& e : entries_) e.guaranteed = false;
  file_ << "# no guarantees from here on\n";
  file_.flush();
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

std::size_t Oracle::guaranteed() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const Acknowledged& e : entries_) n += e.guaranteed ? 1 : 0;
  return n;
}

}  // namespace qdcache::crash

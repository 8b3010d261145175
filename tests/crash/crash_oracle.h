// The oracle of the crash test: every artifact the daemon acknowledged (a
// reply carrying it reached the client), with the SHA-256 of its bytes, and
// whether it is still guaranteed to survive.
//
// An entry is guaranteed from the moment a reply carried it (a compile, a
// hit, an acknowledged import) until something may legitimately take it
// away: an eviction round (the byte cap removes entries) or a damaged store
// (a truncated WAL or SST file is what a power cut loses, beyond what kill
// -9 can). A guaranteed entry must come back as a hit with the same bytes;
// one that is not may come back compiled again instead (compiles are
// deterministic) or be missing from its alias, but never with other bytes.
// Candidates known ahead (a bundle's or a remote's entries) start as not
// guaranteed.
//
// Entries are also appended to a text file as they arrive, one per line:
//   <round> <kernel id> <cpu|cuda> <fast|-> <artifact key hex> <payload sha256 hex> <guaranteed 0|1>
// so a failed run leaves a readable record behind.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "qdcache/v1/qdcache.pb.h"
#include "tests/crash/crash_kernels.h"

namespace qdcache::crash {

struct Acknowledged {
  int round = 0;
  KernelSpec spec;
  std::string key;             // artifact key, raw bytes
  std::string payload_sha256;  // hex
  bool guaranteed = true;
};

class Oracle {
 public:
  // Appends to `path` (created if missing).
  explicit Oracle(const std::string& path);

  // Records `entry` (by kernel id): a new one, or what is known of one again
  // (its key and digest must not change; guaranteed only grows here).
  void Add(Acknowledged entry);
  // The kernel `id` was acknowledged again: guaranteed from now on.
  void Guarantee(std::uint64_t id, int round);
  // Nothing recorded so far is guaranteed any more (eviction, damage).
  void DropGuarantees();
  // A uniformly chosen entry, or nullopt while there is none.
  [[nodiscard]] std::optional<Acknowledged> Pick(std::mt19937_64& rng) const;
  [[nodiscard]] std::vector<Acknowledged> All() const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] std::size_t guaranteed() const;

 private:
  void Log(const Acknowledged& entry);

  mutable std::mutex mu_;
  std::vector<Acknowledged> entries_;                   // guarded by mu_
  std::unordered_map<std::uint64_t, std::size_t> by_id_;  // guarded by mu_
  std::ofstream file_;                                   // guarded by mu_
};

// Hex SHA-256 of `bytes`.
[[nodiscard]] std::string Sha256Hex(const std::string& bytes);

// One line about a reply: its status, and the key and payload digest of its
// artifact or its error.
[[nodiscard]] std::string Summary(const v1::CompileResult& result);

// True when `r` carries `a`'s artifact (same key, same bytes), whatever its
// status.
[[nodiscard]] bool Carries(const v1::CompileResult& r, const Acknowledged& a);

}  // namespace qdcache::crash

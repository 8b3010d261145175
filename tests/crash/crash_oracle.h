// The oracle of the crash test: every artifact the daemon acknowledged (a
// reply carrying it reached the client), with the SHA-256 of its bytes.
// Entries are also appended to a text file as they arrive, one per line:
//   <round> <kernel id> <cpu|cuda> <fast|-> <artifact key hex> <payload sha256 hex>
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
#include <vector>

#include "tests/crash/crash_kernels.h"

namespace qdcache::crash {

struct Acknowledged {
  int round = 0;
  KernelSpec spec;
  std::string key;             // artifact key, raw bytes
  std::string payload_sha256;  // hex
};

class Oracle {
 public:
  // Appends to `path` (created if missing).
  explicit Oracle(const std::string& path);

  void Add(Acknowledged entry);
  // A uniformly chosen entry, or nullopt while there is none.
  [[nodiscard]] std::optional<Acknowledged> Pick(std::mt19937_64& rng) const;
  [[nodiscard]] std::vector<Acknowledged> All() const;
  [[nodiscard]] std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::vector<Acknowledged> entries_;  // guarded by mu_
  std::ofstream file_;                 // guarded by mu_
};

// Hex SHA-256 of `bytes`.
[[nodiscard]] std::string Sha256Hex(const std::string& bytes);

// One line about a reply: its status, and the key and payload digest of its
// artifact or its error.
[[nodiscard]] std::string Summary(const v1::CompileResult& result);

}  // namespace qdcache::crash

// What the crash test's daemon holds without having compiled it, and what a
// power cut would do to its store:
//   - a bundle of kernels to import during a round;
//   - a Redis tier holding kernels the daemon reads through (back-filling
//     its local store) during a round;
//   - the tail of the store's newest WAL, table or blob file cut off.
// Bundle and remote kernels are compiled once by a producer daemon of their
// own and recorded in the oracle as candidates (not guaranteed until the
// crashed daemon acknowledges them).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/crash/crash_oracle.h"
#include "tests/support/redis_server.h"

namespace qdcache::crash {

struct ImportSource {
  std::string bundle;              // file written by `qdcache export`
  std::vector<std::uint64_t> ids;  // its kernels
};

// Compiles `count` kernels (ids from `first_id`) in a producer daemon under
// `dir` and exports them. Throws on failure.
[[nodiscard]] ImportSource MakeImportSource(const std::string& dir, Oracle& oracle, std::uint64_t first_id,
                                            int count, bool cuda);

struct RemoteSource {
  std::unique_ptr<testing::RedisServer> redis;
  std::string url;                      // for --remote
  std::vector<Acknowledged> kernels;  // what it holds
};

// Starts redis-server under `dir` and has a producer daemon write `count`
// kernels (ids from `first_id`) through to it. Null when redis-server is not
// installed. Throws on failure.
[[nodiscard]] std::unique_ptr<RemoteSource> MakeRemoteSource(const std::string& dir, Oracle& oracle,
                                                             std::uint64_t first_id, int count, bool cuda);

// Cuts 1 to 4096 bytes off the end of the newest WAL (*.log), table (*.sst)
// or blob (*.blob) file of the store at `store_dir`, which no process may
// hold open. Returns what it did, or "" when there was no such file.
[[nodiscard]] std::string DamageNewestFile(const std::string& store_dir, std::mt19937_64& rng);

// Directories next to `store_dir` that an incompatible store was moved to.
[[nodiscard]] int MovedAsideStores(const std::string& store_dir);

}  // namespace qdcache::crash

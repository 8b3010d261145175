// Skipping a test where Redis is not installed, with a warning that says so.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "tests/support/redis_server.h"

namespace qdcache::testing {

// True (after a warning naming `what`) when redis-server or redis-cli is not
// on PATH: the caller returns, skipping.
inline bool SkipWithoutRedis(const std::string& what) {
  if (RedisAvailable()) return false;
  WARN("redis-server / redis-cli not on PATH: " << what << " skipped");
  return true;
}

}  // namespace qdcache::testing

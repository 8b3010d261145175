#include <atomic>
#include <catch2/catch.hpp>

#include "daemon/thread_pool.h"

using qdcache::daemon::ThreadPool;

TEST_CASE("every submitted task runs before Drain returns", "[daemon]") {
  std::atomic<int> ran{0};
  ThreadPool pool(3);
  for (int i = 0; i < 100; ++i) REQUIRE(pool.Submit([&] { ++ran; }));
  pool.Drain();
  CHECK(ran == 100);
  CHECK(pool.queued_or_running() == 0);
}

TEST_CASE("a drained pool refuses new tasks", "[daemon]") {
  ThreadPool pool(1);
  pool.Drain();
  bool ran = false;
  CHECK_FALSE(pool.Submit([&] { ran = true; }));
  CHECK_FALSE(ran);
}

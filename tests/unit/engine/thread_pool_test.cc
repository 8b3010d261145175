#include <atomic>
#include <future>
#include <catch2/catch.hpp>

#include "engine/thread_pool.h"

using qdcache::engine::ThreadPool;

TEST_CASE("every submitted task runs before Drain returns", "[daemon]") {
  std::atomic<int> ran{0};
  ThreadPool pool(3);
  for (int i = 0; i < 100; ++i) REQUIRE(pool.Submit([&] { ++ran; }).ok());
  pool.Drain();
  CHECK(ran == 100);
  CHECK(pool.queued_or_running() == 0);
}

TEST_CASE("a drained pool refuses new tasks", "[daemon]") {
  ThreadPool pool(1);
  pool.Drain();
  bool ran = false;
  CHECK_FALSE(pool.Submit([&] { ran = true; }).ok());
  CHECK_FALSE(ran);
}

TEST_CASE("a full queue refuses tasks with UNAVAILABLE naming the limit", "[daemon]") {
  ThreadPool pool(1, /*max_queue=*/2);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::promise<void> started;
  REQUIRE(pool.Submit([&] {
    started.set_value();
    gate.wait();
  }).ok());
  started.get_future().wait();  // the one thread is busy: later tasks queue
  REQUIRE(pool.Submit([] {}).ok());
  REQUIRE(pool.Submit([] {}).ok());
  qdcache::Status refused = pool.Submit([] {});
  CHECK(refused.code() == qdcache::Code::kUnavailable);
  CHECK_THAT(refused.message(), Catch::Contains("--max-queue"));
  release.set_value();
  pool.Drain();
  CHECK(pool.Submit([] {}).code() == qdcache::Code::kUnavailable);
}

TEST_CASE("a zero queue limit still hands tasks to idle threads", "[daemon]") {
  ThreadPool pool(2, /*max_queue=*/0);
  std::atomic<int> ran{0};
  CHECK(pool.Submit([&] { ++ran; }).ok());
  pool.Drain();
  CHECK(ran == 1);
}

// IrDigestMemo: remembered digests, bounded; one computation per raw key at
// a time; errors reach every waiter and are not remembered.
#include "engine/ir_digest_memo.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace qdcache::engine {
namespace {

Digest DigestOf(const std::string& s) { return Sha256(s); }

TEST_CASE("a computed digest is remembered and not computed again", "[daemon][ir_digest_memo]") {
  IrDigestMemo memo(8);
  int computed = 0;
  auto compute = [&]() -> Expected<Digest> {
    ++computed;
    return DigestOf("canonical");
  };
  const std::string raw = IrDigestMemo::RawKey("ir", "cpu:x86-64", false);
  REQUIRE(*memo.FindOrCompute(raw, compute) == DigestOf("canonical"));
  REQUIRE(*memo.FindOrCompute(raw, compute) == DigestOf("canonical"));
  CHECK(computed == 1);
  CHECK(memo.Find(raw).has_value());
}

TEST_CASE("a failed digest is returned and computed again next time", "[daemon][ir_digest_memo]") {
  IrDigestMemo memo(8);
  int computed = 0;
  auto failing = [&]() -> Expected<Digest> {
    ++computed;
    return InvalidArgument("parse error");
  };
  const std::string raw = IrDigestMemo::RawKey("bad", "cpu:x86-64", false);
  CHECK(memo.FindOrCompute(raw, failing).status().code() == Code::kInvalidArgument);
  CHECK(memo.FindOrCompute(raw, failing).status().code() == Code::kInvalidArgument);
  CHECK(computed == 2);
  CHECK_FALSE(memo.Find(raw).has_value());
}

TEST_CASE("a raw key asked for while it is being computed is not computed twice",
          "[daemon][ir_digest_memo]") {
  // The leader computes until every follower is waiting for its result (the
  // memo reports each one as it starts to wait). Without single-flight each
  // follower would compute its own digest and return at once.
  constexpr int kFollowers = 8;
  std::mutex mu;
  std::condition_variable cv;
  int waiting = 0;  // guarded by mu
  IrDigestMemo memo(8, [&] {
    std::lock_guard lock(mu);
    ++waiting;
    cv.notify_all();
  });
  const std::string raw = IrDigestMemo::RawKey("same kernel", "cuda:sm_90", false);
  std::promise<void> started;
  std::atomic<int> computed{0};
  std::future<Expected<Digest>> leader = std::async(std::launch::async, [&] {
    return memo.FindOrCompute(raw, [&]() -> Expected<Digest> {
      ++computed;
      started.set_value();
      std::unique_lock lock(mu);
      // A bound on a hang (followers that never wait), not a timing.
      cv.wait_for(lock, std::chrono::seconds(60), [&] { return waiting == kFollowers; });
      return DigestOf("leader's");
    });
  });
  started.get_future().wait();
  std::vector<std::future<Expected<Digest>>> followers;
  for (int i = 0; i < kFollowers; ++i) {
    followers.push_back(std::async(std::launch::async, [&] {
      return memo.FindOrCompute(raw, [&]() -> Expected<Digest> {
        ++computed;
        return DigestOf("follower's");
      });
    }));
  }
  REQUIRE(*leader.get() == DigestOf("leader's"));
  for (auto& f : followers) CHECK(*f.get() == DigestOf("leader's"));
  CHECK(computed == 1);
  CHECK(waiting == kFollowers);
}

TEST_CASE("the memo forgets its least recently used digest beyond capacity", "[daemon][ir_digest_memo]") {
  IrDigestMemo memo(2);
  memo.Remember("a", DigestOf("a"));
  memo.Remember("b", DigestOf("b"));
  REQUIRE(memo.Find("a").has_value());  // a is the most recent now
  memo.Remember("c", DigestOf("c"));
  CHECK_FALSE(memo.Find("b").has_value());
  CHECK(memo.Find("a").has_value());
  CHECK(memo.Find("c").has_value());
}

}  // namespace
}  // namespace qdcache::engine

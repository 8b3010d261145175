// Conformance: concurrent readers and writers. Hits are intact, misses are
// fine where eviction races, and every counter is exact afterwards.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include <atomic>
#include <thread>
#include <vector>

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("concurrent Put, Get, PutAlias and Delete keep records and counters exact",
                   "[store][conformance][concurrency]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  constexpr int kThreads = 6;
  constexpr int kPerThread = 60;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Own keys, plus a few keys every thread overwrites.
        const std::string own = "t" + std::to_string(t) + "-" + std::to_string(i);
        ArtifactRecord r = MakeRecord(own, 100 + i);
        if (!store->Put(r, MakeAlias(t, "ns", "tgt", own)).ok()) ++failures;
        const std::string shared = "shared-" + std::to_string(i % 5);
        if (!store->Put(MakeRecord(shared, 300)).ok()) ++failures;
        auto got = store->Get(r.key);
        if (!got.ok() || !got->has_value() || (*got)->payload != r.payload) ++failures;
        auto got_shared = store->GetShared(KeyFor(shared));
        if (!got_shared.ok() || *got_shared == nullptr || (*got_shared)->payload.size() != 300) {
          ++failures;
        }
        if (i % 3 == 0 && !store->Delete(r.key).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);

  std::uint64_t expect_artifacts = 5;
  std::uint64_t expect_bytes = 5 * Bytes(MakeRecord("shared-0", 300));
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::string own = "t" + std::to_string(t) + "-" + std::to_string(i);
      CHECK(Present(*store, KeyFor(own)) == (i % 3 != 0));
      if (i % 3 != 0) {
        ++expect_artifacts;
        expect_bytes += Bytes(MakeRecord(own, 100 + i));
      }
    }
  }
  const StoreStats s = store->Stats();
  CHECK(s.artifacts == expect_artifacts);
  CHECK(s.aliases == kThreads * kPerThread);
  CHECK(s.payload_bytes == expect_bytes);
  CHECK(s.corrupt_dropped == 0);
}

TEMPLATE_TEST_CASE("concurrent Put, PutStage, Get and eviction keep every counter exact",
                   "[store][conformance][evict][concurrency]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  StoreOptions options = WithCap(32 << 10);
  options.access_flush_interval = std::chrono::milliseconds(1);
  auto store = factory.Make(options);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 80;
  const auto record_seed = [](int t, int i) { return "t" + std::to_string(t) + "-" + Seed(i); };
  const auto stage_value = [](int t, int i) {
    return std::string(300 + 10 * i, static_cast<char>('a' + t));
  };
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const ArtifactRecord r = MakeRecord(record_seed(t, i), 1500 + i);
        if (!store->Put(r).ok()) ++failures;
        if (!store->PutStage(KeyFor(record_seed(t, i)), stage_value(t, i)).ok()) ++failures;
        // Reads race eviction: a hit must be intact, a miss is fine.
        for (int back : {0, 3, 10}) {
          const int j = i - back < 0 ? 0 : i - back;
          const int other = (t + back) % kThreads;
          auto got = store->Get(KeyFor(record_seed(other, j)));
          if (!got.ok()) ++failures;
          if (got.ok() && got->has_value() &&
              (*got)->payload != MakeRecord(record_seed(other, j), 1500 + j).payload) {
            ++failures;
          }
          auto stage = store->GetStage(KeyFor(record_seed(other, j)));
          if (!stage.ok()) ++failures;
          if (stage.ok() && stage->has_value() && **stage != stage_value(other, j)) ++failures;
        }
        if (i % 20 == 0 && !store->TrimTo(options.max_bytes / 2).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  // Under the cap, a pass still in flight stops without evicting anything:
  // from here on the counters only change by what this thread does.
  REQUIRE(store->TrimTo(options.max_bytes).ok());

  // Recount from what is actually readable: counters must match exactly.
  std::uint64_t artifacts = 0, payload = 0, stages = 0, stage_bytes = 0, all = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const ArtifactRecord r = MakeRecord(record_seed(t, i), 1500 + i);
      all += Bytes(r) + stage_value(t, i).size();
      if (Present(*store, r.key)) {
        ++artifacts;
        payload += Bytes(r);
      }
      if (auto stage = GetStageOrFail(*store, r.key)) {
        ++stages;
        stage_bytes += stage->size();
      }
    }
  }
  const StoreStats s = store->Stats();
  CHECK(s.artifacts == artifacts);
  CHECK(s.payload_bytes == payload);
  CHECK(s.stage_entries == stages);
  CHECK(s.stage_bytes == stage_bytes);
  CHECK(s.evictions + artifacts + stages == 2 * kThreads * kPerThread);
  CHECK(s.evicted_bytes + payload + stage_bytes == all);
  CHECK(s.corrupt_dropped == 0);
  auto verified = store->Verify();
  REQUIRE(verified.ok());
  CHECK(verified->dropped == 0);
  CHECK(verified->checked == s.artifacts + s.stage_entries);
}

TEMPLATE_TEST_CASE("concurrent readers of a damaged entry drop and count it once",
                   "[store][conformance][corruption][concurrency]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord r = MakeRecord("damaged", 4096);
  REQUIRE(store->Put(r).ok());
  REQUIRE(store->PutStage(r.key, std::string(4096, 's')).ok());
  store = factory.Damage(std::move(store), DamageTarget::Artifact(r.key));
  store = factory.Damage(std::move(store), DamageTarget::Stage(r.key));
  std::atomic<int> served{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto got = store->Get(r.key);
        auto stage = store->GetStage(r.key);
        if (!got.ok() || !stage.ok()) ++failures;
        if ((got.ok() && got->has_value()) || (stage.ok() && stage->has_value())) ++served;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  CHECK(served == 0);
  const StoreStats s = store->Stats();
  CHECK(s.corrupt_dropped == 2);
  CHECK(s.artifacts == 0);
  CHECK(s.stage_entries == 0);
  CHECK(s.total_bytes == 0);
}

}  // namespace qdcache::store::testing::conformance

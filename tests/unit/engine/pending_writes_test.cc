// PendingWrites: a reader of a key waits while a write of it is under way,
// however many; other keys are not held up.
#include "engine/pending_writes.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

namespace qdcache::engine {
namespace {

TEST_CASE("a key with no write under way is read at once", "[daemon][pending_writes]") {
  PendingWrites pending;
  pending.AwaitNone("stage");  // would never return if it waited
  pending.Begin({"other"});
  pending.AwaitNone("stage");
  pending.End({"other"});
  pending.End({"never begun"});  // ignored
  pending.AwaitNone("other");
}

TEST_CASE("a reader waits until every write of its key has ended", "[daemon][pending_writes]") {
  PendingWrites pending;
  pending.Begin({"stage", "stage", "cubin"});
  std::atomic<int> ended{0};
  std::atomic<int> seen_when_read{-1};
  std::thread reader([&] {
    pending.AwaitNone("stage");
    seen_when_read = ended.load();
  });
  ++ended;
  pending.End({"stage"});  // one of the two
  ++ended;
  pending.End({"stage", "cubin"});
  reader.join();
  CHECK(seen_when_read == 2);
}

}  // namespace
}  // namespace qdcache::engine

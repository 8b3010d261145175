// The parts of fast-key integrity that need no daemon: component diffs and
// their words, dependency manifests, key components kept in records, and
// the bounded memories.
#include <catch2/catch.hpp>

#include "common/lru_map.h"
#include "engine/artifact_record.h"
#include "engine/component_diff.h"
#include "engine/key_memory.h"
#include "engine/manifest.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

google::protobuf::RepeatedPtrField<v1::Dependency> Deps(std::initializer_list<std::pair<const char*, const char*>> in) {
  google::protobuf::RepeatedPtrField<v1::Dependency> out;
  for (const auto& [name, digest] : in) {
    v1::Dependency* d = out.Add();
    d->set_name(name);
    d->set_digest(digest);
  }
  return out;
}

}  // namespace

TEST_CASE("a component diff lists changed, added and removed components in key order", "[engine][fast-key]") {
  const std::string d1(64, 'a'), d2(64, 'b');
  const std::vector<KeyComponent> before = {
      {"ir", d1}, {"target", "cpu:x86-64"}, {"options.fast_math", "false"}, {"key_extras.OLD", "1"}};
  const std::vector<KeyComponent> after = {
      {"ir", d2}, {"target", "cpu:x86-64"}, {"options.fast_math", "true"}, {"key_extras.NEW", "7"}};
  const std::vector<ComponentChange> changes = DiffComponents(before, after);
  REQUIRE(changes.size() == 4);
  CHECK(changes[0].name == "ir");
  CHECK(changes[1].name == "options.fast_math");
  CHECK(changes[2].name == "key_extras.NEW");
  CHECK_FALSE(changes[2].before.has_value());
  CHECK(changes[3].name == "key_extras.OLD");
  CHECK_FALSE(changes[3].after.has_value());
  CHECK(DescribeChanges(changes) ==
        "ir digest changed; options.fast_math: false → true; key_extras.NEW added (= 7); "
        "key_extras.OLD removed (was 1)");
  CHECK(DiffComponents(after, after).empty());
  CHECK(DescribeChanges({{"toolchain", "x", "y"}}) == "toolchain changed");
  // Long values are cut on a character boundary.
  const std::string long_value = std::string(59, 'x') + "é" + std::string(10, 'y');
  const std::string text = DescribeChanges({{"key_extras.V", long_value, "z"}});
  CHECK(text.find(std::string(59, 'x') + "…") != std::string::npos);
}

TEST_CASE("a dependency manifest is canonical, bounded and decodes to what was declared", "[engine][fast-key]") {
  Expected<std::string> a = EncodeManifest(Deps({{"b.py", "2"}, {"a.py", "1"}}));
  Expected<std::string> b = EncodeManifest(Deps({{"a.py", "1"}, {"b.py", "2"}}));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);  // order does not matter
  google::protobuf::RepeatedPtrField<v1::Dependency> out;
  REQUIRE(DecodeManifest(*a, &out).ok());
  REQUIRE(out.size() == 2);
  CHECK(out[0].name() == "a.py");
  CHECK(out[1].digest() == "2");
  CHECK(EncodeManifest(Deps({}))->empty());
  CHECK(EncodeManifest(Deps({{"a", "1"}, {"a", "2"}})).status().message().find("named twice") != std::string::npos);
  CHECK(EncodeManifest(Deps({{"", "1"}})).status().code() == Code::kInvalidArgument);
  CHECK(EncodeManifest(Deps({{"a", ""}})).status().code() == Code::kInvalidArgument);
  CHECK(EncodeManifest(Deps({{"a", std::string(65, 'd').c_str()}})).status().code() == Code::kInvalidArgument);
  google::protobuf::RepeatedPtrField<v1::Dependency> many;
  for (std::size_t i = 0; i <= kMaxDependencies; ++i) {
    v1::Dependency* d = many.Add();
    d->set_name("f" + std::to_string(i));
    d->set_digest("x");
  }
  CHECK(EncodeManifest(many).status().code() == Code::kInvalidArgument);
  CHECK(DecodeManifest("\xff\xff", &out).code() == Code::kDataLoss);
}

TEST_CASE("a record keeps its key components, believed only when they hash to its key", "[engine][fast-key]") {
  const std::vector<KeyComponent> components = {{"ir", std::string(64, 'a')}, {"target", "cpu:x86-64"}};
  const std::string key = DigestBytes(KeyFromComponents("artifact", components));
  compiler::CompileOutput output;
  output.kind = compiler::ArtifactKind::kSharedObject;
  output.payload = "elf";
  const store::ArtifactRecord record = MakeRecord(key, "cpu:x86-64", "tc", output, 1.0, components);
  CHECK(StoredComponents(record) == components);
  store::ArtifactRecord moved = record;
  moved.key = std::string(32, 'k');
  CHECK_FALSE(StoredComponents(moved).has_value());  // components of another key
  CHECK_FALSE(StoredComponents(MakeRecord(key, "cpu:x86-64", "tc", output, 1.0)).has_value());
}

TEST_CASE("the kernel lineage and alias history are bounded memories", "[engine][fast-key]") {
  KernelLineage lineage(2);
  const std::string a = KernelLineage::FastKeyId("uid:1", "ns", "fk");
  CHECK(a != KernelLineage::FastKeyId("uid:2", "ns", "fk"));
  CHECK(KernelLineage::EntryPointsId("uid:1", "", "cpu:x86-64", {"b", "a"}) ==
        KernelLineage::EntryPointsId("uid:1", "", "cpu:x86-64", {"a", "b"}));
  lineage.Remember(a, "k1", {{"ir", "1"}});
  lineage.Remember("b", "k2", {});
  lineage.Remember("c", "k3", {});  // drops a, the oldest
  CHECK_FALSE(lineage.Find(a).has_value());
  REQUIRE(lineage.Find("c").has_value());
  CHECK(lineage.Find("c")->key == "k3");

  AliasHistory history(1);
  v1::AliasConflictEvent e;
  CHECK(history.Add("alias", e));
  for (std::size_t i = 0; i < AliasHistory::kPerAlias + 3; ++i) CHECK_FALSE(history.Add("alias", e));
  CHECK(history.Of("alias").size() == AliasHistory::kPerAlias);
  CHECK(history.Add("other", e));  // the first alias is forgotten
  CHECK(history.Of("alias").empty());

  LruMap<int> zero(0);
  CHECK(zero.Put("x", 1) == 1);
  CHECK(zero.Find("x") == nullptr);
}

// Records and stage outputs as the engine keeps them: the cache's own
// messages, which decode what the v1.Artifact encoding wrote before them.
#include "engine/artifact_record.h"

#include <catch2/catch.hpp>

#include "common/digest.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

compiler::CompileOutput Output() {
  compiler::CompileOutput out;
  out.kind = compiler::ArtifactKind::kCubin;
  out.payload = std::string("cubin\0bytes", 11);
  out.ptx = ".version 8.0";
  out.log = "ptxas info: used 12 registers";
  out.entries.push_back({"k\xff", 12, 256, 0, 128});  // LLVM names are any bytes
  out.timings.codegen_seconds = 0.25;
  return out;
}

}  // namespace

TEST_CASE("a record's metadata and a stage output round-trip through the cache's messages", "[engine][record]") {
  const store::ArtifactRecord record = MakeRecord(std::string(32, 'k'), "cuda:sm_90", "tc", Output(), 1.5);
  v1::Artifact wire;
  REQUIRE(ToWireArtifact(record, /*include_ptx=*/true, &wire).ok());
  CHECK(wire.kind() == v1::ARTIFACT_KIND_CUBIN);
  CHECK(wire.payload() == record.payload);
  CHECK(wire.ptx() == ".version 8.0");
  REQUIRE(wire.entries_size() == 1);
  CHECK(wire.entries(0).registers() == 12);
  CHECK(wire.entries(0).max_threads_per_block() == 128);
  CHECK(wire.timings().codegen_seconds() == 0.25);
  CHECK(wire.timings().total_seconds() == 1.5);

  Expected<compiler::CompileOutput> stage = DecodeStage(EncodeStage(Output()));
  REQUIRE(stage.ok());
  CHECK(stage->payload == Output().payload);
  CHECK(stage->log == Output().log);
  REQUIRE(stage->entries.size() == 1);
  CHECK(stage->entries[0].name == "k\xff");  // kept as bytes in the store
}

TEST_CASE("metadata and stage outputs written as v1.Artifact by earlier daemons still decode", "[engine][record]") {
  v1::Artifact old;
  v1::EntryMetadata* e = old.add_entries();
  e->set_name("saxpy");
  e->set_registers(20);
  e->set_shared_bytes(64);
  old.mutable_timings()->set_total_seconds(2.0);
  old.set_kind(v1::ARTIFACT_KIND_CUBIN);
  old.set_payload("cubin");
  old.set_ptx(".version 8.0");
  old.set_compile_log("log");

  store::ArtifactRecord record = MakeRecord(std::string(32, 'k'), "cuda:sm_90", "tc", Output(), 1.0);
  record.metadata = old.SerializeAsString();
  v1::Artifact wire;
  REQUIRE(ToWireArtifact(record, false, &wire).ok());
  REQUIRE(wire.entries_size() == 1);
  CHECK(wire.entries(0).name() == "saxpy");
  CHECK(wire.entries(0).registers() == 20);
  CHECK(wire.entries(0).shared_bytes() == 64);
  CHECK(wire.timings().total_seconds() == 2.0);

  Expected<compiler::CompileOutput> stage = DecodeStage(old.SerializeAsString());
  REQUIRE(stage.ok());
  CHECK(stage->kind == compiler::ArtifactKind::kCubin);
  CHECK(stage->payload == "cubin");
  CHECK(stage->ptx == ".version 8.0");
  CHECK(stage->log == "log");
  REQUIRE(stage->entries.size() == 1);
  CHECK(stage->entries[0].registers == 20);
}

TEST_CASE("serving a record skips its key components wherever they lie and still refuses broken metadata",
          "[engine][record]") {
  std::vector<KeyComponent> components;
  for (int i = 0; i < 40; ++i) components.push_back({"component-" + std::to_string(i), std::string(64, 'v')});
  compiler::CompileOutput output = Output();
  output.lowered_names.push_back({"scale<float>", "_Z5scaleIfEvPT_"});
  const std::string key = DigestBytes(KeyFromComponents("artifact", components));
  const store::ArtifactRecord record = MakeRecord(key, "cuda:sm_90", "tc", output, 1.5, components);
  REQUIRE(StoredComponents(record).has_value());  // explain still reads them

  v1::Artifact served;
  REQUIRE(ToWireArtifact(record, false, &served).ok());
  REQUIRE(served.entries_size() == 1);
  CHECK(served.entries(0).registers() == 12);
  REQUIRE(served.lowered_names_size() == 1);
  CHECK(served.lowered_names(0).name() == "_Z5scaleIfEvPT_");
  CHECK(served.timings().total_seconds() == 1.5);

  // The same fields in other orders (components first, between the others,
  // last): the same artifact is served. Entries, timings and lowered names
  // have v1.Artifact's field numbers; components are field 14.
  v1::Artifact entries, rest;
  *entries.mutable_entries() = served.entries();
  *rest.mutable_timings() = served.timings();
  *rest.mutable_lowered_names() = served.lowered_names();
  std::string c;
  for (const KeyComponent& k : components) {
    const std::string component = "\x0a" + std::string(1, static_cast<char>(k.name.size())) + k.name + "\x12" +
                                  std::string(1, static_cast<char>(k.value.size())) + k.value;
    c += "\x72" + std::string(1, static_cast<char>(component.size())) + component;
  }
  const std::string e = entries.SerializeAsString(), r = rest.SerializeAsString();
  for (const std::string& order : {e + r, c + e + r, e + c + r, e + r + c}) {
    store::ArtifactRecord moved = record;
    moved.metadata = order;
    v1::Artifact wire;
    REQUIRE(ToWireArtifact(moved, false, &wire).ok());
    CHECK(wire.SerializeAsString() == served.SerializeAsString());
  }

  // Metadata whose fields do not delimit is corrupt, wherever the damage is.
  const std::string& m = record.metadata;
  // (A component field whose length runs past every byte after it.)
  REQUIRE(e.size() + r.size() < 0x7f);
  for (const std::string& broken : {m.substr(0, m.size() - 1), m + "\x72\x7f", e + r + std::string("\x00\x01", 2),
                                    "\x72\x7f" + e + r, e + "\x72\x7f" + r}) {
    store::ArtifactRecord bad = record;
    bad.metadata = broken;
    v1::Artifact wire;
    CHECK(ToWireArtifact(bad, false, &wire).code() == Code::kDataLoss);
  }
}

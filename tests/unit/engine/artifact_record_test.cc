// Records and stage outputs as the engine keeps them: the cache's own
// messages, which decode what the v1.Artifact encoding wrote before them.
#include "engine/artifact_record.h"

#include <catch2/catch.hpp>

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

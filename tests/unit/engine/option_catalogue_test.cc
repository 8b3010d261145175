// The option catalogue against the wire message, by reflection: every field
// of qdcache.v1.CompileOptions has a row of the same name and type, and every
// row reaches the artifact key (and the keys of the stages that read it).
// An option added to the protocol but left out of the catalogue, or dropped
// from the key, fails here.
#include <catch2/catch.hpp>

#include "common/compile_options.h"
#include "engine/artifact_key.h"
#include "engine/descriptor.h"
#include "qdcache/v1/qdcache.pb.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

v1::KernelDescriptor CudaKernel() {
  v1::KernelDescriptor d;
  d.set_ir("define void @k() { ret void }");
  d.mutable_target()->mutable_cuda()->set_sm("sm_90");
  return d;
}

// NVRTC's options are read by CUDA C++ inputs only (every other kind keys
// them at their defaults); AMDGPU's by AMDGPU targets only.
v1::KernelDescriptor KernelReading(const OptionSpec& spec) {
  v1::KernelDescriptor d = CudaKernel();
  if ((spec.families & kFamilyCuda) == 0) {
    d.mutable_target()->mutable_amdgpu()->set_processor("gfx942");
    return d;
  }
  if ((spec.stages & kStageSource) != 0) {
    d.set_ir("__global__ void k() {}");
    d.set_kind(v1::SOURCE_KIND_CUDA);
  }
  return d;
}

// The artifact key of `d` over a fixed IR digest.
std::string KeyOf(const v1::KernelDescriptor& d) {
  Expected<DecodedKernel> k = DecodeKernel(d, DescriptorLimits{});
  REQUIRE(k.ok());
  return ToHex(KeyFromComponents("artifact", ArtifactKeyComponents(*k, Sha256("ir"), "toolchain")));
}

// A value of `spec` other than its default.
std::uint32_t NotDefault(const OptionSpec& spec) {
  return spec.default_value == spec.max ? spec.min : spec.max;
}

}  // namespace

TEST_CASE("every field of the wire's CompileOptions has a catalogue row of its name and type",
          "[engine][options]") {
  const google::protobuf::Descriptor* wire = v1::CompileOptions::descriptor();
  REQUIRE(wire->field_count() > 0);
  for (int i = 0; i < wire->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = wire->field(i);
    INFO("CompileOptions." << field->name() << " = " << field->number());
    const OptionSpec* spec = FindOptionByField(field->number());
    REQUIRE(spec != nullptr);
    CHECK(spec->name == field->name());
    CHECK(field->has_presence());  // unset means the default, written out in the key
    CHECK((spec->type == OptionType::kBool) ==
          (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_BOOL));
  }
  CHECK(OptionCatalogue().size() == static_cast<std::size_t>(wire->field_count()));
}

TEST_CASE("every option reaches the artifact key: a value other than its default changes it",
          "[engine][options]") {
  for (const OptionSpec& spec : OptionCatalogue()) {
    INFO("option " << spec.name);
    v1::KernelDescriptor d = KernelReading(spec);
    const std::string base = KeyOf(d);
    const google::protobuf::FieldDescriptor* field = v1::CompileOptions::descriptor()->FindFieldByNumber(spec.field);
    REQUIRE(field != nullptr);
    v1::CompileOptions* o = d.mutable_options();
    if (spec.type == OptionType::kBool) {
      o->GetReflection()->SetBool(o, field, NotDefault(spec) != 0);
    } else {
      o->GetReflection()->SetUInt32(o, field, NotDefault(spec));
    }
    CHECK(KeyOf(d) != base);
    // Set to its default explicitly: the same key as leaving it out.
    if (spec.type == OptionType::kBool) {
      o->GetReflection()->SetBool(o, field, spec.default_value != 0);
    } else {
      o->GetReflection()->SetUInt32(o, field, spec.default_value);
    }
    CHECK(KeyOf(d) == base);
  }
}

TEST_CASE("every option a stage reads is in that stage's key, and no other option is",
          "[engine][options]") {
  for (const OptionSpec& spec : OptionCatalogue()) {
    INFO("option " << spec.name);
    CompileOptions changed;
    spec.set(changed, NotDefault(spec));
    for (unsigned stage : {kStageCodegen, kStageLink, kStageSource}) {
      const bool reads = (spec.stages & stage) != 0;
      const bool seen = StageOptionsKey(changed, stage) != StageOptionsKey(CompileOptions{}, stage);
      // opt_level's link value folds 0-3 to 0 or 3: its max (3) is the default there.
      if (reads && spec.for_link != nullptr && stage == kStageLink) {
        spec.set(changed, spec.min);
        CHECK(StageOptionsKey(changed, stage) != StageOptionsKey(CompileOptions{}, stage));
        spec.set(changed, NotDefault(spec));
      } else {
        CHECK(seen == reads);
      }
    }
  }
}

#include "client/wire_target.h"

#include "common/target.h"

namespace qdcache::client {

Expected<v1::Target> ParseWireTarget(std::string_view spec) {
  QDC_ASSIGN_OR_RETURN(Target t, ParseTarget(spec));
  return ToWireTarget(t);
}

v1::Target ToWireTarget(const Target& t) {
  v1::Target out;
  switch (t.kind) {
    case TargetKind::kCuda:
      out.mutable_cuda()->set_sm(t.sm);
      break;
    case TargetKind::kCpu:
      out.mutable_cpu()->set_cpu(t.cpu);
      for (const std::string& f : t.features) out.mutable_cpu()->add_features(f);
      break;
    case TargetKind::kAmdgpu:
      out.mutable_amdgpu()->set_processor(t.cpu);
      for (const std::string& f : t.features) out.mutable_amdgpu()->add_features(f);
      break;
  }
  return out;
}

}  // namespace qdcache::client

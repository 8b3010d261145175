#include "client/wire_target.h"

#include "common/target.h"

namespace qdcache::client {

Expected<v1::Target> ParseWireTarget(std::string_view spec) {
  QDC_ASSIGN_OR_RETURN(Target t, ParseTarget(spec));
  v1::Target out;
  if (t.kind == TargetKind::kCuda) {
    out.mutable_cuda()->set_sm(t.sm);
  } else {
    out.mutable_cpu()->set_cpu(t.cpu);
    for (const std::string& f : t.features) out.mutable_cpu()->add_features(f);
  }
  return out;
}

}  // namespace qdcache::client

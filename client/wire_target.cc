#include "client/wire_target.h"

#include "common/target_spec.h"

namespace qdcache::client {

Expected<v1::Target> ParseWireTarget(std::string_view spec) {
  QDC_ASSIGN_OR_RETURN(TargetSpec t, ParseTargetSpec(spec));
  v1::Target out;
  if (t.cuda) {
    out.mutable_cuda()->set_sm(t.sm);
  } else {
    out.mutable_cpu()->set_cpu(t.cpu);
    for (const std::string& f : t.features) out.mutable_cpu()->add_features(f);
  }
  return out;
}

}  // namespace qdcache::client

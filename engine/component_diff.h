// What differs between two artifacts' key components, for explain, fast-key
// conflicts and miss reasons: the same comparison and the same words
// everywhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/artifact_key.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::engine {

struct ComponentChange {
  std::string name;
  std::optional<std::string> before;  // nullopt: the earlier artifact had none
  std::optional<std::string> after;   // nullopt: the later one has none
};

// The components that differ, in `after`'s key order, then those only
// `before` has. Names are unique within each list (ArtifactKeyComponents).
[[nodiscard]] std::vector<ComponentChange> DiffComponents(const std::vector<KeyComponent>& before,
                                                          const std::vector<KeyComponent>& after);

// One line for people: "ir digest changed; options.fast_math: 0 → 1;
// key_extras.SEED added (= 7)". Digests are not spelled out; long values are
// cut. "" for no change.
[[nodiscard]] std::string DescribeChanges(const std::vector<ComponentChange>& changes);

void ToWire(const std::vector<ComponentChange>& changes,
            google::protobuf::RepeatedPtrField<v1::ComponentChange>* out);
void ToWire(const std::vector<KeyComponent>& components, google::protobuf::RepeatedPtrField<v1::KeyComponent>* out);

}  // namespace qdcache::engine

// Explaining stored artifacts and aliases from their keys alone.
#include "common/digest.h"
#include "engine/artifact_record.h"
#include "engine/component_diff.h"
#include "engine/engine.h"
#include "engine/manifest.h"
#include "store/record_codec.h"

namespace qdcache::engine {

std::optional<std::vector<KeyComponent>> Engine::DescribeStored(const std::string& key, v1::StoredExplanation* out) {
  out->set_artifact_key(key);
  Expected<std::shared_ptr<const store::ArtifactRecord>> record = store_.GetShared(key);
  if (!record.ok() || *record == nullptr) return std::nullopt;
  out->set_stored(true);
  out->set_target((*record)->target);
  out->set_toolchain((*record)->toolchain);
  out->set_created_unix_ms((*record)->created_unix_ms);
  std::optional<std::vector<KeyComponent>> components = StoredComponents(**record);
  if (components) {
    out->set_components_known(true);
    ToWire(*components, out->mutable_components());
  }
  return components;
}

Expected<v1::ExplainStoredResponse> Engine::ExplainStored(const v1::ExplainStoredRequest& request,
                                                          const std::string& tenant) {
  const int keys = request.artifact_keys_size();
  if (keys > 2) return InvalidArgument("explain takes one or two artifact keys");
  if ((keys == 0) == !request.has_alias()) {
    return InvalidArgument("explain takes one or two artifact keys, or an alias (fast key, namespace, target)");
  }
  v1::ExplainStoredResponse out;
  if (keys > 0) {
    for (const std::string& key : request.artifact_keys()) {
      if (key.size() != kKeyBytes) return InvalidArgument("an artifact key is 32 bytes");
    }
    std::vector<std::optional<std::vector<KeyComponent>>> components;
    for (const std::string& key : request.artifact_keys()) {
      components.push_back(DescribeStored(key, out.add_artifacts()));
    }
    if (keys == 2 && components[0] && components[1]) {
      ToWire(DiffComponents(*components[0], *components[1]), out.mutable_differences());
    }
    return out;
  }
  const v1::FastKeyQuery& query = request.alias();
  if (query.fast_key().empty()) return InvalidArgument("fast_key is empty");
  QDC_RETURN_IF_ERROR(CheckFastKey(query.fast_key(), query.namespace_(), config_.limits));
  QDC_ASSIGN_OR_RETURN(compiler::Target target, DecodeTarget(query.target()));
  const store::AliasKey alias{tenant, query.namespace_(), target.ToString(), query.fast_key()};
  v1::AliasExplanation* explained = out.mutable_alias();
  QDC_ASSIGN_OR_RETURN(std::optional<store::AliasValue> named, store_.GetAliasValue(alias));
  if (named) {
    explained->set_found(true);
    explained->set_artifact_key(named->key);
    if (Status s = DecodeManifest(named->manifest, explained->mutable_dependencies()); !s.ok()) {
      return s.WithContext("alias");
    }
    (void)DescribeStored(named->key, out.add_artifacts());
  }
  for (v1::AliasConflictEvent& event : alias_history_.Of(store::EncodeAliasKey(alias))) {
    *explained->add_conflicts() = std::move(event);
  }
  return out;
}

}  // namespace qdcache::engine

#include "engine/key_memory.h"

#include <algorithm>

#include "common/digest.h"

namespace qdcache::engine {

std::string KernelLineage::FastKeyId(std::string_view tenant, std::string_view ns, std::string_view fast_key) {
  Sha256Hasher h;
  h.UpdateField("fast_key");
  h.UpdateField(tenant);
  h.UpdateField(ns);
  h.UpdateField(fast_key);
  return DigestBytes(h.Finish());
}

std::string KernelLineage::EntryPointsId(std::string_view tenant, std::string_view ns, std::string_view target,
                                         std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  Sha256Hasher h;
  h.UpdateField("entry_points");
  h.UpdateField(tenant);
  h.UpdateField(ns);
  h.UpdateField(target);
  h.UpdateU64(names.size());
  for (const std::string& name : names) h.UpdateField(name);
  return DigestBytes(h.Finish());
}

std::optional<KernelLineage::Previous> KernelLineage::Find(const std::string& id) {
  std::lock_guard lock(mu_);
  if (const Previous* found = latest_.Find(id)) return *found;
  return std::nullopt;
}

void KernelLineage::Remember(const std::string& id, const std::string& key,
                             const std::vector<KeyComponent>& components) {
  std::lock_guard lock(mu_);
  if (Previous* found = latest_.Find(id); found != nullptr && found->key == key) return;
  latest_.Put(id, Previous{key, components});
}

bool AliasHistory::Add(const std::string& encoded_alias, v1::AliasConflictEvent event) {
  std::lock_guard lock(mu_);
  std::deque<v1::AliasConflictEvent>* events = events_.Find(encoded_alias);
  const bool first = events == nullptr;
  if (first) events = &events_.Put(encoded_alias, {});
  events->push_back(std::move(event));
  if (events->size() > kPerAlias) events->pop_front();
  return first;
}

std::vector<v1::AliasConflictEvent> AliasHistory::Of(const std::string& encoded_alias) {
  std::lock_guard lock(mu_);
  const std::deque<v1::AliasConflictEvent>* events = events_.Find(encoded_alias);
  if (events == nullptr) return {};
  return {events->begin(), events->end()};
}

}  // namespace qdcache::engine

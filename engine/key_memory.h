// What the engine remembers, in memory and bounded, about the kernels it
// served: the latest artifact of each kernel lineage (for miss reasons) and
// the fast-key conflicts of each alias (for explain). Lost on restart; the
// store keeps what must survive one (each record's components, aliases).
//
// Threads: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/lru_map.h"
#include "engine/artifact_key.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::engine {

// A kernel's lineage: the artifacts one kernel has had over time. Two ways
// to recognise the same kernel (MissReason.basis): its fast key (tenant,
// namespace, fast key: any target, so a target change shows), or without
// one its entry points and target (tenant, namespace, target, names).
class KernelLineage {
 public:
  struct Previous {
    std::string key;  // the artifact key, raw
    std::vector<KeyComponent> components;
  };

  explicit KernelLineage(std::size_t capacity) : latest_(capacity) {}

  [[nodiscard]] static std::string FastKeyId(std::string_view tenant, std::string_view ns, std::string_view fast_key);
  // `names` in any order.
  [[nodiscard]] static std::string EntryPointsId(std::string_view tenant, std::string_view ns,
                                                 std::string_view target, std::vector<std::string> names);

  [[nodiscard]] std::optional<Previous> Find(const std::string& id);
  // Makes `key` the lineage's latest artifact. Cheap when it already is.
  void Remember(const std::string& id, const std::string& key, const std::vector<KeyComponent>& components);

 private:
  std::mutex mu_;
  LruMap<Previous> latest_;  // guarded by mu_
};

// The fast-key conflicts of each alias, the latest few per alias.
class AliasHistory {
 public:
  static constexpr std::size_t kPerAlias = 16;

  explicit AliasHistory(std::size_t aliases) : events_(aliases) {}

  // Adds one; true when it is the first the history holds for the alias
  // (the daemon logs that one).
  bool Add(const std::string& encoded_alias, v1::AliasConflictEvent event);
  // Oldest first.
  [[nodiscard]] std::vector<v1::AliasConflictEvent> Of(const std::string& encoded_alias);

 private:
  std::mutex mu_;
  LruMap<std::deque<v1::AliasConflictEvent>> events_;  // guarded by mu_
};

}  // namespace qdcache::engine

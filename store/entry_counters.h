// The byte and entry counters every store keeps (StoreStats' exact part),
// with the arithmetic of writes and removals in one place. Internal to the
// store. Not thread-safe: stores keep one under their writer lock.
#pragma once

#include <cstdint>

#include "store/artifact_store.h"
#include "store/entry_index.h"

namespace qdcache::store {

struct EntryCounters {
  std::uint64_t artifacts = 0;
  std::uint64_t aliases = 0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t stages = 0;
  std::uint64_t stage_bytes = 0;

  [[nodiscard]] std::uint64_t total_bytes() const { return payload_bytes + stage_bytes; }

  // An entry of `bytes` written where one of `old_bytes` was (nullptr: none).
  void Written(EntryKind kind, std::uint64_t bytes, const std::uint64_t* old_bytes) {
    if (old_bytes != nullptr) {
      Removed(kind, *old_bytes);
    }
    ++count(kind);
    bytes_of(kind) += bytes;
  }
  // An entry of `bytes` removed. Clamped at zero: counters read from a
  // damaged store never wrap.
  void Removed(EntryKind kind, std::uint64_t bytes) {
    count(kind) = Sub(count(kind), 1);
    bytes_of(kind) = Sub(bytes_of(kind), bytes);
  }
  void AliasRemoved() { aliases = Sub(aliases, 1); }

  // Fills the counted fields of `stats`.
  void Fill(StoreStats* stats) const {
    stats->artifacts = artifacts;
    stats->aliases = aliases;
    stats->payload_bytes = payload_bytes;
    stats->stage_entries = stages;
    stats->stage_bytes = stage_bytes;
    stats->total_bytes = total_bytes();
  }

 private:
  static std::uint64_t Sub(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }
  std::uint64_t& count(EntryKind kind) { return kind == EntryKind::kStage ? stages : artifacts; }
  std::uint64_t& bytes_of(EntryKind kind) {
    return kind == EntryKind::kStage ? stage_bytes : payload_bytes;
  }
};

}  // namespace qdcache::store

// Per-entry accounting and the access-order index. Internal to the store.
//
// Every artifact and stage output (an "entry") has, besides its value:
//
//   meta    "entry/" + kind + key  -> EntryInfo: fixed64 bytes, fixed64 last
//                                     access tick (both little-endian)
//   access  AccessKey(tick, kind, key) -> fixed64 bytes
//
// AccessKey = tick (u64 big-endian) + kind byte + key, so iterating the
// `access` column family forward visits entries least recently used first.
// The tick is the last access time in microseconds since the Unix epoch,
// made strictly increasing by AccessClock (access_tracker.h) so that two
// accesses never tie and the order of access is the order of the index.
//
// The info entry, the index entry and the value are always written and
// deleted in one WriteBatch, so an index entry whose info names another tick
// never exists in a store written by this code; readers still treat one as
// stale and skip (and, under the write lock, delete) it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qdcache::store {

enum class EntryKind : char {
  kArtifact = 'a',
  kStage = 's',
};

struct EntryInfo {
  std::uint64_t bytes = 0;
  std::uint64_t last_access = 0;  // tick, microseconds since the Unix epoch
};

inline constexpr std::string_view kEntryPrefix = "entry/";

[[nodiscard]] std::string EntryInfoKey(EntryKind kind, std::string_view key);
[[nodiscard]] std::string EncodeEntryInfo(const EntryInfo& info);
[[nodiscard]] std::optional<EntryInfo> DecodeEntryInfo(std::string_view value);

[[nodiscard]] std::string AccessKey(std::uint64_t tick, EntryKind kind, std::string_view key);

struct ParsedAccessKey {
  std::uint64_t tick = 0;
  EntryKind kind = EntryKind::kArtifact;
  std::string_view key;  // points into the parsed bytes
};
// nullopt when the bytes are not an access key (too short, unknown kind).
[[nodiscard]] std::optional<ParsedAccessKey> ParseAccessKey(std::string_view bytes);

}  // namespace qdcache::store

#include "store/entry_index.h"

#include "store/record_codec.h"

namespace qdcache::store {
namespace {

constexpr std::size_t kTickSize = 8;

bool IsKind(char c) {
  return c == static_cast<char>(EntryKind::kArtifact) || c == static_cast<char>(EntryKind::kStage);
}

}  // namespace

std::string EntryInfoKey(EntryKind kind, std::string_view key) {
  std::string out(kEntryPrefix);
  out.push_back(static_cast<char>(kind));
  out.append(key);
  return out;
}

std::string EncodeEntryInfo(const EntryInfo& info) {
  return EncodeFixed64(info.bytes) + EncodeFixed64(info.last_access);
}

std::optional<EntryInfo> DecodeEntryInfo(std::string_view value) {
  EntryInfo info;
  if (value.size() != 16 || !DecodeFixed64(value.substr(0, 8), &info.bytes) ||
      !DecodeFixed64(value.substr(8, 8), &info.last_access)) {
    return std::nullopt;
  }
  return info;
}

std::string AccessKey(std::uint64_t tick, EntryKind kind, std::string_view key) {
  std::string out;
  out.reserve(kTickSize + 1 + key.size());
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(tick >> shift));
  out.push_back(static_cast<char>(kind));
  out.append(key);
  return out;
}

std::optional<ParsedAccessKey> ParseAccessKey(std::string_view bytes) {
  if (bytes.size() <= kTickSize + 1 || !IsKind(bytes[kTickSize])) return std::nullopt;
  ParsedAccessKey out;
  for (std::size_t i = 0; i < kTickSize; ++i) {
    out.tick = (out.tick << 8) | static_cast<std::uint8_t>(bytes[i]);
  }
  out.kind = static_cast<EntryKind>(bytes[kTickSize]);
  out.key = bytes.substr(kTickSize + 1);
  return out;
}

}  // namespace qdcache::store

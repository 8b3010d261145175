// Redis Cluster key slots: CRC16/XMODEM of the key (or of its hash tag) mod
// 16384, as in the Redis Cluster specification.
#pragma once

#include <cstdint>
#include <string_view>

namespace qdcache::remote {

inline constexpr int kSlotCount = 16384;

// CRC16/XMODEM (polynomial 0x1021, initial value 0): "123456789" -> 0x31C3.
[[nodiscard]] std::uint16_t Crc16(std::string_view data);

// The slot of `key`. When the key holds a '{' followed later by a '}' with at
// least one byte between them, only those bytes (the first such hash tag) are
// hashed, so "{user1000}.a" and "{user1000}.b" share a slot.
[[nodiscard]] int KeySlot(std::string_view key);

}  // namespace qdcache::remote

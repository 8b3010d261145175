#include <catch2/catch.hpp>

#include "remote/cluster_slot.h"

using namespace qdcache::remote;

TEST_CASE("CRC16 is CRC16/XMODEM", "[remote][slot]") {
  CHECK(Crc16("123456789") == 0x31C3);
  CHECK(Crc16("") == 0);
}

TEST_CASE("key slots match the Redis Cluster specification", "[remote][slot]") {
  CHECK(KeySlot("foo") == 12182);
  CHECK(KeySlot("bar") == 5061);
  CHECK(KeySlot("123456789") == 0x31C3 % kSlotCount);
}

TEST_CASE("keys with the same hash tag share a slot", "[remote][slot]") {
  CHECK(KeySlot("{user1000}.following") == KeySlot("{user1000}.followers"));
  CHECK(KeySlot("{user1000}.following") == KeySlot("user1000"));
  // Only the first tag counts; an empty tag means the whole key is hashed.
  CHECK(KeySlot("foo{bar}{zap}") == KeySlot("bar"));
  CHECK(KeySlot("foo{}{bar}") == Crc16("foo{}{bar}") % kSlotCount);  // 8363: the whole key
  CHECK(KeySlot("foo{}{bar}") != KeySlot("bar"));
  CHECK(KeySlot("foo{{bar}}zap") == KeySlot("{bar"));
}

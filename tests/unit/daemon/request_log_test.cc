#include <catch2/catch.hpp>

#include "daemon/request_log.h"

using namespace qdcache;

TEST_CASE("a request's sender is logged by tenant, with its own client name tamed", "[daemon]") {
  const engine::Peer peer{"uid:1000", true};
  v1::RequestHeader header;
  CHECK(daemon::Who(peer, header) == "uid:1000");
  header.set_client("quadrants/1.2");
  CHECK(daemon::Who(peer, header) == "uid:1000 (quadrants/1.2)");
  header.set_client("x\n2026-11-27 [info] forged line");
  CHECK(daemon::Who(peer, header) == "uid:1000 (x?2026-11-27 [info] forged line)");
  header.set_client(std::string(1000, 'a'));
  CHECK(daemon::Who(peer, header) == "uid:1000 (" + std::string(64, 'a') + "...)");
}

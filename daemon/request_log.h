// What the daemon logs about each request: who sent it (at debug level) and
// which artifacts it was served from the cache (at trace level).
#pragma once

#include <string>

#include "engine/engine.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::daemon {

// "uid:1000 (quadrants/1.2)": the authenticated tenant, and the header's
// client name beside it (the sender's own word, never shown alone: at most
// 64 bytes of it, control characters as '?').
[[nodiscard]] std::string Who(const engine::Peer& peer, const v1::RequestHeader& header);

// At trace level: a hit or alias hit, with the artifact's short key and
// target and `who` it went to. Nothing for other results.
void LogHit(const v1::CompileResult& result, const std::string& who);

}  // namespace qdcache::daemon

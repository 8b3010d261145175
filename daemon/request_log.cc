#include "daemon/request_log.h"

#include <spdlog/spdlog.h>

#include "common/digest.h"

namespace qdcache::daemon {

std::string Who(const engine::Peer& peer, const v1::RequestHeader& header) {
  return header.client().empty() ? peer.tenant : peer.tenant + " (" + header.client() + ")";
}

void LogHit(const v1::CompileResult& result, const std::string& who) {
  if (!spdlog::should_log(spdlog::level::trace)) return;
  const v1::CacheStatus s = result.status();
  if (s != v1::CACHE_STATUS_HIT && s != v1::CACHE_STATUS_ALIAS_HIT) return;
  spdlog::trace("{} {} {} for {}", s == v1::CACHE_STATUS_HIT ? "hit" : "alias hit",
                ToHex(result.artifact().artifact_key()).substr(0, 16), result.artifact().target(), who);
}

}  // namespace qdcache::daemon

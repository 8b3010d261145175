#include "daemon/request_log.h"

#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "common/utf8.h"

namespace qdcache::daemon {

std::string Who(const engine::Peer& peer, const v1::RequestHeader& header) {
  if (header.client().empty()) return peer.tenant;
  // The sender's own word: cut short, and no control character that could
  // start a forged log line.
  constexpr std::size_t kMaxClientName = 64;
  std::string client = header.client().substr(0, kMaxClientName);
  for (char& c : client) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (header.client().size() > kMaxClientName) client += "...";
  return peer.tenant + " (" + ValidUtf8(client) + ")";
}

void LogHit(const v1::CompileResult& result, const std::string& who) {
  if (!spdlog::should_log(spdlog::level::trace)) return;
  const v1::CacheStatus s = result.status();
  if (s != v1::CACHE_STATUS_HIT && s != v1::CACHE_STATUS_ALIAS_HIT) return;
  spdlog::trace("{} {} {} for {}", s == v1::CACHE_STATUS_HIT ? "hit" : "alias hit",
                ToHex(result.artifact().artifact_key()).substr(0, 16), result.artifact().target(), who);
}

}  // namespace qdcache::daemon

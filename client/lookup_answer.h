// A Lookup's answer with its payloads where they arrived: over the lean
// transport, views into the daemon's sealed memfd (mapped read-only, not
// copied) or into the frame; over gRPC, in the response's artifacts.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

struct LookupAnswer {
  // One result per query. Where `payloads` is not empty, every artifact's
  // own payload is empty and payloads[i] is result i's.
  v1::LookupResponse response;
  std::vector<std::string_view> payloads;
  // What the views point into (the mapping, the frame); null without views.
  std::shared_ptr<const void> keep;

  // Result i's payload, wherever it is.
  [[nodiscard]] std::string_view payload(int i) const {
    return payloads.empty() ? std::string_view(response.results(i).artifact().payload())
                            : payloads[static_cast<std::size_t>(i)];
  }
};

}  // namespace qdcache::client

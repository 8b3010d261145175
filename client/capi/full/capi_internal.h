// Internals of libqdcache-full.so, the C ABI over the C++ client and gRPC
// (client/capi/full/CMakeLists.txt): what its opaque handles hold. Not
// installed; nothing here crosses the ABI.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/client.h"
#include "client/capi/capi_guard.h"
#include "common/status.h"
#include "qdcache/qdcache.h"
#include "qdcache/v1/qdcache.pb.h"

struct qdcache_options {
  qdcache::client::ClientOptions client;
};

struct qdcache_client {
  std::unique_ptr<qdcache::client::Client> client;
};

struct qdcache_request {
  qdcache::v1::CompileRequest proto;
};

struct qdcache_results {
  // One per item: the wire result, plus its key in hex (kept so the
  // `const char*` handed out lives as long as the results).
  std::vector<qdcache::v1::CompileResult> items;
  std::vector<std::string> key_hex;
  // A lookup over the lean transport: item i's payload, a view into `keep`
  // (the daemon's mapped memfd), its artifact's own left empty. Empty
  // otherwise: payloads are in the artifacts.
  std::vector<std::string_view> payloads;
  std::shared_ptr<const void> keep;
};

namespace qdcache::capi {

// A results handle owning `items` (the key of each artifact in hex beside it).
qdcache_results* NewResults(google::protobuf::RepeatedPtrField<v1::CompileResult>&& items);
// A lookup's results, payloads where they arrived (no copy).
qdcache_results* NewResults(client::LookupAnswer&& answer);
// Item `index`'s payload (it must exist): in its artifact or a view; empty without an artifact.
std::string_view PayloadOf(const qdcache_results& results, std::size_t index);

// `document` as one line of JSON; bytes that are not UTF-8 become U+FFFD.
std::string Dump(const nlohmann::json& document);

}  // namespace qdcache::capi

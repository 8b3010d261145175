// Internals of the C ABI (client/include/qdcache/qdcache.h): what its opaque
// handles hold, and the one way every entry point reports a Status. Not
// installed; nothing here crosses the ABI.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "client/client.h"
#include "client/launch_cpu.h"
#include "client/launch_cuda.h"
#include "client/launch_hip.h"
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
};

struct qdcache_cpu_module {
  qdcache::client::CpuModule module;
};

struct qdcache_cuda_module {
  qdcache::client::CudaModule module;
};

struct qdcache_cuda_buffer {
  qdcache::client::DeviceBuffer buffer;
};

struct qdcache_hip_module {
  qdcache::client::HipModule module;
};

struct qdcache_hip_buffer {
  qdcache::client::HipDeviceBuffer buffer;
};

namespace qdcache::capi {

// Records `status` as this thread's last error ("" when OK) and returns its
// code for the caller to hand back.
qdcache_status Report(const Status& status) noexcept;

// Runs `body` (returning Status), turning an escaping exception into
// RESOURCE_EXHAUSTED (bad_alloc) or INTERNAL: nothing unwinds across the C
// boundary.
template <typename Body>
qdcache_status Guard(Body&& body) {
  try {
    return Report(body());
  } catch (const std::bad_alloc&) {
    return Report(ResourceExhausted("out of memory"));
  } catch (const std::exception& e) {
    return Report(Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    return Report(Internal("unexpected exception"));
  }
}

// INVALID_ARGUMENT "<what> is NULL" unless `pointer` is set.
template <typename T>
Status Required(const T* pointer, const char* what) {
  return pointer != nullptr ? Status::Ok() : InvalidArgument(std::string(what) + " is NULL");
}

// A results handle owning `items` (the key of each artifact in hex beside it).
qdcache_results* NewResults(google::protobuf::RepeatedPtrField<v1::CompileResult>&& items);

// A copy of `text` that qdcache_string_free releases.
char* NewCString(const std::string& text);

// `document` as one line of JSON; bytes that are not UTF-8 become U+FFFD.
std::string Dump(const nlohmann::json& document);

}  // namespace qdcache::capi

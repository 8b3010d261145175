// How every entry point of the C ABI (client/include/qdcache/qdcache.h)
// reports a Status: the code returned, the message as this thread's last
// error; nothing thrown crosses the C boundary. Shared by libqdcache.so and
// libqdcache-full.so, each with its own last error. Not installed.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "common/status.h"
#include "qdcache/qdcache.h"

namespace qdcache::capi {

// A daemon's error code as a qdcache_status: itself when the ABI knows it,
// QDCACHE_UNKNOWN otherwise.
[[nodiscard]] inline int KnownStatusCode(int code) {
  return code > 0 && code <= QDCACHE_UNAUTHENTICATED ? code : QDCACHE_UNKNOWN;
}

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

// Text for a protobuf `string` field: UTF-8, or the daemon refuses the
// whole request with a parse error that names nothing. INVALID_ARGUMENT
// "<what> is not valid UTF-8: ..." otherwise.
Status Utf8(std::string_view text, const char* what);

// A copy of `text` that qdcache_string_free releases.
char* NewCString(const std::string& text);

}  // namespace qdcache::capi

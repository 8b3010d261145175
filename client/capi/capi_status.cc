// Versions, status names and the per-thread last error of the C ABI: in
// libqdcache.so and in libqdcache-full.so, each with its own last error.
#include <string>

#include "client/capi/capi_guard.h"
#include "common/utf8.h"

#ifndef QDCACHE_VERSION_STRING
#error "QDCACHE_VERSION_STRING must be defined by the build"
#endif

namespace qdcache::capi {
namespace {

thread_local std::string last_error;

}  // namespace

qdcache_status Report(const Status& status) noexcept {
  try {
    last_error = status.ok() ? std::string() : status.message();
  } catch (...) {  // no memory for the message: the code still goes back
    last_error.clear();
  }
  return static_cast<qdcache_status>(status.code());
}

Status Utf8(std::string_view text, const char* what) {
  std::string valid = ValidUtf8(text);
  if (valid == text) return Status::Ok();
  return InvalidArgument(std::string(what) + " is not valid UTF-8: \"" + valid + "\"");
}

char* NewCString(const std::string& text) {
  char* copy = new char[text.size() + 1];
  text.copy(copy, text.size());
  copy[text.size()] = '\0';
  return copy;
}

}  // namespace qdcache::capi

extern "C" {

uint32_t qdcache_abi_version(void) { return QDCACHE_ABI_VERSION; }

const char* qdcache_version(void) { return QDCACHE_VERSION_STRING; }

const char* qdcache_status_name(int status) {
  if (status < 0 || status > static_cast<int>(qdcache::Code::kUnauthenticated)) return "UNKNOWN";
  // CodeName's views point at string literals, so they are NUL-terminated.
  return qdcache::CodeName(static_cast<qdcache::Code>(status)).data();
}

const char* qdcache_last_error(void) { return qdcache::capi::last_error.c_str(); }

void qdcache_string_free(char* string) { delete[] string; }

const char* qdcache_cache_status_name(int cache_status) {
  switch (cache_status) {
    case QDCACHE_CACHE_COMPILED: return "compiled";
    case QDCACHE_CACHE_HIT: return "hit";
    case QDCACHE_CACHE_COALESCED: return "coalesced";
    case QDCACHE_CACHE_ALIAS_HIT: return "alias_hit";
    case QDCACHE_CACHE_STAGE_HIT: return "stage_hit";
    case QDCACHE_CACHE_MISS: return "miss";
    case QDCACHE_CACHE_ERROR: return "error";
    default: return "unknown";
  }
}

}  // extern "C"

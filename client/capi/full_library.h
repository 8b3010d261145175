// libqdcache-full.so as libqdcache.so sees it: the C ABI's functions that
// need gRPC or protobuf (compiling, commands, statistics, a lookup the lean
// transport cannot carry, every field of a result), looked up in it once it
// is loaded. libqdcache.so loads it on the first call that needs it, from
// the folder qdcache/ beside itself, and checks that it is of the same
// version; until then a process holds neither gRPC nor protobuf.
//
// A handle of the full library (its options, client, request, results) is
// held by libqdcache.so's own handles as an opaque pointer, and only ever
// passed back to it.
#pragma once

#include <string>

#include "common/expected.h"
#include "qdcache/qdcache.h"

namespace qdcache::capi {

// Every function libqdcache.so hands to the full library.
#define QDCACHE_FULL_FUNCTIONS(X)                                                                                 \
  X(version) X(last_error) X(string_free) X(options_create) X(options_set) X(options_free) X(connect)             \
  X(client_free) X(ping) X(daemon_version) X(stats_json) X(command_json) X(request_create) X(request_free)       \
  X(request_add_kernel) X(request_set) X(compile_option_name) X(request_set_fast_key) X(request_add_entry)        \
  X(request_add_key_extra) X(request_add_header) X(request_add_text) X(request_add_dependency) X(file_sha256)     \
  X(explain_json) X(request_count) X(compile) X(lookup) X(results_count) X(result_cache_status) X(result_error)  \
  X(result_artifact) X(result_ptx) X(result_key) X(result_target) X(result_json) X(results_free)                 \
  X(results_items) X(results_parse) X(result_dependency_count) X(result_dependency)                               \
  X(dependency_file_unchanged) X(results_check_dependencies)

struct FullLibrary {
#define QDCACHE_FULL_POINTER(name) decltype(&::qdcache_##name) name = nullptr;
  QDCACHE_FULL_FUNCTIONS(QDCACHE_FULL_POINTER)
#undef QDCACHE_FULL_POINTER
};

// The full library, loaded on the first call (thread-safe; loaded once, never
// unloaded). FAILED_PRECONDITION naming the file and why when it cannot be
// loaded, lacks a function, or is of another version than this library;
// every later call answers the same.
[[nodiscard]] Expected<const FullLibrary*> Full();

// The full library where a handle of it (a client, request or results it
// made) proves it loaded.
[[nodiscard]] const FullLibrary& LoadedFull();

// `status`, returned by a function of the full library, with the full
// library's last error of this thread as its message.
[[nodiscard]] Status StatusOf(qdcache_status status);

// The full library's string `text` (NULL allowed) moved into one this
// library's qdcache_string_free releases; the full library's is freed.
[[nodiscard]] char* TakeString(const FullLibrary& full, char* text);

}  // namespace qdcache::capi

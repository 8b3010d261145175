// What both libraries of the C ABI (libqdcache.so and libqdcache-full.so)
// check of a caller's input, the same way and in the same words: options by
// name, and a lookup's arguments. Not installed.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "client/client_options.h"
#include "common/expected.h"
#include "common/target.h"

namespace qdcache::capi {

// A client's options before any is set: the C ABI's client name.
[[nodiscard]] client::ClientOptions DefaultOptions();

// qdcache_options_set's checks and change: INVALID_ARGUMENT for a NULL or
// "option NAME: why" for what SetClientOption refuses; `options` is changed
// only on success.
[[nodiscard]] Status SetOption(client::ClientOptions* options, const char* name, const char* value);

// qdcache_lookup's arguments, checked in its order: the NULLs (client, ns,
// target, out: `out_given`), the namespace's UTF-8, the key arrays, the
// target's syntax, each key.
struct LookupArguments {
  Target target;
  std::vector<std::string_view> keys;
};
[[nodiscard]] Expected<LookupArguments> CheckLookup(const void* client, const char* ns, const char* target,
                                                    bool out_given, const void* const* fast_keys,
                                                    const size_t* fast_key_sizes, size_t count);

}  // namespace qdcache::capi

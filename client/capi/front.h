// libqdcache.so's handles (client/include/qdcache/qdcache.h): what a
// program that looks artifacts up and launches them holds without gRPC or
// protobuf, and the full library's handle (full_library.h) where a call
// needed it. Not installed; nothing here crosses the ABI.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "client/capi/capi_guard.h"
#include "client/capi/capi_inputs.h"
#include "client/capi/full_library.h"
#include "lean/lookup_wire.h"
#include "client/client_options.h"
#include "client/lean_socket.h"

struct qdcache_options {
  qdcache::client::ClientOptions client;  // as the full library parses them too
  // Every setting in order, for the full library's options when it connects.
  std::vector<std::pair<std::string, std::string>> settings;
};

struct qdcache_client {
  std::vector<std::pair<std::string, std::string>> settings;
  std::string client_name;
  // Null: the full library serves every call (TCP, TLS, spawning, the lean
  // transport turned off). Else lookups go over it, and the rest to the
  // full library's client, made on the first such call.
  std::unique_ptr<qdcache::client::LeanSocket> lean;
  std::mutex mu;
  qdcache_client* full = nullptr;  // the full library's handle; guarded by mu
  ~qdcache_client();
};

namespace qdcache::capi {

// A lean lookup's answer, or results read from bytes: its items as the C
// ABI reads them, and its payloads. A lean answer's items and payloads view
// into `held` (the answer's body, its inline blob aligned in place, the
// daemon's mapped memfd); parsed bytes' into `body`.
struct LeanResults {
  std::string body;  // bytes qdcache_results_parse was given
  std::shared_ptr<client::LeanSocket::Held> held;
  std::vector<lean::WireResult> items;
  std::vector<std::string_view> payloads;
  // NUL-terminated copies of what is handed out as `const char*`: the
  // error messages, PTX, dependencies (name, digest), made with the
  // results; the keys in hex and targets, made on the first call that
  // reads one (under `texts_once`).
  std::vector<std::string> error;
  std::vector<std::string> ptx;
  std::vector<std::vector<std::pair<std::string, std::string>>> dependencies;
  std::once_flag texts_once;
  std::vector<std::string> key_hex;
  std::vector<std::string> target;
  // Hits qdcache_results_check_dependencies turned into misses.
  std::vector<bool> dropped;
};

}  // namespace qdcache::capi

struct qdcache_results {
  // Exactly one of them: results read here (a lean lookup's, or read from
  // bytes; an item is handed to the full library only for
  // qdcache_result_json), or the full library's (a compile, a lookup it
  // served), read there.
  std::unique_ptr<qdcache::capi::LeanResults> lean;
  qdcache_results* full = nullptr;
  ~qdcache_results();
};

namespace qdcache::capi {

// The full library's client for `client`, made with its settings on the
// first call; the full library's refusal (relayed) otherwise.
[[nodiscard]] Expected<qdcache_client*> FullClient(qdcache_client* client, const FullLibrary** full);

// The full library, and `client`'s client of it (NULL for NULL: the full
// library's function then words the error itself).
struct FullCall {
  const FullLibrary* full = nullptr;
  qdcache_client* client = nullptr;
};
[[nodiscard]] Expected<FullCall> FullFor(qdcache_client* client);

// Runs `call` (full library, its client) -> qdcache_status with `client`'s
// full library client (NULL for NULL: the full library words the error).
template <typename Call>
Status WithFullClient(qdcache_client* client, Call&& call) {
  QDC_ASSIGN_OR_RETURN(const FullCall full, FullFor(client));
  return StatusOf(call(*full.full, full.client));
}

// The same for a call that hands back a string in `*out` (NULL: NULL),
// moved into one of ours.
template <typename Call>
Status StringFromFullClient(qdcache_client* client, char** out, Call&& call) {
  if (out != nullptr) *out = nullptr;
  const FullLibrary* full = nullptr;
  char* text = nullptr;
  Status status = WithFullClient(client, [&](const FullLibrary& f, qdcache_client* c) {
    full = &f;
    return call(f, c, out != nullptr ? &text : nullptr);
  });
  if (full != nullptr && out != nullptr) *out = TakeString(*full, text);
  return status;
}

// Fills the NUL-terminated copies of `out`'s items (error, ptx,
// dependencies) and marks none dropped.
void FillTexts(LeanResults* out);

// A new handle around the full library's results `full` (null: null), or
// around results read here.
[[nodiscard]] qdcache_results* Wrap(qdcache_results* full);
[[nodiscard]] qdcache_results* Wrap(std::unique_ptr<LeanResults> lean);

}  // namespace qdcache::capi

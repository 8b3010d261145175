// The C ABI's calls that libqdcache.so hands to the full library as they
// are: building compile requests (a qdcache_request is the full library's
// own handle), compiling, explaining.
#include "client/capi/front.h"

using qdcache::Status;
using qdcache::capi::Full;
using qdcache::capi::FullLibrary;
using qdcache::capi::Guard;
using qdcache::capi::StatusOf;

namespace {

// Calls the full library's `Function` with `args`, its status and last error as ours.
template <auto Function, typename... Args>
qdcache_status Forward(Args... args) {
  return Guard([&] {
    QDC_ASSIGN_OR_RETURN(const FullLibrary* full, Full());
    return StatusOf((full->*Function)(args...));
  });
}

// Full() when it is loaded or loads; null otherwise (for the calls that
// return no status: what they answer for no input).
const FullLibrary* FullOrNull() {
  auto full = Full();
  return full.ok() ? *full : nullptr;
}

}  // namespace

extern "C" {

qdcache_status qdcache_request_create(qdcache_request** out) {
  if (out != nullptr) *out = nullptr;
  return Forward<&FullLibrary::request_create>(out);
}

void qdcache_request_free(qdcache_request* request) {
  if (request != nullptr) qdcache::capi::LoadedFull().request_free(request);
}

qdcache_status qdcache_request_add_kernel(qdcache_request* request, const void* ir, size_t ir_size,
                                          const char* target, size_t* index) {
  return Forward<&FullLibrary::request_add_kernel>(request, ir, ir_size, target, index);
}

qdcache_status qdcache_request_set(qdcache_request* request, size_t index, const char* name, const char* value) {
  return Forward<&FullLibrary::request_set>(request, index, name, value);
}

const char* qdcache_compile_option_name(size_t index) {
  const FullLibrary* full = FullOrNull();
  return full != nullptr ? full->compile_option_name(index) : nullptr;
}

qdcache_status qdcache_request_set_fast_key(qdcache_request* request, size_t index, const void* key,
                                            size_t key_size) {
  return Forward<&FullLibrary::request_set_fast_key>(request, index, key, key_size);
}

qdcache_status qdcache_request_add_entry(qdcache_request* request, size_t index, const char* name) {
  return Forward<&FullLibrary::request_add_entry>(request, index, name);
}

qdcache_status qdcache_request_add_key_extra(qdcache_request* request, size_t index, const char* name,
                                             const char* value) {
  return Forward<&FullLibrary::request_add_key_extra>(request, index, name, value);
}

qdcache_status qdcache_request_add_header(qdcache_request* request, size_t index, const char* name,
                                          const void* contents, size_t size) {
  return Forward<&FullLibrary::request_add_header>(request, index, name, contents, size);
}

qdcache_status qdcache_request_add_text(qdcache_request* request, size_t index, const char* what,
                                        const char* text) {
  return Forward<&FullLibrary::request_add_text>(request, index, what, text);
}

qdcache_status qdcache_request_add_dependency(qdcache_request* request, size_t index, const char* name,
                                              const void* digest, size_t digest_size) {
  return Forward<&FullLibrary::request_add_dependency>(request, index, name, digest, digest_size);
}

qdcache_status qdcache_file_sha256(const char* path, unsigned char digest[32]) {
  return Forward<&FullLibrary::file_sha256>(path, digest);
}

size_t qdcache_request_count(const qdcache_request* request) {
  return request == nullptr ? 0 : qdcache::capi::LoadedFull().request_count(request);
}

qdcache_status qdcache_explain_json(qdcache_client* client, const qdcache_request* request, char** json) {
  return Guard([&] {
    return qdcache::capi::StringFromFullClient(
        client, json, [&](const FullLibrary& f, qdcache_client* c, char** text) {
          return f.explain_json(c, request, text);
        });
  });
}

qdcache_status qdcache_compile(qdcache_client* client, qdcache_request* request, qdcache_results** out) {
  if (out != nullptr) *out = nullptr;
  return Guard([&] {
    QDC_ASSIGN_OR_RETURN(const qdcache::capi::FullCall call, qdcache::capi::FullFor(client));
    qdcache_results* results = nullptr;
    const Status status = StatusOf(call.full->compile(call.client, request, out ? &results : nullptr));
    if (out != nullptr) *out = qdcache::capi::Wrap(results);
    return status;
  });
}

// SHA-256 is the full library's (OpenSSL): checking files loads it. Without
// it, no file can be said to be unchanged: the hit becomes a miss, never a
// stale artifact.
int qdcache_dependency_file_unchanged(void* user, const char* name, const void* digest, size_t digest_size) {
  const FullLibrary* full = FullOrNull();
  return full != nullptr ? full->dependency_file_unchanged(user, name, digest, digest_size) : 0;
}

}  // extern "C"

// A Lookup's protobuf messages without protobuf, for libqdcache.so's lean
// lookups (client/capi/front_lookup.cc): a qdcache.v1.LookupRequest encoded byte for
// byte as protobuf serializes it, and of a LookupResponse the fields the C
// ABI's results read. Everything else a result holds (metadata, timings,
// entry points) is read by libqdcache-full.so from the same bytes, when a
// caller asks for it (qdcache_result_json).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "common/target.h"

namespace qdcache::lean {

// The serialized LookupRequest of `keys`, all in namespace `ns` for
// `target`, with the protocol header naming `client_name`.
[[nodiscard]] std::string EncodeLookupRequest(std::string_view client_name, const std::vector<std::string_view>& keys,
                                              std::string_view ns, const Target& target, bool include_ptx);

// A serialized LookupRequest less its header's client name, for the
// daemon's kept answers (daemon/lean_answer_memo.h): appends to `*out` the
// request's bytes as sent but that name (every other field in place, the
// header's protocol version among them) and returns the name (the last one
// given, as protobuf reads it; empty when none), a view into `request`.
// The name only labels the caller in the log; nothing left out changes an
// answer. UNAVAILABLE when the bytes are not a message (`*out` then holds
// part of them).
[[nodiscard]] Expected<std::string_view> AppendWithoutClientName(std::string_view request, std::string* out);

struct WireDependency {
  std::string_view name;
  std::string_view digest;
};

// One CompileResult, as far as the C ABI reads it; views into the response.
struct WireResult {
  int status = 0;  // a CacheStatus
  bool has_artifact = false;
  int kind = 0;  // its ArtifactKind
  std::string_view artifact_key;
  std::string_view payload;  // empty in a lean answer, whose payloads travel apart
  std::string_view ptx;
  std::string_view target;
  bool has_error = false;
  int error_code = 0;
  std::string_view error_message;
  std::vector<WireDependency> dependencies;
  std::string_view raw;  // the whole CompileResult
};

// Every result of the serialized LookupResponse `response`, in order, read
// as protobuf reads them (a field given twice: the last scalar, messages
// merged; of the oneof, the last member given). Fields it does not read are
// skipped. UNAVAILABLE when the bytes are not a LookupResponse (a varint or
// a length runs past its end, field number 0, an unknown wire type) or hold
// a group (qdcache.v1 has none). Unlike protobuf it does not check that
// `string` fields are UTF-8 (the daemon's are): such a result reads here, and
// only qdcache_result_json, which parses it with protobuf, refuses it.
[[nodiscard]] Expected<std::vector<WireResult>> DecodeLookupResults(std::string_view response);

// Result `item` for qdcache_results_parse: the CompileResult as it came
// with `payload` (a lean answer's, which travelled apart) in its artifact;
// `dropped`: as a stale hit qdcache_results_check_dependencies turned into
// a miss (no artifact, no dependencies, status MISS). Wrapped as field 1 of
// a LookupResponse: these concatenated are one.
[[nodiscard]] std::string ResultForParse(const WireResult& item, std::string_view payload, bool dropped);

}  // namespace qdcache::lean

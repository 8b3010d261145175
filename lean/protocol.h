// The lean transport's protobuf messages (docs/protocol.md §1.1): a
// request's body as the daemon decodes it, a Lookup (or Compile) answer as
// the daemon encodes it and the C++ client decodes it. The frames around
// them, without protobuf, are lean/frame.h's.
// Pure: encoding and decoding only; the I/O is daemon/lean_server.h's and
// client/lean_socket.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "lean/frame.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::lean {

// A request's body as the server reads it after DecodeRequestHeader: the
// Lookup (or Compile) it carries, UNIMPLEMENTED for a method the daemon
// does not serve, INVALID_ARGUMENT for a body that is not the header's
// length or not a LookupRequest (CompileRequest).
[[nodiscard]] Expected<v1::LookupRequest> DecodeLookup(const RequestHeader& header, std::string_view body);
[[nodiscard]] Expected<v1::CompileRequest> DecodeCompile(const RequestHeader& header, std::string_view body);

// A Lookup answer for the wire: `body` up to and including the offset
// table, and the payloads that make the blob (what follows the table
// inline, or the memfd's contents): payloads[i] at offsets[i], zeros
// between, blob_bytes in all.
struct LookupReply {
  std::string body;
  std::vector<std::string_view> payloads;
  std::vector<std::uint64_t> offsets;
  std::uint64_t blob_bytes = 0;
  std::vector<std::string> owned;  // payloads moved out of the response
};
// Result i's payload is the one in `response` (moved out, no copy: the
// response is left without payloads), or else `payloads[i]` (which must
// outlive the reply; may be shorter).
[[nodiscard]] LookupReply EncodeLookupReply(v1::LookupResponse& response,
                                            const std::vector<std::string_view>& payloads = {});
// Writes the blob to `out`, blob_bytes long and zero-filled.
void CopyBlob(const LookupReply& reply, char* out);

// A Lookup answer's body as the client reads it: the response, every
// artifact's payload still empty, and each result's payload as a view into
// the blob (empty without one). The blob is `memfd_blob` (the passed
// memfd's contents) when the reply came with one, else what follows the
// offset table in `body`. UNAVAILABLE (the daemon broke the protocol) when
// the body does not decode, a payload lies outside the blob or overlaps
// another, or one is given for a result without an artifact or for one
// that carries its payload itself.
struct LookupAnswer {
  v1::LookupResponse response;
  std::vector<std::string_view> payloads;  // one per result
  std::string_view blob;                   // what they are views into
};
[[nodiscard]] Expected<LookupAnswer> DecodeLookupAnswer(std::string_view body,
                                                        std::optional<std::string_view> memfd_blob);
// Makes `response` the one gRPC would have answered: payloads[i] (if not
// empty) copied into result i's artifact.
void InlinePayloads(const std::vector<std::string_view>& payloads, v1::LookupResponse* response);

}  // namespace qdcache::lean

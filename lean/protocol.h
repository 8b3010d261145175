// The lean transport's wire format (docs/protocol.md, "Lean transport"): a
// framed protocol for the read path on the daemon's unix socket, next to
// gRPC. The daemon tells it from HTTP/2 by the connection's first bytes.
//
//   connection: the client sends kHello; the daemon answers kHello.
//   request:    header (8 bytes: u32 body length, little-endian; u8 method;
//               3 zero bytes), then the body: for kLookup a serialized
//               qdcache.v1.LookupRequest, for kCompile a CompileRequest.
//   reply:      header (8 bytes: u32 body length; u8 status code, the gRPC
//               codes; u8 flags, kWithFd: a sealed memfd travels with the
//               header's bytes as SCM_RIGHTS; 2 zero bytes), then the body:
//               an error's message (UTF-8), or for a Lookup:
//                 u32 length | LookupResponse, every artifact's payload empty
//                 | per result: u64 offset, u64 size of its payload
//                 | the payloads, each at its offset (64-byte aligned),
//                   unless they are in the memfd (the same layout there).
//               A Compile's answer has the same layout with a
//               CompileResponse, which on the wire is the same message as a
//               LookupResponse (`repeated CompileResult results = 1`): one
//               encoder and one decoder serve both.
// Pure: encoding and decoding only; the I/O is daemon/lean_server.h's and
// client/lean_channel.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::lean {

inline constexpr std::string_view kHello{"QDCLEAN1", 8};
inline constexpr std::size_t kHeaderBytes = 8;
inline constexpr std::uint8_t kLookup = 1;
inline constexpr std::uint8_t kCompile = 2;
inline constexpr std::uint8_t kWithFd = 1;
// Payloads are laid out at multiples of this (ELF loaders read headers in place).
inline constexpr std::size_t kPayloadAlignment = 64;

// A request header's fields. INVALID_ARGUMENT when a reserved byte is set,
// RESOURCE_EXHAUSTED when the body is longer than `max_body`.
struct RequestHeader {
  std::uint32_t body_bytes = 0;
  std::uint8_t method = 0;
};
[[nodiscard]] Expected<RequestHeader> DecodeRequestHeader(std::string_view header, std::uint64_t max_body);

// A request's body as the server reads it after DecodeRequestHeader: the
// Lookup (or Compile) it carries, UNIMPLEMENTED for a method the daemon
// does not serve, INVALID_ARGUMENT for a body that is not the header's
// length or not a LookupRequest (CompileRequest).
[[nodiscard]] Expected<v1::LookupRequest> DecodeLookup(const RequestHeader& header, std::string_view body);
[[nodiscard]] Expected<v1::CompileRequest> DecodeCompile(const RequestHeader& header, std::string_view body);
// UNIMPLEMENTED unless `method` is one the daemon serves (kLookup, kCompile).
[[nodiscard]] Status CheckMethod(std::uint8_t method);

[[nodiscard]] std::string EncodeReplyHeader(std::uint32_t body_bytes, Code code, std::uint8_t flags);
[[nodiscard]] std::string EncodeRequestHeader(std::uint32_t body_bytes, std::uint8_t method);

// A reply header's fields, as the client reads them. UNAVAILABLE (the
// daemon broke the protocol) when a reserved byte or an unknown flag is
// set, or the code is not a status code.
struct ReplyHeader {
  std::uint32_t body_bytes = 0;
  Code code = Code::kOk;
  std::uint8_t flags = 0;
};
[[nodiscard]] Expected<ReplyHeader> DecodeReplyHeader(std::string_view header);

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

// The lean transport's frames without protobuf (docs/protocol.md §1.1): the
// constants, the request and reply headers, and a Lookup answer's layout
// around its LookupResponse. lean/protocol.h adds the protobuf messages;
// what reads answers without protobuf (libqdcache.so's lookups) uses this
// alone.
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
//               LookupResponse (`repeated CompileResult results = 1`).
// Pure: encoding and decoding only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache::lean {

inline constexpr std::string_view kHello{"QDCLEAN1", 8};
inline constexpr std::size_t kHeaderBytes = 8;
inline constexpr std::uint8_t kLookup = 1;
inline constexpr std::uint8_t kCompile = 2;
inline constexpr std::uint8_t kWithFd = 1;
// Payloads are laid out at multiples of this (ELF loaders read headers in place).
inline constexpr std::size_t kPayloadAlignment = 64;
// Where the next payload starts in a blob whose bytes so far end at `end`.
inline constexpr std::uint64_t AlignedOffset(std::uint64_t end) {
  return (end + kPayloadAlignment - 1) / kPayloadAlignment * kPayloadAlignment;
}

// A request header's fields. INVALID_ARGUMENT when a reserved byte is set,
// RESOURCE_EXHAUSTED when the body is longer than `max_body`.
struct RequestHeader {
  std::uint32_t body_bytes = 0;
  std::uint8_t method = 0;
};
[[nodiscard]] Expected<RequestHeader> DecodeRequestHeader(std::string_view header, std::uint64_t max_body);

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

// A Lookup answer's body split around its LookupResponse: the response's
// bytes, and what follows them (the offset table, then an inline blob).
// UNAVAILABLE when the body is shorter than its length prefix says.
struct AnswerBody {
  std::string_view response;
  std::string_view rest;
};
[[nodiscard]] Expected<AnswerBody> SplitAnswerBody(std::string_view body);

// What a payload may be given to: OK, or why result `i` cannot have one
// (it has no artifact, or carries its payload itself).
using PayloadCheck = std::function<Status(std::size_t i)>;

// OK when result `i` may be given a payload in the blob: it has an artifact
// that does not carry its payload itself; UNAVAILABLE otherwise. What
// PayloadViews' `check` answers, whichever way the result was decoded.
[[nodiscard]] Status MayHavePayload(std::size_t i, bool has_artifact, bool carries_payload);

// Each of the `results` results' payload (empty without one) as a view into
// the blob: `memfd_blob` (the passed memfd's contents) when the reply came
// with one, else what follows the offset table in `body.rest`. `*blob` (may
// be null) receives the blob. UNAVAILABLE (the daemon broke the protocol)
// when the table is cut short, a payload lies outside the blob or overlaps
// another, or `check` refuses result i a payload.
[[nodiscard]] Expected<std::vector<std::string_view>> PayloadViews(const AnswerBody& body, std::size_t results,
                                                                   std::optional<std::string_view> memfd_blob,
                                                                   const PayloadCheck& check,
                                                                   std::string_view* blob = nullptr);

// Little-endian fixed-width integers, as the frames carry them.
void PutU32(std::string& out, std::uint32_t v);
void PutU64(std::string& out, std::uint64_t v);
[[nodiscard]] std::uint32_t GetU32(std::string_view in);  // `in` holds at least 4 bytes
[[nodiscard]] std::uint64_t GetU64(std::string_view in);  // at least 8

}  // namespace qdcache::lean

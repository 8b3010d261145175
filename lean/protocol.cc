#include "lean/protocol.h"

#include <cstring>

namespace qdcache::lean {
namespace {

// The body of a request for `method`, parsed as `Request` (named `name`).
template <typename Request>
Expected<Request> DecodeBody(const RequestHeader& header, std::string_view body, std::uint8_t method,
                             const char* name) {
  QDC_RETURN_IF_ERROR(CheckMethod(header.method));
  if (header.method != method) return Internal(std::string("a lean request decoded as a ") + name + " is not one");
  if (body.size() != header.body_bytes) return InvalidArgument("a lean request's body is not the length its header says");
  Request request;
  if (!request.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return InvalidArgument(std::string("a lean ") + name + "'s body is not a qdcache.v1." + name + "Request");
  }
  return request;
}

}  // namespace

Expected<v1::LookupRequest> DecodeLookup(const RequestHeader& header, std::string_view body) {
  return DecodeBody<v1::LookupRequest>(header, body, kLookup, "Lookup");
}

Expected<v1::CompileRequest> DecodeCompile(const RequestHeader& header, std::string_view body) {
  return DecodeBody<v1::CompileRequest>(header, body, kCompile, "Compile");
}

LookupReply EncodeLookupReply(v1::LookupResponse& response, const std::vector<std::string_view>& payloads) {
  LookupReply reply;
  std::string table;
  const std::size_t n = static_cast<std::size_t>(response.results_size());
  reply.payloads.reserve(n);
  reply.offsets.reserve(n);
  reply.owned.reserve(n);  // never reallocated: payloads views into it
  for (std::size_t i = 0; i < n; ++i) {
    v1::CompileResult& result = *response.mutable_results(static_cast<int>(i));
    std::string_view payload = i < payloads.size() ? payloads[i] : std::string_view();
    if (result.has_artifact() && !result.artifact().payload().empty()) {
      reply.owned.push_back(std::move(*result.mutable_artifact()->mutable_payload()));
      result.mutable_artifact()->clear_payload();
      payload = reply.owned.back();
    }
    const std::uint64_t offset = payload.empty() ? 0 : AlignedOffset(reply.blob_bytes);
    PutU64(table, offset);
    PutU64(table, payload.size());
    if (!payload.empty()) reply.blob_bytes = offset + payload.size();
    reply.offsets.push_back(offset);
    reply.payloads.push_back(payload);
  }
  const std::size_t proto_bytes = response.ByteSizeLong();
  reply.body.reserve(4 + proto_bytes + table.size());
  PutU32(reply.body, static_cast<std::uint32_t>(proto_bytes));
  reply.body.resize(4 + proto_bytes);
  response.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(reply.body.data() + 4));
  reply.body += table;
  return reply;
}

Expected<LookupAnswer> DecodeLookupAnswer(std::string_view body, std::optional<std::string_view> memfd_blob) {
  QDC_ASSIGN_OR_RETURN(const AnswerBody parts, SplitAnswerBody(body));
  LookupAnswer answer;
  v1::LookupResponse& response = answer.response;
  if (!response.ParseFromArray(parts.response.data(), static_cast<int>(parts.response.size()))) {
    return Unavailable("a lean Lookup answer's LookupResponse does not decode");
  }
  auto check = [&](std::size_t i) {
    const v1::CompileResult& result = response.results(static_cast<int>(i));
    return MayHavePayload(i, result.has_artifact(), !result.artifact().payload().empty());
  };
  QDC_ASSIGN_OR_RETURN(answer.payloads, PayloadViews(parts, static_cast<std::size_t>(response.results_size()),
                                                     memfd_blob, check, &answer.blob));
  return answer;
}

void InlinePayloads(const std::vector<std::string_view>& payloads, v1::LookupResponse* response) {
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    if (payloads[i].empty()) continue;
    response->mutable_results(static_cast<int>(i))->mutable_artifact()->set_payload(payloads[i].data(),
                                                                                    payloads[i].size());
  }
}

void CopyBlob(const LookupReply& reply, char* out) {
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < reply.payloads.size(); ++i) {
    const std::string_view payload = reply.payloads[i];
    if (payload.empty()) continue;
    std::memset(out + at, 0, reply.offsets[i] - at);
    std::memcpy(out + reply.offsets[i], payload.data(), payload.size());
    at = reply.offsets[i] + payload.size();
  }
}

}  // namespace qdcache::lean

#include "daemon/lean_protocol.h"

#include <cstring>

namespace qdcache::daemon::lean {
namespace {

void PutU32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutU64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t GetU32(std::string_view in) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

std::string Header(std::uint32_t body_bytes, std::uint8_t byte4, std::uint8_t byte5) {
  std::string out;
  out.reserve(kHeaderBytes);
  PutU32(out, body_bytes);
  out.push_back(static_cast<char>(byte4));
  out.push_back(static_cast<char>(byte5));
  out.append(2, '\0');
  return out;
}

}  // namespace

Expected<RequestHeader> DecodeRequestHeader(std::string_view header, std::uint64_t max_body) {
  if (header.size() != kHeaderBytes) return InvalidArgument("a lean request header is 8 bytes");
  if (header[5] != 0 || header[6] != 0 || header[7] != 0) {
    return InvalidArgument("a lean request header's reserved bytes are not zero");
  }
  RequestHeader out;
  out.body_bytes = GetU32(header);
  out.method = static_cast<std::uint8_t>(header[4]);
  if (out.body_bytes > max_body) {
    return ResourceExhausted("a lean request of " + std::to_string(out.body_bytes) +
                             " bytes is longer than --max-message-bytes (" + std::to_string(max_body) + ")");
  }
  return out;
}

Expected<v1::LookupRequest> DecodeLookup(const RequestHeader& header, std::string_view body) {
  if (header.method != kLookup) {
    return Status(Code::kUnimplemented, "lean method " + std::to_string(header.method) +
                                            " is not served (1: Lookup); use gRPC for the others");
  }
  if (body.size() != header.body_bytes) return InvalidArgument("a lean request's body is not the length its header says");
  v1::LookupRequest request;
  if (!request.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return InvalidArgument("a lean Lookup's body is not a qdcache.v1.LookupRequest");
  }
  return request;
}

std::string EncodeReplyHeader(std::uint32_t body_bytes, Code code, std::uint8_t flags) {
  return Header(body_bytes, static_cast<std::uint8_t>(code), flags);
}

std::string EncodeRequestHeader(std::uint32_t body_bytes, std::uint8_t method) {
  return Header(body_bytes, method, 0);
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
    const std::uint64_t offset =
        payload.empty() ? 0 : (reply.blob_bytes + kPayloadAlignment - 1) / kPayloadAlignment * kPayloadAlignment;
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

}  // namespace qdcache::daemon::lean

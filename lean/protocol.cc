#include "lean/protocol.h"

#include <cstring>

namespace qdcache::lean {
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

std::uint64_t GetU64(std::string_view in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
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

Status CheckMethod(std::uint8_t method) {
  if (method == kLookup || method == kCompile) return Status::Ok();
  return Status(Code::kUnimplemented, "lean method " + std::to_string(method) +
                                          " is not served (1: Lookup, 2: Compile); use gRPC for the others");
}

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

Expected<ReplyHeader> DecodeReplyHeader(std::string_view header) {
  if (header.size() != kHeaderBytes) return Unavailable("a lean reply header is 8 bytes");
  if (header[6] != 0 || header[7] != 0) return Unavailable("a lean reply header's reserved bytes are not zero");
  ReplyHeader out;
  out.body_bytes = GetU32(header);
  const auto code = static_cast<std::uint8_t>(header[4]);
  out.flags = static_cast<std::uint8_t>(header[5]);
  if (code > static_cast<std::uint8_t>(Code::kUnauthenticated)) {
    return Unavailable("a lean reply's status code " + std::to_string(code) + " is not one");
  }
  if ((out.flags & ~kWithFd) != 0) return Unavailable("a lean reply header has unknown flags");
  out.code = static_cast<Code>(code);
  return out;
}

Expected<LookupAnswer> DecodeLookupAnswer(std::string_view body, std::optional<std::string_view> memfd_blob) {
  if (body.size() < 4) return Unavailable("a lean Lookup answer is shorter than its length prefix");
  const std::uint64_t proto_bytes = GetU32(body);
  if (proto_bytes > body.size() - 4) return Unavailable("a lean Lookup answer is shorter than its LookupResponse");
  LookupAnswer answer;
  v1::LookupResponse& response = answer.response;
  if (!response.ParseFromArray(body.data() + 4, static_cast<int>(proto_bytes))) {
    return Unavailable("a lean Lookup answer's LookupResponse does not decode");
  }
  const auto n = static_cast<std::size_t>(response.results_size());
  answer.payloads.resize(n);
  const std::size_t table_at = 4 + proto_bytes;
  if ((body.size() - table_at) / 16 < n) return Unavailable("a lean Lookup answer's offset table is cut short");
  const std::string_view blob = memfd_blob ? *memfd_blob : body.substr(table_at + 16 * n);
  answer.blob = blob;
  std::uint64_t end = 0;  // where the previous payload ended: payloads come in order, apart
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t offset = GetU64(body.substr(table_at + 16 * i));
    const std::uint64_t size = GetU64(body.substr(table_at + 16 * i + 8));
    if (size == 0) continue;
    if (offset < end || offset > blob.size() || size > blob.size() - offset) {
      return Unavailable("a lean Lookup answer's payload " + std::to_string(i) + " lies outside its blob");
    }
    const v1::CompileResult& result = response.results(static_cast<int>(i));
    if (!result.has_artifact()) {
      return Unavailable("a lean Lookup answer gives result " + std::to_string(i) + " a payload but no artifact");
    }
    if (!result.artifact().payload().empty()) {
      return Unavailable("a lean Lookup answer gives result " + std::to_string(i) + " its payload twice");
    }
    answer.payloads[i] = blob.substr(offset, size);
    end = offset + size;
  }
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

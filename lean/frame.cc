#include "lean/frame.h"

namespace qdcache::lean {
namespace {

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

std::string EncodeReplyHeader(std::uint32_t body_bytes, Code code, std::uint8_t flags) {
  return Header(body_bytes, static_cast<std::uint8_t>(code), flags);
}

std::string EncodeRequestHeader(std::uint32_t body_bytes, std::uint8_t method) {
  return Header(body_bytes, method, 0);
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

Expected<AnswerBody> SplitAnswerBody(std::string_view body) {
  if (body.size() < 4) return Unavailable("a lean Lookup answer is shorter than its length prefix");
  const std::uint64_t proto_bytes = GetU32(body);
  if (proto_bytes > body.size() - 4) return Unavailable("a lean Lookup answer is shorter than its LookupResponse");
  return AnswerBody{body.substr(4, proto_bytes), body.substr(4 + proto_bytes)};
}

Status MayHavePayload(std::size_t i, bool has_artifact, bool carries_payload) {
  if (!has_artifact) {
    return Unavailable("a lean Lookup answer gives result " + std::to_string(i) + " a payload but no artifact");
  }
  if (carries_payload) {
    return Unavailable("a lean Lookup answer gives result " + std::to_string(i) + " its payload twice");
  }
  return Status::Ok();
}

Expected<std::vector<std::string_view>> PayloadViews(const AnswerBody& body, std::size_t results,
                                                     std::optional<std::string_view> memfd_blob,
                                                     const PayloadCheck& check, std::string_view* blob_out) {
  const std::string_view table = body.rest;
  if (table.size() / 16 < results) return Unavailable("a lean Lookup answer's offset table is cut short");
  const std::string_view blob = memfd_blob ? *memfd_blob : table.substr(16 * results);
  if (blob_out != nullptr) *blob_out = blob;
  std::vector<std::string_view> payloads(results);
  std::uint64_t end = 0;  // where the previous payload ended: payloads come in order, apart
  for (std::size_t i = 0; i < results; ++i) {
    const std::uint64_t offset = GetU64(table.substr(16 * i));
    const std::uint64_t size = GetU64(table.substr(16 * i + 8));
    if (size == 0) continue;
    if (offset < end || offset > blob.size() || size > blob.size() - offset) {
      return Unavailable("a lean Lookup answer's payload " + std::to_string(i) + " lies outside its blob");
    }
    QDC_RETURN_IF_ERROR(check(i));
    payloads[i] = blob.substr(offset, size);
    end = offset + size;
  }
  return payloads;
}

}  // namespace qdcache::lean

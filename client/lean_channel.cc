#include "client/lean_channel.h"

#include <cstdint>
#include <optional>

#include "lean/protocol.h"

namespace qdcache::client {

LeanChannel::LeanChannel(std::string path, std::string target, std::chrono::milliseconds timeout,
                         std::uint64_t max_body)
    : socket_(std::move(path), std::move(target), timeout, max_body) {}

std::optional<Expected<LookupAnswer>> LeanChannel::Lookup(const v1::LookupRequest& request) {
  return Call(lean::kLookup, request, socket_.timeout());
}

std::optional<Expected<v1::CompileResponse>> LeanChannel::Compile(const v1::CompileRequest& request,
                                                                  std::optional<std::chrono::milliseconds> wait) {
  {
    std::lock_guard lock(mu_);
    if (std::chrono::steady_clock::now() < compile_retry_at_ || compiles_ >= kMaxCompiles) return std::nullopt;
    ++compiles_;
  }
  std::optional<Expected<LookupAnswer>> answer = Call(lean::kCompile, request, wait);
  {
    std::lock_guard lock(mu_);
    --compiles_;
    if (answer && !answer->ok() && answer->status().code() == Code::kUnimplemented) {
      compile_retry_at_ = std::chrono::steady_clock::now() + kRetryAfter;
      return std::nullopt;
    }
  }
  if (!answer) return std::nullopt;
  if (!answer->ok()) return answer->status();
  LookupAnswer& got = answer->value();
  lean::InlinePayloads(got.payloads, &got.response);
  v1::CompileResponse response;
  response.mutable_results()->Swap(got.response.mutable_results());
  return response;
}

std::optional<Expected<LookupAnswer>> LeanChannel::Call(std::uint8_t method,
                                                        const google::protobuf::MessageLite& request,
                                                        std::optional<std::chrono::milliseconds> wait) {
  const std::size_t body_bytes = request.ByteSizeLong();
  if (body_bytes > UINT32_MAX) return std::nullopt;  // gRPC refuses it in its words
  std::string frame = lean::EncodeRequestHeader(static_cast<std::uint32_t>(body_bytes), method);
  frame.resize(lean::kHeaderBytes + body_bytes);
  request.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(frame.data() + lean::kHeaderBytes));
  LookupAnswer answer;
  std::optional<Status> status = socket_.Call(frame, wait, [&](LeanSocket::Reply& reply) -> Status {
    QDC_ASSIGN_OR_RETURN(lean::LookupAnswer decoded, lean::DecodeLookupAnswer(reply.body, reply.memfd));
    if (!reply.memfd) QDC_RETURN_IF_ERROR(reply.AlignInline(decoded.blob, decoded.payloads));
    answer = LookupAnswer{std::move(decoded.response), std::move(decoded.payloads), std::move(reply.held)};
    return Status::Ok();
  });
  if (!status) return std::nullopt;
  if (!status->ok()) return *status;
  return answer;
}

}  // namespace qdcache::client

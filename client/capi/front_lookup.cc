// qdcache_lookup in libqdcache.so: over the lean transport, encoded and
// decoded here without protobuf, payloads left where they arrived (views
// into the daemon's sealed memfd); by the full library when the lean
// transport cannot carry the call, which then answers the same way.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/capi/front.h"
#include "common/target.h"
#include "lean/lookup_wire.h"
#include "lean/frame.h"

namespace qdcache::capi {
namespace {

// The answer in `reply` (the lean frame's body, lean/frame.h) as results:
// UNAVAILABLE when it is not a Lookup answer.
Status ReadAnswer(client::LeanSocket::Reply& reply, LeanResults* out) {
  QDC_ASSIGN_OR_RETURN(const lean::AnswerBody parts, lean::SplitAnswerBody(reply.body));
  QDC_ASSIGN_OR_RETURN(out->items, lean::DecodeLookupResults(parts.response));
  auto check = [&](std::size_t i) {
    return lean::MayHavePayload(i, out->items[i].has_artifact, !out->items[i].payload.empty());
  };
  std::string_view blob;
  QDC_ASSIGN_OR_RETURN(out->payloads, lean::PayloadViews(parts, out->items.size(), reply.memfd, check, &blob));
  if (!reply.memfd) QDC_RETURN_IF_ERROR(reply.AlignInline(blob, out->payloads));
  out->held = std::move(reply.held);
  FillTexts(out);
  return Status::Ok();
}

}  // namespace

void FillTexts(LeanResults* out) {
  // NUL-terminated copies of what the C ABI hands out as `const char*`:
  // made here only where there is one (a warm start's hits have none).
  const std::size_t n = out->items.size();
  out->error.resize(n);
  out->ptx.resize(n);
  out->dependencies.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const lean::WireResult& item = out->items[i];
    if (item.has_error) out->error[i] = item.error_message;
    if (item.has_artifact) out->ptx[i] = item.ptx;
    for (const lean::WireDependency& d : item.dependencies) out->dependencies[i].emplace_back(d.name, d.digest);
  }
  out->dropped.assign(n, false);
}

namespace {

// The lean transport's answer to the lookup; nullopt when it cannot carry it.
std::optional<Expected<std::unique_ptr<LeanResults>>> LeanLookup(qdcache_client* client, const std::string& body,
                                                                 std::size_t asked) {
  client::LeanSocket& socket = *client->lean;
  if (!socket.enabled() || body.size() > UINT32_MAX) return std::nullopt;
  std::string frame = lean::EncodeRequestHeader(static_cast<std::uint32_t>(body.size()), lean::kLookup);
  frame += body;
  auto results = std::make_unique<LeanResults>();
  std::optional<Status> status = socket.Call(frame, socket.timeout(), [&](client::LeanSocket::Reply& reply) {
    return ReadAnswer(reply, results.get());
  });
  if (!status) return std::nullopt;
  if (!status->ok()) return *status;
  if (results->items.size() != asked) {
    return Internal(socket.target() + " answered " + std::to_string(results->items.size()) + " of " +
                    std::to_string(asked) + " lookups");
  }
  return results;
}

}  // namespace
}  // namespace qdcache::capi

using qdcache::Status;
using qdcache::capi::Guard;

extern "C" {

qdcache_status qdcache_lookup(qdcache_client* client, const char* ns, const char* target,
                              const void* const* fast_keys, const size_t* fast_key_sizes, size_t count,
                              int include_ptx, qdcache_results** out) {
  if (out != nullptr) *out = nullptr;
  return Guard([&] {
    QDC_ASSIGN_OR_RETURN(const qdcache::capi::LookupArguments args,
                         qdcache::capi::CheckLookup(client, ns, target, out != nullptr, fast_keys, fast_key_sizes,
                                                    count));
    if (client->lean != nullptr) {
      const std::string body =
          qdcache::lean::EncodeLookupRequest(client->client_name, args.keys, ns, args.target, include_ptx != 0);
      if (auto answer = qdcache::capi::LeanLookup(client, body, count)) {
        if (!answer->ok()) return answer->status();
        *out = qdcache::capi::Wrap(std::move(answer->value()));
        return Status::Ok();
      }
    }
    QDC_ASSIGN_OR_RETURN(const qdcache::capi::FullCall call, qdcache::capi::FullFor(client));
    qdcache_results* found = nullptr;
    const Status status = qdcache::capi::StatusOf(
        call.full->lookup(call.client, ns, target, fast_keys, fast_key_sizes, count, include_ptx, &found));
    *out = qdcache::capi::Wrap(found);
    return status;
  });
}

qdcache_status qdcache_results_parse(const void* response, size_t size, qdcache_results** out) {
  if (out != nullptr) *out = nullptr;
  return Guard([&] {
    QDC_RETURN_IF_ERROR(qdcache::capi::Required(out, "out"));
    if (response == nullptr && size != 0) return qdcache::InvalidArgument("response is NULL");
    auto parsed = std::make_unique<qdcache::capi::LeanResults>();
    if (size != 0) parsed->body.assign(static_cast<const char*>(response), size);
    auto items = qdcache::lean::DecodeLookupResults(parsed->body);
    if (!items.ok()) return qdcache::InvalidArgument("the bytes are not a serialized qdcache.v1.LookupResponse");
    parsed->items = std::move(*items);
    // Payloads where the bytes hold them: in the artifacts (a lean answer's
    // read as empty).
    for (const qdcache::lean::WireResult& item : parsed->items) parsed->payloads.push_back(item.payload);
    qdcache::capi::FillTexts(parsed.get());
    *out = qdcache::capi::Wrap(std::move(parsed));
    return Status::Ok();
  });
}

}  // extern "C"

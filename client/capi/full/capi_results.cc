// Reading compile and lookup results through the C ABI.
#include <cstring>
#include <string>

#include "client/capi/full/capi_internal.h"
#include "client/dependencies.h"
#include "client/json_views.h"
#include "client/proto_json.h"
#include "common/digest.h"

namespace qdcache::capi {
namespace {

const v1::CompileResult* At(const qdcache_results* results, std::size_t index) {
  if (results == nullptr || index >= results->items.size()) return nullptr;
  return &results->items[index];
}

Status OutOfRange(const qdcache_results* results, std::size_t index) {
  if (results == nullptr) return InvalidArgument("results is NULL");
  return Status(Code::kOutOfRange, "no item " + std::to_string(index) + " in results of " +
                                       std::to_string(results->items.size()));
}

}  // namespace

qdcache_results* NewResults(google::protobuf::RepeatedPtrField<v1::CompileResult>&& items) {
  auto* results = new qdcache_results;
  results->items.reserve(static_cast<std::size_t>(items.size()));
  results->key_hex.reserve(static_cast<std::size_t>(items.size()));
  for (v1::CompileResult& item : items) {
    results->key_hex.push_back(item.has_artifact() ? ToHex(item.artifact().artifact_key()) : std::string());
    results->items.push_back(std::move(item));
  }
  return results;
}

qdcache_results* NewResults(client::LookupAnswer&& answer) {
  qdcache_results* results = NewResults(std::move(*answer.response.mutable_results()));
  results->payloads = std::move(answer.payloads);
  results->keep = std::move(answer.keep);
  return results;
}

std::string Dump(const nlohmann::json& document) {
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string_view PayloadOf(const qdcache_results& results, std::size_t index) {
  const v1::CompileResult& item = results.items[index];
  if (!item.has_artifact()) return {};  // a stale hit dropped since, or none
  return results.payloads.empty() ? std::string_view(item.artifact().payload()) : results.payloads[index];
}

}  // namespace qdcache::capi

using qdcache::Status;
using qdcache::capi::At;
using qdcache::capi::Guard;
using qdcache::capi::Required;

extern "C" {

size_t qdcache_results_count(const qdcache_results* results) {
  return results == nullptr ? 0 : results->items.size();
}

int qdcache_result_cache_status(const qdcache_results* results, size_t index) {
  const qdcache::v1::CompileResult* item = At(results, index);
  return item == nullptr ? 0 : static_cast<int>(item->status());
}

qdcache_status qdcache_result_error(const qdcache_results* results, size_t index, const char** message) {
  if (message != nullptr) *message = "";
  return Guard([&] {
    const qdcache::v1::CompileResult* item = At(results, index);
    if (item == nullptr) return qdcache::capi::OutOfRange(results, index);
    if (!item->has_error()) return Status::Ok();
    if (message != nullptr) *message = item->error().message().c_str();
    const int code = item->error().code();
    // The item's code, with its message as this thread's last error too.
    return Status(static_cast<qdcache::Code>(qdcache::capi::KnownStatusCode(code)),
                  item->error().message());
  });
}

qdcache_status qdcache_result_artifact(const qdcache_results* results, size_t index, int* kind,
                                       const void** payload, size_t* payload_size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(payload, "payload"));
    QDC_RETURN_IF_ERROR(Required(payload_size, "payload_size"));
    if (kind != nullptr) *kind = 0;
    *payload = nullptr;
    *payload_size = 0;
    const qdcache::v1::CompileResult* item = At(results, index);
    if (item == nullptr) return qdcache::capi::OutOfRange(results, index);
    if (!item->has_artifact()) {
      return qdcache::NotFound("item " + std::to_string(index) + " has no artifact (" +
                               qdcache_cache_status_name(item->status()) + ")");
    }
    if (kind != nullptr) *kind = static_cast<int>(item->artifact().kind());
    const std::string_view bytes = qdcache::capi::PayloadOf(*results, index);
    *payload = bytes.data();
    *payload_size = bytes.size();
    return Status::Ok();
  });
}

qdcache_status qdcache_results_items(const qdcache_results* results, size_t first, size_t count,
                                     qdcache_item* items, size_t item_size) {
  return Guard([&] {
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    if (count == 0) return Status::Ok();
    QDC_RETURN_IF_ERROR(Required(items, "items"));
    if (item_size < sizeof(qdcache_item)) {
      return qdcache::InvalidArgument("item_size " + std::to_string(item_size) + " is smaller than ABI 1.7's " +
                                      std::to_string(sizeof(qdcache_item)));
    }
    const std::size_t n = results->items.size();
    if (first > n || count > n - first) {
      return Status(qdcache::Code::kOutOfRange, "items " + std::to_string(first) + " to " +
                                                    std::to_string(first + count) + " pass the end of results of " +
                                                    std::to_string(n));
    }
    for (std::size_t i = 0; i < count; ++i) {
      const qdcache::v1::CompileResult& item = results->items[first + i];
      qdcache_item out{};
      out.cache_status = static_cast<int>(item.status());
      if (item.has_error()) {
        const int code = item.error().code();
        out.error_code = qdcache::capi::KnownStatusCode(code);
      }
      if (item.has_artifact()) {
        const std::string_view bytes = qdcache::capi::PayloadOf(*results, first + i);
        out.kind = static_cast<int>(item.artifact().kind());
        out.payload = bytes.data();
        out.payload_size = bytes.size();
      }
      // The caller's struct may be longer (a later ABI's): its extra fields
      // are not ours to write.
      std::memcpy(reinterpret_cast<char*>(items) + i * item_size, &out, sizeof(out));
    }
    return Status::Ok();
  });
}

qdcache_status qdcache_results_parse(const void* response, size_t size, qdcache_results** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    if (response == nullptr && size != 0) return qdcache::InvalidArgument("response is NULL");
    qdcache::v1::LookupResponse parsed;
    if (size > static_cast<size_t>(INT32_MAX) || !parsed.ParseFromArray(response, static_cast<int>(size))) {
      return qdcache::InvalidArgument("the bytes are not a serialized qdcache.v1.LookupResponse");
    }
    *out = qdcache::capi::NewResults(std::move(*parsed.mutable_results()));
    return Status::Ok();
  });
}

qdcache_status qdcache_result_ptx(const qdcache_results* results, size_t index, const char** ptx,
                                  size_t* size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(ptx, "ptx"));
    QDC_RETURN_IF_ERROR(Required(size, "size"));
    *ptx = "";
    *size = 0;
    const qdcache::v1::CompileResult* item = At(results, index);
    if (item == nullptr) return qdcache::capi::OutOfRange(results, index);
    if (item->has_artifact()) {
      *ptx = item->artifact().ptx().c_str();
      *size = item->artifact().ptx().size();
    }
    return Status::Ok();
  });
}

const char* qdcache_result_key(const qdcache_results* results, size_t index) {
  return At(results, index) == nullptr ? "" : results->key_hex[index].c_str();
}

const char* qdcache_result_target(const qdcache_results* results, size_t index) {
  const qdcache::v1::CompileResult* item = At(results, index);
  return item == nullptr || !item->has_artifact() ? "" : item->artifact().target().c_str();
}

qdcache_status qdcache_result_json(const qdcache_results* results, size_t index, char** json) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(json, "json"));
    *json = nullptr;
    const qdcache::v1::CompileResult* item = At(results, index);
    if (item == nullptr) return qdcache::capi::OutOfRange(results, index);
    nlohmann::json out = nlohmann::json::object();
    out["status"] = qdcache_cache_status_name(item->status());
    out["artifact"] = nullptr;
    out["error"] = nullptr;
    if (item->has_artifact()) {
      out["artifact"] = qdcache::client::ProtoToJson(item->artifact(), {"payload", "ptx"});
      out["artifact"]["payload_size"] = qdcache::capi::PayloadOf(*results, index).size();
      // What the backend does not know (a CPU kernel's registers: -1) is left out.
      out["artifact"]["entries"] = qdcache::client::EntriesJson(item->artifact().entries());
    }
    if (item->has_error()) out["error"] = qdcache::client::ProtoToJson(item->error());
    // Since ABI 1.5: fast-key conflict, miss reason, dependencies (null / [] when none).
    out["alias_conflict"] =
        item->has_alias_conflict() ? qdcache::client::ProtoToJson(item->alias_conflict()) : nlohmann::json(nullptr);
    out["miss_reason"] =
        item->has_miss_reason() ? qdcache::client::ProtoToJson(item->miss_reason()) : nlohmann::json(nullptr);
    out["dependencies"] = nlohmann::json::array();
    for (const qdcache::v1::Dependency& d : item->dependencies()) {
      out["dependencies"].push_back(qdcache::client::ProtoToJson(d));
    }
    *json = qdcache::capi::NewCString(qdcache::capi::Dump(out));
    return Status::Ok();
  });
}

void qdcache_results_free(qdcache_results* results) { delete results; }

size_t qdcache_result_dependency_count(const qdcache_results* results, size_t index) {
  const qdcache::v1::CompileResult* item = At(results, index);
  return item == nullptr ? 0 : static_cast<size_t>(item->dependencies_size());
}

qdcache_status qdcache_result_dependency(const qdcache_results* results, size_t index, size_t i, const char** name,
                                         const void** digest, size_t* digest_size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(digest, "digest"));
    QDC_RETURN_IF_ERROR(Required(digest_size, "digest_size"));
    const qdcache::v1::CompileResult* item = At(results, index);
    if (item == nullptr) return qdcache::capi::OutOfRange(results, index);
    if (i >= static_cast<size_t>(item->dependencies_size())) {
      return Status(qdcache::Code::kOutOfRange, "no dependency " + std::to_string(i) + " in item " +
                                                    std::to_string(index) + " (it has " +
                                                    std::to_string(item->dependencies_size()) + ")");
    }
    const qdcache::v1::Dependency& d = item->dependencies(static_cast<int>(i));
    *name = d.name().c_str();
    *digest = d.digest().data();
    *digest_size = d.digest().size();
    return Status::Ok();
  });
}

int qdcache_dependency_file_unchanged(void* /*user*/, const char* name, const void* digest, size_t digest_size) {
  if (name == nullptr || digest == nullptr) return 0;
  return qdcache::client::FileUnchanged(name, std::string(static_cast<const char*>(digest), digest_size)) ? 1 : 0;
}

qdcache_status qdcache_results_check_dependencies(qdcache_results* results, qdcache_dependency_check check,
                                                  void* user, size_t* stale) {
  return Guard([&] {
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    if (check == nullptr) return qdcache::InvalidArgument("check is NULL");
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < results->items.size(); ++i) {
      const bool was_stale =
          qdcache::client::DropIfStale(&results->items[i], [&](const std::string& name, const std::string& digest) {
            return check(user, name.c_str(), digest.data(), digest.size()) != 0;
          });
      if (was_stale) {
        results->key_hex[i].clear();
        ++dropped;
      }
    }
    if (stale != nullptr) *stale = dropped;
    return Status::Ok();
  });
}

}  // extern "C"

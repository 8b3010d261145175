// Reading results in libqdcache.so: a lean lookup's here (but for
// qdcache_result_json, for which the item goes to the full library), the
// full library's there.
#include <cstring>
#include <string>

#include "client/capi/front.h"
#include "common/hex.h"

namespace qdcache::capi {
namespace {

constexpr int kAliasHit = QDCACHE_CACHE_ALIAS_HIT;
constexpr int kMiss = QDCACHE_CACHE_MISS;

bool HasArtifact(const LeanResults& r, std::size_t i) { return r.items[i].has_artifact && !r.dropped[i]; }

Status OutOfRange(std::size_t index, std::size_t n) {
  return Status(Code::kOutOfRange, "no item " + std::to_string(index) + " in results of " + std::to_string(n));
}

// The keys in hex and the targets, made once; false when there was no
// memory for them (nothing escapes into C).
bool MakeTexts(LeanResults& r) noexcept {
  try {
    std::call_once(r.texts_once, [&] {
      r.key_hex.resize(r.items.size());
      r.target.resize(r.items.size());
      for (std::size_t i = 0; i < r.items.size(); ++i) {
        if (!r.items[i].has_artifact) continue;
        r.key_hex[i] = ToHex(r.items[i].artifact_key);
        r.target[i] = r.items[i].target;
      }
    });
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

qdcache_results* Wrap(std::unique_ptr<LeanResults> lean) {
  auto results = std::make_unique<qdcache_results>();
  results->lean = std::move(lean);
  return results.release();
}

qdcache_results* Wrap(qdcache_results* full) {
  if (full == nullptr) return nullptr;
  try {
    auto* results = new qdcache_results;
    results->full = full;
    return results;
  } catch (...) {
    LoadedFull().results_free(full);
    throw;
  }
}

}  // namespace qdcache::capi

qdcache_results::~qdcache_results() {
  if (full != nullptr) qdcache::capi::LoadedFull().results_free(full);
}

using qdcache::Status;
using qdcache::capi::Guard;
using qdcache::capi::LeanResults;
using qdcache::capi::LoadedFull;
using qdcache::capi::Required;
using qdcache::capi::StatusOf;

extern "C" {

size_t qdcache_results_count(const qdcache_results* results) {
  if (results == nullptr) return 0;
  if (qdcache_results* full = results->full) return LoadedFull().results_count(full);
  return results->lean->items.size();
}

int qdcache_result_cache_status(const qdcache_results* results, size_t index) {
  if (results == nullptr) return 0;
  if (qdcache_results* full = results->full) return LoadedFull().result_cache_status(full, index);
  const LeanResults& r = *results->lean;
  if (index >= r.items.size()) return 0;
  return r.dropped[index] ? qdcache::capi::kMiss : r.items[index].status;
}

qdcache_status qdcache_result_error(const qdcache_results* results, size_t index, const char** message) {
  if (message != nullptr) *message = "";
  return Guard([&] {
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    if (qdcache_results* full = results->full) {
      return StatusOf(LoadedFull().result_error(full, index, message));
    }
    const LeanResults& r = *results->lean;
    if (index >= r.items.size()) return qdcache::capi::OutOfRange(index, r.items.size());
    const qdcache::lean::WireResult& item = r.items[index];
    if (!item.has_error) return Status::Ok();
    if (message != nullptr) *message = r.error[index].c_str();
    const int code = item.error_code;
    // The item's code, with its message as this thread's last error too.
    return Status(static_cast<qdcache::Code>(qdcache::capi::KnownStatusCode(code)),
                  r.error[index]);
  });
}

qdcache_status qdcache_result_artifact(const qdcache_results* results, size_t index, int* kind,
                                       const void** payload, size_t* payload_size) {
  return Guard([&] {
    if (results != nullptr) {
      if (qdcache_results* full = results->full) {
        return StatusOf(LoadedFull().result_artifact(full, index, kind, payload, payload_size));
      }
    }
    QDC_RETURN_IF_ERROR(Required(payload, "payload"));
    QDC_RETURN_IF_ERROR(Required(payload_size, "payload_size"));
    if (kind != nullptr) *kind = 0;
    *payload = nullptr;
    *payload_size = 0;
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    const LeanResults& r = *results->lean;
    if (index >= r.items.size()) return qdcache::capi::OutOfRange(index, r.items.size());
    if (!qdcache::capi::HasArtifact(r, index)) {
      return qdcache::NotFound("item " + std::to_string(index) + " has no artifact (" +
                               qdcache_cache_status_name(qdcache_result_cache_status(results, index)) + ")");
    }
    if (kind != nullptr) *kind = r.items[index].kind;
    *payload = r.payloads[index].data();
    *payload_size = r.payloads[index].size();
    return Status::Ok();
  });
}

qdcache_status qdcache_results_items(const qdcache_results* results, size_t first, size_t count,
                                     qdcache_item* items, size_t item_size) {
  return Guard([&] {
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    if (qdcache_results* full = results->full) {
      return StatusOf(LoadedFull().results_items(full, first, count, items, item_size));
    }
    if (count == 0) return Status::Ok();
    QDC_RETURN_IF_ERROR(Required(items, "items"));
    if (item_size < sizeof(qdcache_item)) {
      return qdcache::InvalidArgument("item_size " + std::to_string(item_size) + " is smaller than ABI 1.7's " +
                                      std::to_string(sizeof(qdcache_item)));
    }
    const LeanResults& r = *results->lean;
    const std::size_t n = r.items.size();
    if (first > n || count > n - first) {
      return Status(qdcache::Code::kOutOfRange, "items " + std::to_string(first) + " to " +
                                                    std::to_string(first + count) + " pass the end of results of " +
                                                    std::to_string(n));
    }
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t at = first + i;
      const qdcache::lean::WireResult& item = r.items[at];
      qdcache_item out{};
      out.cache_status = r.dropped[at] ? qdcache::capi::kMiss : item.status;
      if (item.has_error) {
        const int code = item.error_code;
        out.error_code = qdcache::capi::KnownStatusCode(code);
      }
      if (qdcache::capi::HasArtifact(r, at)) {
        out.kind = item.kind;
        out.payload = r.payloads[at].data();
        out.payload_size = r.payloads[at].size();
      }
      // The caller's struct may be longer (a later ABI's): its extra fields
      // are not ours to write.
      std::memcpy(reinterpret_cast<char*>(items) + i * item_size, &out, sizeof(out));
    }
    return Status::Ok();
  });
}

qdcache_status qdcache_result_ptx(const qdcache_results* results, size_t index, const char** ptx, size_t* size) {
  return Guard([&] {
    if (results != nullptr) {
      if (qdcache_results* full = results->full) {
        return StatusOf(LoadedFull().result_ptx(full, index, ptx, size));
      }
    }
    QDC_RETURN_IF_ERROR(Required(ptx, "ptx"));
    QDC_RETURN_IF_ERROR(Required(size, "size"));
    *ptx = "";
    *size = 0;
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    const LeanResults& r = *results->lean;
    if (index >= r.items.size()) return qdcache::capi::OutOfRange(index, r.items.size());
    if (qdcache::capi::HasArtifact(r, index)) {
      *ptx = r.ptx[index].c_str();
      *size = r.ptx[index].size();
    }
    return Status::Ok();
  });
}

const char* qdcache_result_key(const qdcache_results* results, size_t index) {
  if (results == nullptr) return "";
  if (qdcache_results* full = results->full) return LoadedFull().result_key(full, index);
  LeanResults& r = *results->lean;
  if (index >= r.items.size() || !qdcache::capi::MakeTexts(r)) return "";
  return r.dropped[index] ? "" : r.key_hex[index].c_str();
}

const char* qdcache_result_target(const qdcache_results* results, size_t index) {
  if (results == nullptr) return "";
  if (qdcache_results* full = results->full) return LoadedFull().result_target(full, index);
  LeanResults& r = *results->lean;
  if (index >= r.items.size() || !qdcache::capi::MakeTexts(r)) return "";
  return qdcache::capi::HasArtifact(r, index) ? r.target[index].c_str() : "";
}

qdcache_status qdcache_result_json(const qdcache_results* results, size_t index, char** json) {
  if (json != nullptr) *json = nullptr;
  return Guard([&] {
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    QDC_ASSIGN_OR_RETURN(const qdcache::capi::FullLibrary* full, qdcache::capi::Full());
    qdcache_results* handle = results->full;
    std::size_t at = index;
    if (handle == nullptr) {
      // A lean item: handed to the full library alone, with its payload (read
      // here for its size), as the result it is.
      const LeanResults& r = *results->lean;
      if (index >= r.items.size()) return qdcache::capi::OutOfRange(index, r.items.size());
      const std::string item = qdcache::lean::ResultForParse(r.items[index], r.payloads[index], r.dropped[index]);
      QDC_RETURN_IF_ERROR(StatusOf(full->results_parse(item.data(), item.size(), &handle)));
      at = 0;
    }
    char* text = nullptr;
    const Status status = StatusOf(full->result_json(handle, at, json ? &text : nullptr));
    if (handle != results->full) full->results_free(handle);
    if (json != nullptr) *json = qdcache::capi::TakeString(*full, text);
    return status;
  });
}

void qdcache_results_free(qdcache_results* results) { delete results; }

size_t qdcache_result_dependency_count(const qdcache_results* results, size_t index) {
  if (results == nullptr) return 0;
  if (qdcache_results* full = results->full) return LoadedFull().result_dependency_count(full, index);
  const LeanResults& r = *results->lean;
  if (index >= r.items.size() || r.dropped[index]) return 0;
  return r.dependencies[index].size();
}

qdcache_status qdcache_result_dependency(const qdcache_results* results, size_t index, size_t i, const char** name,
                                         const void** digest, size_t* digest_size) {
  return Guard([&] {
    if (results != nullptr) {
      if (qdcache_results* full = results->full) {
        return StatusOf(LoadedFull().result_dependency(full, index, i, name, digest, digest_size));
      }
    }
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(digest, "digest"));
    QDC_RETURN_IF_ERROR(Required(digest_size, "digest_size"));
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    const LeanResults& r = *results->lean;
    if (index >= r.items.size()) return qdcache::capi::OutOfRange(index, r.items.size());
    const std::size_t n = qdcache_result_dependency_count(results, index);
    if (i >= n) {
      return Status(qdcache::Code::kOutOfRange, "no dependency " + std::to_string(i) + " in item " +
                                                    std::to_string(index) + " (it has " + std::to_string(n) + ")");
    }
    const auto& [dependency_name, dependency_digest] = r.dependencies[index][i];
    *name = dependency_name.c_str();
    *digest = dependency_digest.data();
    *digest_size = dependency_digest.size();
    return Status::Ok();
  });
}

qdcache_status qdcache_results_check_dependencies(qdcache_results* results, qdcache_dependency_check check,
                                                  void* user, size_t* stale) {
  return Guard([&] {
    if (results == nullptr) return qdcache::InvalidArgument("results is NULL");
    if (qdcache_results* full = results->full) {
      return StatusOf(LoadedFull().results_check_dependencies(full, check, user, stale));
    }
    if (check == nullptr) return qdcache::InvalidArgument("check is NULL");
    LeanResults& r = *results->lean;
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      if (r.dropped[i] || r.items[i].status != qdcache::capi::kAliasHit) continue;
      for (const auto& [name, digest] : r.dependencies[i]) {
        if (check(user, name.c_str(), digest.data(), digest.size()) == 0) {
          r.dropped[i] = true;
          ++dropped;
          break;
        }
      }
    }
    if (stale != nullptr) *stale = dropped;
    return Status::Ok();
  });
}

}  // extern "C"

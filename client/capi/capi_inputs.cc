#include "client/capi/capi_inputs.h"

#include <string>

#include "client/capi/capi_guard.h"

namespace qdcache::capi {

client::ClientOptions DefaultOptions() {
  client::ClientOptions o;
  o.client_name = "qdcache-c";
  return o;
}

Status SetOption(client::ClientOptions* options, const char* name, const char* value) {
  QDC_RETURN_IF_ERROR(Required(options, "options"));
  QDC_RETURN_IF_ERROR(Required(name, "name"));
  QDC_RETURN_IF_ERROR(Required(value, "value"));
  // Set a copy, so a refused value leaves the option as it was.
  client::ClientOptions changed = *options;
  Status status = client::SetClientOption(changed, name, value);
  if (!status.ok()) return InvalidArgument("option " + std::string(name) + ": " + status.message());
  *options = std::move(changed);
  return Status::Ok();
}

Expected<LookupArguments> CheckLookup(const void* client, const char* ns, const char* target, bool out_given,
                                      const void* const* fast_keys, const size_t* fast_key_sizes, size_t count) {
  QDC_RETURN_IF_ERROR(Required(client, "client"));
  QDC_RETURN_IF_ERROR(Required(ns, "ns"));
  QDC_RETURN_IF_ERROR(Required(target, "target"));
  if (!out_given) return InvalidArgument("out is NULL");
  QDC_RETURN_IF_ERROR(Utf8(ns, "namespace"));
  if (count != 0 && (fast_keys == nullptr || fast_key_sizes == nullptr)) {
    return InvalidArgument("fast_keys or fast_key_sizes is NULL");
  }
  LookupArguments args;
  QDC_ASSIGN_OR_RETURN(args.target, ParseTarget(target));
  args.keys.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (fast_keys[i] == nullptr && fast_key_sizes[i] != 0) {
      return InvalidArgument("fast key " + std::to_string(i) + " is NULL");
    }
    args.keys.emplace_back(static_cast<const char*>(fast_keys[i]), fast_key_sizes[i]);
  }
  return args;
}

}  // namespace qdcache::capi

// Building compile requests, compiling and looking up, for the C ABI.
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "client/capi/capi_inputs.h"
#include "client/capi/full/capi_internal.h"
#include "client/dependencies.h"
#include "client/fast_key.h"
#include "client/json_views.h"
#include "client/wire_kind.h"
#include "client/wire_options.h"
#include "client/wire_target.h"
#include "common/digest.h"
#include "common/units.h"
#include "common/utf8.h"

namespace qdcache::capi {
namespace {

Expected<v1::KernelDescriptor*> KernelAt(qdcache_request* request, std::size_t index) {
  if (request == nullptr) return InvalidArgument("request is NULL");
  if (index >= static_cast<std::size_t>(request->proto.kernels_size())) {
    return Status(Code::kOutOfRange, "no kernel " + std::to_string(index) + " in a request of " +
                                         std::to_string(request->proto.kernels_size()));
  }
  return request->proto.mutable_kernels(static_cast<int>(index));
}

Status SetFlag(std::string_view value, bool* out) {
  Expected<bool> on = ParseBool(value);
  if (!on.ok()) return on.status();
  *out = *on;
  return Status::Ok();
}


// One kernel setting: a compile option of the catalogue (by its name, with
// '-' or '_', or its alias), or one of the descriptor's own flags.
Status SetKernelOption(v1::KernelDescriptor& k, std::string_view name, std::string_view value) {
  bool flag = false;
  if (name == "namespace") {
    QDC_RETURN_IF_ERROR(Utf8(value, "namespace"));
    k.set_namespace_(std::string(value));
    return Status::Ok();
  }
  if (name == "no-store" || name == "no_store") {
    QDC_RETURN_IF_ERROR(SetFlag(value, &flag));
    k.set_no_store(flag);
    return Status::Ok();
  }
  if (name == "kind") {
    QDC_ASSIGN_OR_RETURN(v1::SourceKind kind, client::ParseSourceKind(value));
    k.set_kind(kind);
    return Status::Ok();
  }
  if (name == "fast-key" || name == "fast_key") {
    // Text is hex, as everywhere a fast key is written (client/fast_key.h).
    QDC_ASSIGN_OR_RETURN(*k.mutable_fast_key(), client::FastKeyFromHex(value));
    return Status::Ok();
  }
  if (name == "alias-policy" || name == "alias_policy") {
    if (value == "rebind") {
      k.set_alias_policy(v1::ALIAS_POLICY_REBIND);
    } else if (value == "strict") {
      k.set_alias_policy(v1::ALIAS_POLICY_STRICT);
    } else if (value == "off") {
      k.set_alias_policy(v1::ALIAS_POLICY_OFF);
    } else {
      return InvalidArgument("alias-policy is rebind, strict or off, not \"" + ValidUtf8(value) + "\"");
    }
    return Status::Ok();
  }
  if (name == "recache") {
    QDC_RETURN_IF_ERROR(SetFlag(value, &flag));
    k.set_recache(flag);
    return Status::Ok();
  }
  return client::SetWireOptionText(*k.mutable_options(), name, value);
}

}  // namespace
}  // namespace qdcache::capi

using qdcache::Status;
using qdcache::capi::Guard;
using qdcache::capi::KernelAt;
using qdcache::capi::Required;

extern "C" {

qdcache_status qdcache_request_create(qdcache_request** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = new qdcache_request;
    return Status::Ok();
  });
}

void qdcache_request_free(qdcache_request* request) { delete request; }

size_t qdcache_request_count(const qdcache_request* request) {
  return request == nullptr ? 0 : static_cast<size_t>(request->proto.kernels_size());
}

qdcache_status qdcache_request_add_kernel(qdcache_request* request, const void* ir, size_t ir_size,
                                          const char* target, size_t* index) {
  return Guard([&] {
    if (index != nullptr) *index = 0;
    QDC_RETURN_IF_ERROR(Required(request, "request"));
    QDC_RETURN_IF_ERROR(Required(target, "target"));
    if (ir == nullptr && ir_size != 0) return qdcache::InvalidArgument("ir is NULL");
    auto wire_target = qdcache::client::ParseWireTarget(target);
    if (!wire_target.ok()) return wire_target.status();
    qdcache::v1::KernelDescriptor* kernel = request->proto.add_kernels();
    kernel->set_ir(static_cast<const char*>(ir), ir_size);
    *kernel->mutable_target() = std::move(wire_target).value();
    if (index != nullptr) *index = static_cast<size_t>(request->proto.kernels_size() - 1);
    return Status::Ok();
  });
}

const char* qdcache_compile_option_name(size_t index) {
  // The catalogue's names are string literals: NUL-terminated, static.
  const std::span<const qdcache::OptionSpec> options = qdcache::OptionCatalogue();
  return index < options.size() ? options[index].name.data() : nullptr;
}

qdcache_status qdcache_request_set(qdcache_request* request, size_t index, const char* name,
                                   const char* value) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(request, "request"));
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(value, "value"));
    if (std::string_view(name) == "include-ptx") {
      bool on = false;
      QDC_RETURN_IF_ERROR(qdcache::capi::SetFlag(value, &on));
      request->proto.set_include_ptx(on);
      return Status::Ok();
    }
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    // Set a copy, so a refused value leaves the kernel as it was.
    qdcache::v1::KernelDescriptor changed;
    *changed.mutable_options() = (*kernel)->options();
    changed.set_namespace_((*kernel)->namespace_());
    changed.set_no_store((*kernel)->no_store());
    changed.set_recache((*kernel)->recache());
    changed.set_kind((*kernel)->kind());
    changed.set_fast_key((*kernel)->fast_key());
    changed.set_alias_policy((*kernel)->alias_policy());
    Status status = qdcache::capi::SetKernelOption(changed, name, value);
    if (!status.ok()) return qdcache::InvalidArgument("option " + std::string(name) + ": " + status.message());
    *(*kernel)->mutable_options() = changed.options();
    (*kernel)->set_namespace_(changed.namespace_());
    (*kernel)->set_no_store(changed.no_store());
    (*kernel)->set_recache(changed.recache());
    (*kernel)->set_kind(changed.kind());
    (*kernel)->set_fast_key(changed.fast_key());
    (*kernel)->set_alias_policy(changed.alias_policy());
    return Status::Ok();
  });
}

qdcache_status qdcache_request_set_fast_key(qdcache_request* request, size_t index, const void* key,
                                            size_t key_size) {
  return Guard([&] {
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    if (key == nullptr && key_size != 0) return qdcache::InvalidArgument("key is NULL");
    (*kernel)->set_fast_key(static_cast<const char*>(key), key_size);
    return Status::Ok();
  });
}

qdcache_status qdcache_request_add_entry(qdcache_request* request, size_t index, const char* name) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(qdcache::capi::Utf8(name, "entry point"));
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    (*kernel)->add_entry_points(name);
    return Status::Ok();
  });
}

qdcache_status qdcache_request_add_key_extra(qdcache_request* request, size_t index, const char* name,
                                             const char* value) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(value, "value"));
    QDC_RETURN_IF_ERROR(qdcache::capi::Utf8(name, "key extra name"));
    QDC_RETURN_IF_ERROR(qdcache::capi::Utf8(value, "key extra value"));
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    (*(*kernel)->mutable_key_extras())[name] = value;
    return Status::Ok();
  });
}

qdcache_status qdcache_request_add_dependency(qdcache_request* request, size_t index, const char* name,
                                              const void* digest, size_t digest_size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    if (digest == nullptr && digest_size > 0) return qdcache::InvalidArgument("digest is NULL");
    QDC_RETURN_IF_ERROR(qdcache::capi::Utf8(name, "dependency name"));
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    qdcache::v1::Dependency* d = (*kernel)->add_dependencies();
    d->set_name(name);
    d->set_digest(static_cast<const char*>(digest), digest_size);
    return Status::Ok();
  });
}

qdcache_status qdcache_file_sha256(const char* path, unsigned char digest[32]) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(path, "path"));
    QDC_RETURN_IF_ERROR(Required(digest, "digest"));
    QDC_ASSIGN_OR_RETURN(qdcache::v1::Dependency d, qdcache::client::FileDependency(path));
    std::memcpy(digest, d.digest().data(), d.digest().size());
    return Status::Ok();
  });
}

qdcache_status qdcache_compile(qdcache_client* client, qdcache_request* request, qdcache_results** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(client, "client"));
    QDC_RETURN_IF_ERROR(Required(request, "request"));
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    qdcache::v1::CompileRequest call;
    call.Swap(&request->proto);  // the kernels move into the call; the request is empty
    call.clear_header();
    auto response = client->client->Compile(std::move(call));
    if (!response.ok()) return response.status();
    *out = qdcache::capi::NewResults(std::move(*response->mutable_results()));
    return Status::Ok();
  });
}

qdcache_status qdcache_request_add_header(qdcache_request* request, size_t index, const char* name,
                                          const void* content, size_t content_size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(qdcache::capi::Utf8(name, "header name"));
    if (content == nullptr && content_size != 0) return qdcache::InvalidArgument("content is NULL");
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    qdcache::v1::SourceFile* header = (*kernel)->add_headers();
    header->set_name(name);
    header->set_content(static_cast<const char*>(content), content_size);
    return Status::Ok();
  });
}

qdcache_status qdcache_request_add_text(qdcache_request* request, size_t index, const char* what,
                                        const char* value) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(what, "what"));
    QDC_RETURN_IF_ERROR(Required(value, "value"));
    QDC_RETURN_IF_ERROR(qdcache::capi::Utf8(value, what));
    auto kernel = KernelAt(request, index);
    if (!kernel.ok()) return kernel.status();
    const std::string_view kind = what;
    if (kind == "name-expression" || kind == "name_expression") {
      (*kernel)->add_name_expressions(value);
    } else if (kind == "define") {
      (*kernel)->add_defines(value);
    } else if (kind == "undefine") {
      (*kernel)->add_undefines(value);
    } else {
      return qdcache::InvalidArgument("unknown text \"" + std::string(kind) +
                                      "\" (known: name-expression, define, undefine)");
    }
    return Status::Ok();
  });
}

qdcache_status qdcache_lookup(qdcache_client* client, const char* ns, const char* target,
                              const void* const* fast_keys, const size_t* fast_key_sizes, size_t count,
                              int include_ptx, qdcache_results** out) {
  if (out != nullptr) *out = nullptr;
  return Guard([&] {
    QDC_ASSIGN_OR_RETURN(const qdcache::capi::LookupArguments args,
                         qdcache::capi::CheckLookup(client, ns, target, out != nullptr, fast_keys, fast_key_sizes,
                                                    count));
    const qdcache::v1::Target wire_target = qdcache::client::ToWireTarget(args.target);
    qdcache::v1::LookupRequest lookup;
    lookup.set_include_ptx(include_ptx != 0);
    for (std::string_view key : args.keys) {
      qdcache::v1::FastKeyQuery* query = lookup.add_queries();
      query->set_fast_key(key.data(), key.size());
      query->set_namespace_(ns);
      *query->mutable_target() = wire_target;
    }
    // Payloads stay where they arrived: a warm start's thousands of
    // artifacts are views into the daemon's memfd, not copies.
    auto answer = client->client->LookupViews(std::move(lookup));
    if (!answer.ok()) return answer.status();
    *out = qdcache::capi::NewResults(std::move(*answer));
    return Status::Ok();
  });
}

qdcache_status qdcache_explain_json(qdcache_client* client, const qdcache_request* request, char** json) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(json, "json"));
    *json = nullptr;
    QDC_RETURN_IF_ERROR(Required(client, "client"));
    QDC_RETURN_IF_ERROR(Required(request, "request"));
    const int n = request->proto.kernels_size();
    if (n < 1 || n > 2) {
      return qdcache::InvalidArgument("explain takes a request of one or two kernels, not " + std::to_string(n));
    }
    qdcache::v1::ExplainRequest explain;
    for (const qdcache::v1::KernelDescriptor& k : request->proto.kernels()) *explain.add_kernels() = k;
    auto response = client->client->Explain(std::move(explain));
    if (!response.ok()) return response.status();
    *json = qdcache::capi::NewCString(qdcache::capi::Dump(qdcache::client::ExplainJson(*response)));
    return Status::Ok();
  });
}

}  // extern "C"

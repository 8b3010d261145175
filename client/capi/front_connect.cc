// Options and connecting, for libqdcache.so: a client on a unix socket
// looks up over the lean transport itself; everything else, and every other
// client, is the full library's (full_library.h).
#include <cstdlib>
#include <string>
#include <string_view>

#include "client/capi/front.h"
#include "client/endpoint.h"
#include "common/paths.h"

namespace qdcache::capi {
namespace {

// The unix socket a client with options `o` looks up on over the lean
// transport by itself: where the full library's client would connect, when
// that is a unix socket reached without spawning a daemon and the lean
// transport is on. nullopt otherwise, and for whatever the full library
// would refuse (it then does so in its words).
std::optional<std::string> LeanSocketPath(client::ClientOptions o) {
  if (!o.tls_ca_file.empty() || !o.tls_cert_file.empty() || !o.tls_key_file.empty()) return std::nullopt;
  if (!client::ResolveEndpoint(o).ok() || !o.address.empty()) return std::nullopt;
  if (InPrivateTmpDir(o.socket_path) && !CheckPrivateDir(PrivateTmpDir(), /*create=*/false).ok()) {
    return std::nullopt;
  }
  Expected<bool> spawn = client::ResolveAutospawn(o.spawn, /*default_value=*/false);
  if (!spawn.ok() || *spawn) return std::nullopt;
  const char* env = std::getenv("QDCACHE_LEAN");
  if (!o.lean.value_or(env == nullptr || std::string_view(env) != "0")) return std::nullopt;
  return o.socket_path;
}

}  // namespace

Expected<qdcache_client*> FullClient(qdcache_client* client, const FullLibrary** full) {
  QDC_ASSIGN_OR_RETURN(*full, Full());
  const FullLibrary& f = **full;
  std::lock_guard lock(client->mu);
  if (client->full != nullptr) return client->full;
  qdcache_options* options = nullptr;
  QDC_RETURN_IF_ERROR(StatusOf(f.options_create(&options)));
  Status status = Status::Ok();
  for (const auto& [name, value] : client->settings) {
    status = StatusOf(f.options_set(options, name.c_str(), value.c_str()));
    if (!status.ok()) break;
  }
  qdcache_client* made = nullptr;
  if (status.ok()) status = StatusOf(f.connect(options, &made));
  f.options_free(options);
  QDC_RETURN_IF_ERROR(status);
  client->full = made;
  return made;
}

Expected<FullCall> FullFor(qdcache_client* client) {
  FullCall call;
  if (client != nullptr) {
    QDC_ASSIGN_OR_RETURN(call.client, FullClient(client, &call.full));
  } else {
    QDC_ASSIGN_OR_RETURN(call.full, Full());
  }
  return call;
}

}  // namespace qdcache::capi

qdcache_client::~qdcache_client() {
  if (full != nullptr) qdcache::capi::LoadedFull().client_free(full);
}

using qdcache::Status;
using qdcache::capi::FullClient;
using qdcache::capi::FullLibrary;
using qdcache::capi::Guard;
using qdcache::capi::Required;
using qdcache::capi::StatusOf;
using qdcache::capi::StringFromFullClient;
using qdcache::capi::WithFullClient;

extern "C" {

qdcache_status qdcache_options_create(qdcache_options** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = new qdcache_options{qdcache::capi::DefaultOptions(), {}};
    return Status::Ok();
  });
}

qdcache_status qdcache_options_set(qdcache_options* options, const char* name, const char* value) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(qdcache::capi::SetOption(options != nullptr ? &options->client : nullptr, name, value));
    options->settings.emplace_back(name, value);  // for the full library's options
    return Status::Ok();
  });
}

void qdcache_options_free(qdcache_options* options) { delete options; }

qdcache_status qdcache_connect(const qdcache_options* options, qdcache_client** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    qdcache::client::ClientOptions o = qdcache::capi::DefaultOptions();
    auto client = std::make_unique<qdcache_client>();
    if (options != nullptr) {
      o = options->client;
      client->settings = options->settings;
    }
    client->client_name = o.client_name;
    if (std::optional<std::string> socket = qdcache::capi::LeanSocketPath(o)) {
      // As the full library's client: nothing is contacted yet. Its client,
      // made later, goes where the lookups go, whatever the environment or
      // the sockets there are by then.
      client->lean = std::make_unique<qdcache::client::LeanSocket>(*socket, "unix:" + *socket, o.timeout,
                                                                  o.max_message_bytes);
      client->settings.emplace_back("socket", *socket);
      client->settings.emplace_back("spawn", "0");
      client->settings.emplace_back("lean", "1");
    } else {
      const FullLibrary* full = nullptr;
      QDC_RETURN_IF_ERROR(FullClient(client.get(), &full).status());
    }
    *out = client.release();
    return Status::Ok();
  });
}

void qdcache_client_free(qdcache_client* client) { delete client; }

qdcache_status qdcache_ping(qdcache_client* client) {
  return Guard([&] {
    return WithFullClient(client, [](const FullLibrary& f, qdcache_client* c) { return f.ping(c); });
  });
}

qdcache_status qdcache_daemon_version(qdcache_client* client, char** version) {
  return Guard([&] {
    return StringFromFullClient(client, version, [](const FullLibrary& f, qdcache_client* c, char** text) {
      return f.daemon_version(c, text);
    });
  });
}

qdcache_status qdcache_stats_json(qdcache_client* client, int reset, char** json) {
  return Guard([&] {
    return StringFromFullClient(client, json, [&](const FullLibrary& f, qdcache_client* c, char** text) {
      return f.stats_json(c, reset, text);
    });
  });
}

qdcache_status qdcache_command_json(qdcache_client* client, const char* command, const char* args_json,
                                    char** json) {
  return Guard([&] {
    return StringFromFullClient(client, json, [&](const FullLibrary& f, qdcache_client* c, char** text) {
      return f.command_json(c, command, args_json, text);
    });
  });
}

}  // extern "C"

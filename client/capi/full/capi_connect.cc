// Options, connecting, health and statistics of the C ABI.
#include <chrono>
#include <limits>
#include <string>
#include <string_view>

#include "client/capi/capi_inputs.h"
#include "client/capi/full/capi_internal.h"
#include "client/commands_json.h"
#include "client/json_views.h"
#include "common/units.h"

using qdcache::Status;
using qdcache::capi::Guard;
using qdcache::capi::Required;

extern "C" {

qdcache_status qdcache_options_create(qdcache_options** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = new qdcache_options{qdcache::capi::DefaultOptions()};
    return Status::Ok();
  });
}

qdcache_status qdcache_options_set(qdcache_options* options, const char* name, const char* value) {
  return Guard([&] { return qdcache::capi::SetOption(options != nullptr ? &options->client : nullptr, name, value); });
}

void qdcache_options_free(qdcache_options* options) { delete options; }

qdcache_status qdcache_connect(const qdcache_options* options, qdcache_client** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    qdcache::client::ClientOptions client_options =
        options != nullptr ? options->client : qdcache::capi::DefaultOptions();
    auto client = qdcache::client::Client::Connect(std::move(client_options));
    if (!client.ok()) return client.status();
    *out = new qdcache_client{std::move(client).value()};
    return Status::Ok();
  });
}

void qdcache_client_free(qdcache_client* client) { delete client; }

qdcache_status qdcache_ping(qdcache_client* client) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(client, "client"));
    return client->client->Ping();
  });
}

qdcache_status qdcache_stats_json(qdcache_client* client, int reset, char** json) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(client, "client"));
    QDC_RETURN_IF_ERROR(Required(json, "json"));
    *json = nullptr;
    auto stats = client->client->Stats(reset != 0);
    if (!stats.ok()) return stats.status();
    *json = qdcache::capi::NewCString(qdcache::capi::Dump(qdcache::client::StatsJson(*stats)));
    return Status::Ok();
  });
}

qdcache_status qdcache_command_json(qdcache_client* client, const char* command, const char* args_json,
                                    char** json) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(json, "json"));
    *json = nullptr;
    QDC_RETURN_IF_ERROR(Required(client, "client"));
    QDC_RETURN_IF_ERROR(Required(command, "command"));
    nlohmann::json args = nlohmann::json::object();
    if (args_json != nullptr && *args_json != '\0') {
      args = nlohmann::json::parse(args_json, nullptr, /*allow_exceptions=*/false);
      if (args.is_discarded()) return qdcache::InvalidArgument(std::string(command) + ": the arguments are not JSON");
    }
    auto document = qdcache::client::RunCommandJson(*client->client, command, args);
    if (!document.ok()) return document.status();
    *json = qdcache::capi::NewCString(qdcache::capi::Dump(*document));
    return Status::Ok();
  });
}

qdcache_status qdcache_daemon_version(qdcache_client* client, char** version) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(version, "version"));
    *version = nullptr;
    QDC_RETURN_IF_ERROR(Required(client, "client"));
    auto answer = qdcache::client::RunCommandJson(*client->client, "ping", nlohmann::json::object());
    if (!answer.ok()) return answer.status();
    *version = qdcache::capi::NewCString((*answer)["version"].get<std::string>());
    return Status::Ok();
  });
}

}  // extern "C"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "client/cli/commands.h"
#include "client/cli/output.h"

namespace qdcache::cli {

int RunStats(client::Client& client, bool json, bool reset) {
  Expected<v1::Stats> stats = client.Stats(reset);
  if (!stats.ok()) return PrintError(stats.status()), kExitFailure;
  const v1::Stats& s = *stats;
  // Every integer field of Stats, in declaration order (new counters show
  // up without touching the CLI).
  std::vector<std::pair<std::string, std::uint64_t>> counters;
  const google::protobuf::Descriptor* d = s.GetDescriptor();
  const google::protobuf::Reflection* r = s.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT64) {
      counters.emplace_back(f->name(), r->GetUInt64(s, f));
    } else if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT32) {
      counters.emplace_back(f->name(), r->GetUInt32(s, f));
    }
  }
  if (json) {
    nlohmann::json j;
    for (const auto& [name, value] : counters) j[name] = value;
    j["compile_seconds"] = s.compile_seconds();
    j["toolchain"] = s.toolchain();
    j["version"] = s.version();
    j["remote_state"] = s.remote_state();
    std::cout << j.dump() << "\n";
    return kExitOk;
  }
  std::printf("qdcached %s at %s\n", s.version().c_str(), client.target().c_str());
  for (const auto& [name, value] : counters) {
    std::printf("  %-22s %llu\n", name.c_str(), static_cast<unsigned long long>(value));
  }
  std::printf("  %-22s %.3f\n", "compile_seconds", s.compile_seconds());
  std::printf("  %-22s %s\n", "toolchain", s.toolchain().c_str());
  std::printf("  %-22s %s\n", "remote_state", s.remote_state().c_str());
  return kExitOk;
}

int RunPing(client::Client& client, bool json) {
  Status s = client.Ping();
  if (json) {
    std::cout << nlohmann::json{{"target", client.target()}, {"serving", s.ok()}}.dump() << "\n";
  }
  if (!s.ok()) return PrintError(s), kExitFailure;
  if (!json) std::printf("qdcached at %s is serving\n", client.target().c_str());
  return kExitOk;
}

}  // namespace qdcache::cli

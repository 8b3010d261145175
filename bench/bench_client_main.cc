// qdcache-bench-client: the fresh client processes qdcache-bench times from
// spawn to exit. A minimal qdcached client (it links the client library
// only, never LLVM), in three modes:
//   lookup    --socket S --namespace NS --target T --keys FILE
//             every fast key of FILE (hex, one per line) in one Lookup
//             batch; all must hit.
//   files     --dir D --keys FILE
//             the baseline: FILE names files (one per line) of D, a
//             file-per-entry cache, each read whole.
//   first-hit --socket S --namespace NS --target T --keys FILE
//             the first key of FILE only: start-up plus one hit.
// Prints one JSON line: {"items":N,"bytes":B,"peak_rss_kib":K}. Exit 1 on any miss or error.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/peak_rss.h"
#include "client/client.h"
#include "client/wire_target.h"
#include "common/digest.h"

namespace {

using qdcache::Expected;
using qdcache::Status;

struct Totals {
  std::size_t items = 0;
  std::size_t bytes = 0;
};

Expected<std::vector<std::string>> ReadKeys(const std::string& path) {
  std::ifstream in(path);
  if (!in) return qdcache::NotFound("cannot read " + path);
  std::vector<std::string> keys;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) keys.push_back(line);
  }
  if (keys.empty()) return qdcache::InvalidArgument(path + " holds no keys");
  return keys;
}

Expected<Totals> LookupAll(const std::string& socket, const std::string& ns, const std::string& target,
                           const std::vector<std::string>& hex_keys) {
  qdcache::client::ClientOptions options;
  options.socket_path = socket;
  options.spawn = false;
  QDC_ASSIGN_OR_RETURN(auto client, qdcache::client::Client::Connect(options));
  qdcache::v1::LookupRequest request;
  QDC_ASSIGN_OR_RETURN(qdcache::v1::Target wire_target, qdcache::client::ParseWireTarget(target));
  for (const std::string& hex : hex_keys) {
    qdcache::v1::FastKeyQuery* q = request.add_queries();
    if (!qdcache::FromHex(hex, q->mutable_fast_key())) return qdcache::InvalidArgument("bad hex key " + hex);
    q->set_namespace_(ns);
    *q->mutable_target() = wire_target;
  }
  // Payloads where they arrived (the lean transport's mapped memfd), as a
  // framework's warm start would take them: usable in place, not copied.
  QDC_ASSIGN_OR_RETURN(qdcache::client::LookupAnswer answer, client->LookupViews(std::move(request)));
  Totals totals;
  for (int i = 0; i < answer.response.results_size(); ++i) {
    const qdcache::v1::CompileResult& r = answer.response.results(i);
    if (r.status() != qdcache::v1::CACHE_STATUS_ALIAS_HIT) {
      return qdcache::NotFound("a fast key missed: " + r.error().message());
    }
    ++totals.items;
    totals.bytes += answer.payload(i).size();
  }
  return totals;
}

Expected<Totals> ReadFiles(const std::string& dir, const std::vector<std::string>& hex_keys) {
  std::vector<std::string> artifacts;
  artifacts.reserve(hex_keys.size());
  Totals totals;
  for (const std::string& hex : hex_keys) {
    const std::string path = dir + "/" + hex;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return qdcache::NotFound("cannot open " + path);
    std::string bytes;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n <= 0) break;
      bytes.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    totals.bytes += bytes.size();
    ++totals.items;
    artifacts.push_back(std::move(bytes));
  }
  return totals;
}

}  // namespace

int main(int argc, char** argv) {
  std::string socket, ns, target, keys_file, dir;
  CLI::App app{"qdcache-bench-client: a fresh client process for qdcache-bench"};
  app.require_subcommand(1);
  CLI::App* lookup = app.add_subcommand("lookup", "Every key in one Lookup batch");
  CLI::App* first = app.add_subcommand("first-hit", "The first key only");
  CLI::App* files = app.add_subcommand("files", "Every key's file from a file-per-entry directory");
  for (CLI::App* sub : {lookup, first}) {
    sub->add_option("--socket", socket)->required();
    sub->add_option("--namespace", ns)->required();
    sub->add_option("--target", target)->required();
    sub->add_option("--keys", keys_file)->required();
  }
  files->add_option("--dir", dir)->required();
  files->add_option("--keys", keys_file)->required();
  CLI11_PARSE(app, argc, argv);

  Expected<std::vector<std::string>> keys = ReadKeys(keys_file);
  Expected<Totals> totals = keys.status();
  if (keys.ok()) {
    if (files->parsed()) {
      totals = ReadFiles(dir, *keys);
    } else {
      if (first->parsed()) keys->resize(1);
      totals = LookupAll(socket, ns, target, *keys);
    }
  }
  if (!totals.ok()) {
    std::fprintf(stderr, "qdcache-bench-client: %s\n", totals.status().ToString().c_str());
    return 1;
  }
  std::printf("{\"items\":%zu,\"bytes\":%zu,\"peak_rss_kib\":%ld}\n", totals->items, totals->bytes,
              qdcache::bench::PeakRssKib());
  return 0;
}

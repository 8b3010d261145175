// qdcache-bench-echo: the baseline servers of qdcache-bench in a process of
// their own (echo_server.h). Serves until killed; with --ready-fd, writes
// "ready TCP_PORT\n" to that fd once every listener is up.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "bench/echo_server.h"

int main(int argc, char** argv) {
  std::string raw, grpc_unix, grpc_tcp = "127.0.0.1:0";
  int ready_fd = -1;
  CLI::App app{"qdcache-bench-echo: raw unix-socket and bare gRPC echo servers"};
  app.add_option("--raw", raw, "Raw echo unix socket path")->required();
  app.add_option("--grpc-unix", grpc_unix, "gRPC echo unix socket path")->required();
  app.add_option("--grpc-tcp", grpc_tcp, "gRPC echo TCP HOST:PORT (empty: none)");
  app.add_option("--ready-fd", ready_fd, "Write \"ready PORT\\n\" here when serving");
  CLI11_PARSE(app, argc, argv);

  auto raw_server = qdcache::bench::RawEchoServer::Start(raw);
  if (!raw_server.ok()) {
    std::fprintf(stderr, "qdcache-bench-echo: %s\n", raw_server.status().ToString().c_str());
    return 1;
  }
  auto grpc_server = qdcache::bench::GrpcEchoServer::Start(grpc_unix, grpc_tcp);
  if (!grpc_server.ok()) {
    std::fprintf(stderr, "qdcache-bench-echo: %s\n", grpc_server.status().ToString().c_str());
    return 1;
  }
  if (ready_fd >= 0) {
    const std::string line = "ready " + std::to_string((*grpc_server)->tcp_port()) + "\n";
    if (::write(ready_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 1;
    ::close(ready_fd);
  }
  for (;;) ::pause();
}

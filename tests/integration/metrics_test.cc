// The Prometheus endpoint (--metrics-listen) of a real daemon, scraped over
// loopback HTTP and read by an independent parser: Python's
// prometheus_client (skipped where it is not installed).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// A python3 on $PATH that has prometheus_client (the first one may be a
// virtual environment without it); empty when there is none.
std::string PythonWithPrometheusClient() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string python = (dir.empty() ? "." : dir) + "/python3";
    if (::access(python.c_str(), X_OK) != 0) continue;
    if (Run({python, "-c", "import prometheus_client.parser"}).exit_code == 0) return python;
  }
  return "";
}

#define REQUIRE_PROMETHEUS_PARSER(python)                                            \
  const std::string python = PythonWithPrometheusClient();                           \
  if (python.empty()) {                                                              \
    WARN("no python3 with prometheus_client (python3-prometheus-client): skipping"); \
    return;                                                                          \
  }

// Every sample of a scrape as prometheus_client parsed it.
class Samples {
 public:
  Samples(const std::string& python, const std::string& body, const TempDir& dir) {
    const std::string file = dir.path() + "/scrape.txt";
    WriteFileOrDie(file, body);
    const char* script =
        "import json, math, sys\n"
        "from prometheus_client.parser import text_string_to_metric_families\n"
        "out = []\n"
        "for f in text_string_to_metric_families(open(sys.argv[1]).read()):\n"
        "    for s in f.samples:\n"
        "        if math.isfinite(s.value):  # JSON has no NaN (quantiles of an empty summary)\n"
        "            out.append({'family': f.name, 'type': f.type, 'name': s.name, 'labels': "
        "s.labels,"
        " 'value': s.value})\n"
        "print(json.dumps(out))\n";
    RunResult r = Run({python, "-c", script, file});
    INFO(r.err);
    INFO(body);
    REQUIRE(r.exit_code == 0);
    samples_ = nlohmann::json::parse(r.out);
  }

  // The value of sample `name` whose labels include `labels`; nullopt if none.
  std::optional<double> Value(const std::string& name,
                              const std::map<std::string, std::string>& labels = {}) const {
    for (const auto& s : samples_) {
      if (s["name"] != name) continue;
      bool match = true;
      for (const auto& [k, v] : labels)
        match = match && s["labels"].contains(k) && s["labels"][k] == v;
      if (match) return s["value"].get<double>();
    }
    return std::nullopt;
  }
  std::string Type(const std::string& family) const {
    for (const auto& s : samples_) {
      if (s["family"] == family) return s["type"];
    }
    return "";
  }

 private:
  nlohmann::json samples_;
};

// A unary call of `path` with an empty message, as any client can make it.
grpc::Status GenericCall(const DaemonProcess& daemon, const std::string& path) {
  grpc::GenericStub stub(grpc::CreateChannel("unix:" + daemon.socket_path(),
                                             grpc::InsecureChannelCredentials()));
  grpc::ByteBuffer request, response;
  grpc::Slice empty("");
  request = grpc::ByteBuffer(&empty, 1);
  grpc::ClientContext context;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, path, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  return done.get_future().get();
}

const std::map<std::string, std::string> kCompileOk = {
    {"service", "qdcache.v1.CompileCache"}, {"method", "Compile"}, {"code", "OK"}};

}  // namespace

TEST_CASE("the metrics endpoint serves Prometheus text that counts compiles, hits and misses",
          "[integration][metrics]") {
  REQUIRE_PROMETHEUS_PARSER(python);
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--metrics-listen", "127.0.0.1:0"});
  daemon.Start();
  const std::string address = daemon.MetricsAddress();
  CHECK(address.rfind("127.0.0.1:", 0) == 0);
  CHECK(address != "127.0.0.1:0");

  Samples before(python, ScrapeMetrics(address), dir);
  CHECK(before.Type("qdcache_cache_hits") ==
        "counter");  // the parser names a counter without _total
  CHECK(before.Type("qdcache_store_entries") == "gauge");
  CHECK(before.Value("qdcache_cache_misses_total", {{"level", "artifact"}}) == 0);
  CHECK(before.Value("qdcache_cache_hits_total", {{"level", "artifact"}}) == 0);
  CHECK_FALSE(before.Value("qdcache_grpc_requests_total", kCompileOk).has_value());
  CHECK(before.Value("qdcache_build_info").value_or(0) == 1);
  CHECK_FALSE(before.Value("qdcache_remote_up").has_value());  // no --remote

  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_HIT);

  Samples after(python, ScrapeMetrics(address), dir);
  CHECK(after.Type("qdcache_compile_duration_seconds") == "histogram");
  CHECK(after.Type("qdcache_grpc_request_duration_seconds") == "histogram");
  CHECK(after.Value("qdcache_grpc_requests_total", kCompileOk) == 2);
  CHECK(after.Value("qdcache_grpc_request_duration_seconds_count", kCompileOk) == 2);
  CHECK(after.Value("qdcache_cache_misses_total", {{"level", "artifact"}}) == 1);
  CHECK(after.Value("qdcache_cache_hits_total", {{"level", "artifact"}}) == 1);
  CHECK(after.Value("qdcache_compiles_total") == 1);
  CHECK(after.Value("qdcache_compile_duration_seconds_count",
                    {{"target", "cpu:x86-64"}, {"outcome", "ok"}}) == 1);
  CHECK(after.Value("qdcache_compile_seconds_saved_total").value_or(0) > 0);
  CHECK(after.Value("qdcache_store_entries", {{"kind", "artifact"}}) == 1);
  CHECK(after.Value("qdcache_items_total") == 2);
}

TEST_CASE("a malformed --metrics-listen is refused before the daemon starts",
          "[integration][metrics]") {
  TempDir dir;
  for (const char* bad :
       {"localhost:9100", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:9100s", "127.0.0.1:1,2"}) {
    INFO(bad);
    RunResult r = Run({DaemonBinary(), "--socket", dir / "s.sock", "--store", dir / "store",
                       "--metrics-listen", bad});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--metrics-listen") && Catch::Contains("HOST:PORT"));
  }
}

TEST_CASE("a metrics port in use stops the start with the reason", "[integration][metrics]") {
  const int taken = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(taken >= 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof sa;
  REQUIRE(::bind(taken, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  REQUIRE(::listen(taken, 1) == 0);
  REQUIRE(::getsockname(taken, reinterpret_cast<sockaddr*>(&sa), &len) == 0);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(sa.sin_port));

  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--metrics-listen", address});
  CHECK_THROWS_WITH(daemon.Start(), Catch::Contains("--metrics-listen") &&
                                        Catch::Contains(address) && Catch::Contains("in use"));
  ::close(taken);
}

TEST_CASE("a method the daemon does not serve is counted as other, never by its name",
          "[integration][metrics]") {
  REQUIRE_PROMETHEUS_PARSER(python);
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--metrics-listen", "127.0.0.1:0"});
  daemon.Start();
  // Made up before any real call: no name is kept on a first-come basis.
  const grpc::Status made_up = GenericCall(daemon, "/squatter.v1.Squat/MadeUpMethod");
  CHECK(made_up.error_code() == grpc::StatusCode::UNIMPLEMENTED);
  // Reflection is served: its stream answers an empty request with an error message.
  GenericCall(daemon, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo");
  auto client = daemon.Connect();
  REQUIRE(client->Ping().ok());
  REQUIRE(client->Stats().ok());

  const std::string body = ScrapeMetrics(daemon.MetricsAddress());
  CHECK(body.find("squatter") == std::string::npos);
  CHECK(body.find("MadeUpMethod") == std::string::npos);
  Samples samples(python, body, dir);
  CHECK(samples.Value("qdcache_grpc_requests_total",
                      {{"service", "other"}, {"method", "other"}, {"code", "UNIMPLEMENTED"}}) == 1);
  CHECK(samples.Value("qdcache_grpc_requests_total", {{"service", "qdcache.v1.CompileCache"},
                                                      {"method", "GetStats"},
                                                      {"code", "OK"}}) == 1);
  CHECK(samples.Value("qdcache_grpc_requests_total",
                      {{"service", "grpc.health.v1.Health"}, {"method", "Check"}, {"code", "OK"}}) ==
        1);
  CHECK(samples.Value("qdcache_grpc_requests_total",
                      {{"service", "grpc.reflection.v1alpha.ServerReflection"},
                       {"method", "ServerReflectionInfo"}}) == 1);
}

TEST_CASE("the metrics endpoint counts fast-key conflicts and stale aliases per namespace",
          "[integration][metrics][fast-key]") {
  REQUIRE_PROMETHEUS_PARSER(python);
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--metrics-listen", "127.0.0.1:0"});
  daemon.Start();
  auto client = daemon.Connect();
  // The same fast key with two IRs: a frontend that left an input out of it.
  for (int n : {128, 256}) {
    v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
    d.set_ir("define i64 @block() {\n  ret i64 " + std::to_string(n) + "\n}\n");
    d.set_fast_key("tile");
    d.set_namespace_("buggy");
    REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  }
  Samples after(python, ScrapeMetrics(daemon.MetricsAddress()), dir);
  CHECK(after.Type("qdcache_alias_conflicts") == "counter");
  CHECK(after.Value("qdcache_alias_conflicts_total", {{"namespace", "buggy"}}) == 1);
  CHECK_FALSE(after.Value("qdcache_alias_stale_total", {{"namespace", "buggy"}}).has_value());
}

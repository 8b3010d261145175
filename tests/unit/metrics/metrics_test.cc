// The metrics library without a daemon: label bounds, the listen address,
// the Stats families and the request and compile instruments.
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>
#include <string>

#include "metrics/bounded_label.h"
#include "metrics/compile_metrics.h"
#include "metrics/listen_address.h"
#include "metrics/request_metrics.h"
#include "metrics/stats_collector.h"

using namespace qdcache;
using namespace qdcache::metrics;

namespace {

std::string Text(const std::vector<prometheus::MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace

TEST_CASE("a bounded label keeps its first values and folds the rest into other", "[metrics]") {
  BoundedLabel label(2);
  CHECK(label.Of("a") == "a");
  CHECK(label.Of("b") == "b");
  CHECK(label.Of("c") == "other");
  CHECK(label.Of("a") == "a");  // kept values stay
  CHECK(label.Of("d") == "other");
}

TEST_CASE("a metrics address is an IP address and a port", "[metrics]") {
  auto v4 = ParseListenAddress("127.0.0.1:9100");
  REQUIRE(v4.ok());
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->port == 9100);
  CHECK_FALSE(v4->ipv6);
  auto v6 = ParseListenAddress("[::1]:0");
  REQUIRE(v6.ok());
  CHECK(v6->ipv6);
  CHECK(v6->port == 0);
  for (const char* bad :
       {"", ":9100", "9100", "localhost:9100", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1",
        "127.0.0.1:80s", "127.0.0.1:1,127.0.0.1:2", "::1:9100", "[::1]", "1.2.3:80"}) {
    INFO(bad);
    auto r = ParseListenAddress(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
  }
}

TEST_CASE("stats become per-level cache counters, store gauges and remote state", "[metrics]") {
  v1::Stats s;
  s.set_hits(3);
  s.set_artifact_misses(2);
  s.set_alias_hits(5);
  s.set_misses(1);
  s.set_stage_hits(4);
  s.set_stage_misses(6);
  s.set_store_artifacts(7);
  s.set_compile_seconds_saved(1.5);
  s.set_version("1.2.3");
  s.set_remote_state("off");
  std::string text = Text(StatsFamilies(s));
  CHECK_THAT(text, Catch::Contains("# TYPE qdcache_cache_hits_total counter"));
  CHECK_THAT(text, Catch::Contains("qdcache_cache_hits_total{level=\"artifact\"} 3"));
  CHECK_THAT(text, Catch::Contains("qdcache_cache_misses_total{level=\"artifact\"} 2"));
  CHECK_THAT(text, Catch::Contains("qdcache_cache_hits_total{level=\"alias\"} 5"));
  CHECK_THAT(text, Catch::Contains("qdcache_cache_misses_total{level=\"alias\"} 1"));
  CHECK_THAT(text, Catch::Contains("qdcache_cache_hits_total{level=\"stage\"} 4"));
  CHECK_THAT(text, Catch::Contains("qdcache_cache_misses_total{level=\"stage\"} 6"));
  CHECK_THAT(text, Catch::Contains("qdcache_store_entries{kind=\"artifact\"} 7"));
  CHECK_THAT(text, Catch::Contains("qdcache_compile_seconds_saved_total 1.5"));
  CHECK_THAT(text, Catch::Contains("version=\"1.2.3\""));
  CHECK(text.find("qdcache_remote_up") == std::string::npos);

  s.set_remote_state("degraded");
  CHECK_THAT(Text(StatsFamilies(s)), Catch::Contains("qdcache_remote_up 0"));
  s.set_remote_state("ok");
  CHECK_THAT(Text(StatsFamilies(s)), Catch::Contains("qdcache_remote_up 1"));
}

TEST_CASE("requests are counted per service, method and code", "[metrics]") {
  prometheus::Registry registry;
  RequestMetrics requests(registry);
  requests.Started();
  requests.Finished("/qdcache.v1.CompileCache/Compile", grpc::StatusCode::OK, 0.01);
  requests.Started();
  requests.Finished("/qdcache.v1.CompileCache/Compile", grpc::StatusCode::UNAUTHENTICATED, 0.001);
  requests.Started();
  requests.Finished("/grpc.health.v1.Health/Check", grpc::StatusCode::OK, 0.001);
  const std::string text = Text(registry.Collect());
  CHECK_THAT(text, Catch::Contains("qdcache_grpc_requests_total{code=\"OK\",method=\"Compile\","
                                   "service=\"qdcache.v1.CompileCache\"} 1"));
  CHECK_THAT(text, Catch::Contains(
                       "qdcache_grpc_requests_total{code=\"UNAUTHENTICATED\",method=\"Compile\","
                       "service=\"qdcache.v1.CompileCache\"} 1"));
  CHECK_THAT(text, Catch::Contains("qdcache_grpc_requests_total{code=\"OK\",method=\"Check\","
                                   "service=\"grpc.health.v1.Health\"} 1"));
  CHECK_THAT(text, Catch::Contains("qdcache_grpc_requests_in_flight 0"));
  CHECK_THAT(text, Catch::Contains(
                       "qdcache_grpc_request_duration_seconds_count{code=\"OK\",method=\"Compile\","
                       "service=\"qdcache.v1.CompileCache\"} 1"));
}

TEST_CASE("a method the daemon does not serve counts as other, however it is named",
          "[metrics]") {
  prometheus::Registry registry;
  RequestMetrics requests(registry);
  // Made up first, before any real call: nothing is kept on a first-come basis.
  for (const std::string path :
       {"/made.Up/M", "not a method", "/qdcache.v1.CompileCache/NoSuchMethod",
        "/qdcache.v1.CompileCache/Compile/extra", "qdcache.v1.CompileCache/Compile"}) {
    requests.Started();
    requests.Finished(path, grpc::StatusCode::UNIMPLEMENTED, 0.001);
  }
  requests.Started();
  requests.Finished("/qdcache.v1.CompileCache/GetStats", grpc::StatusCode::OK, 0.001);
  const std::string text = Text(registry.Collect());
  CHECK_THAT(text, Catch::Contains("qdcache_grpc_requests_total{code=\"UNIMPLEMENTED\","
                                   "method=\"other\",service=\"other\"} 5"));
  CHECK_THAT(text, Catch::Contains("method=\"GetStats\",service=\"qdcache.v1.CompileCache\"} 1"));
  CHECK(text.find("made") == std::string::npos);
  CHECK(text.find("NoSuchMethod") == std::string::npos);
}

TEST_CASE("compile durations are per target and outcome, with at most 32 targets", "[metrics]") {
  prometheus::Registry registry;
  CompileMetrics compiles(registry);
  compiles.Observe("cuda:sm_90", 2.0, true);
  compiles.Observe("cuda:sm_90", 0.5, false);
  for (int i = 0; i < 40; ++i) compiles.Observe("cpu:made-up-" + std::to_string(i), 0.1, true);
  const std::string text = Text(registry.Collect());
  CHECK_THAT(text,
             Catch::Contains(
                 "qdcache_compile_duration_seconds_count{outcome=\"ok\",target=\"cuda:sm_90\"} 1"));
  CHECK_THAT(
      text,
      Catch::Contains(
          "qdcache_compile_duration_seconds_count{outcome=\"error\",target=\"cuda:sm_90\"} 1"));
  CHECK_THAT(
      text,
      Catch::Contains("qdcache_compile_duration_seconds_count{outcome=\"ok\",target=\"other\"} 9"));
  CHECK(text.find("made-up-31") == std::string::npos);
}

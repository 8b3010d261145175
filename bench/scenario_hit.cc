// Scenario 1: single warm hits, side by side with the baselines: a bare
// gRPC call and a raw unix-socket round trip, each a request of a Lookup's
// size answered with the artifact's size.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <functional>

#include "bench/bench_kernels.h"
#include "bench/echo_server.h"
#include "bench/scenarios.h"
#include "tests/support/kernels.h"

namespace qdcache::bench {
namespace {

struct Variant {
  std::string name;
  std::function<Status()> call;
  std::vector<double> micros;
};

Status LookupCall(client::Client& client, const v1::LookupRequest& request) {
  QDC_ASSIGN_OR_RETURN(v1::LookupResponse r, client.Lookup(request));
  if (r.results_size() != 1 || r.results(0).status() != v1::CACHE_STATUS_ALIAS_HIT) {
    return Internal("the warm lookup missed");
  }
  return Status::Ok();
}

// ccache hits of a small C file, each a process as a build system runs it.
// Empty, with the reason in *why, when ccache or cc is not installed or
// ccache did not answer every timed run as a direct hit.
Expected<std::vector<double>> CcacheHits(const BenchEnv& env, int runs, std::string* why) {
  const std::string ccache = testing::FindOnPath("ccache");
  const std::string cc = testing::FindOnPath("cc");
  if (ccache.empty() || cc.empty()) {
    *why = "ccache or cc not installed: no ccache comparison";
    return std::vector<double>();
  }
  const std::string dir = env.dir / "ccache";
  ::mkdir(dir.c_str(), 0700);
  const std::string source = dir + "/kernel.c";
  testing::WriteFileOrDie(source,
                          "float saxpy(int n, float a, const float* x, float* y) {\n"
                          "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n"
                          "  return y[0];\n}\n");
  // An hour old: ccache does not trust a file modified within the second.
  const timespec old[2] = {{std::time(nullptr) - 3600, 0}, {std::time(nullptr) - 3600, 0}};
  ::utimensat(AT_FDCWD, source.c_str(), old, 0);
  // A cache of its own, whatever the user's ccache configuration says.
  const std::vector<std::string> ccache_env = {"CCACHE_DIR=" + dir + "/cache",
                                               "CCACHE_CONFIGPATH=" + dir + "/ccache.conf",
                                               "CCACHE_RECACHE", "CCACHE_DISABLE", "CCACHE_NODIRECT"};
  const std::vector<std::string> argv = {ccache, cc, "-O2", "-c", source, "-o", dir + "/kernel.o"};
  QDC_RETURN_IF_ERROR(RunChecked(argv, ccache_env).status());  // the miss that fills the cache
  std::vector<double> micros;
  for (int i = 0; i < runs; ++i) {
    QDC_ASSIGN_OR_RETURN(TimedRun run, RunTimed(argv, ccache_env));
    if (run.exit_code != 0) return Internal("ccache hit run failed");
    micros.push_back(run.seconds * 1e6);
  }
  // Every timed run must have been a direct hit, or the figure is not a hit's.
  Expected<std::string> stats = RunChecked({ccache, "--print-stats"}, ccache_env);
  const std::string field = "direct_cache_hit\t";
  const std::size_t at = stats.ok() ? stats->find(field) : std::string::npos;
  const long hits = at == std::string::npos ? -1 : std::atol(stats->c_str() + at + field.size());
  if (hits != runs) {
    *why = "ccache answered " + std::to_string(hits) + " of " + std::to_string(runs) +
           " runs as direct hits (-1: no --print-stats): no ccache comparison";
    return std::vector<double>();
  }
  return micros;
}

}  // namespace

Status RunHitLatency(BenchEnv& env, Report& report) {
  const char* kScenario = "1 hit";
  const std::string fast_key = "bench-hit";
  const v1::KernelDescriptor d = HitKernel(env, 0, fast_key);
  QDC_ASSIGN_OR_RETURN(v1::CompileResult first, CompileOne(*env.uds, d));
  const std::size_t size = first.artifact().payload().size();
  // Aliases belong to the tenant that made them: the TCP peer (a token)
  // records its own.
  QDC_RETURN_IF_ERROR(CompileOne(*env.tcp, d).status());

  const v1::LookupRequest lookup = LookupOf(fast_key);
  const bench_echo::EchoMessage echo = EchoRequestFor(lookup, size);
  QDC_ASSIGN_OR_RETURN(auto raw, RawEchoClient::Connect(env.raw_echo_path));
  std::string raw_answer;
  v1::CompileRequest compile;
  *compile.add_kernels() = d;

  auto ir_hit = [&](client::Client& client) -> Status {
    QDC_ASSIGN_OR_RETURN(v1::CompileResponse r, client.Compile(compile));
    if (r.results_size() != 1 || r.results(0).status() != v1::CACHE_STATUS_HIT) return Internal("IR hit missed");
    return Status::Ok();
  };

  std::vector<Variant> variants;
  variants.push_back({"hit by fast key (Lookup), UDS, lean transport", [&] { return LookupCall(*env.uds, lookup); }, {}});
  variants.push_back({"hit by fast key (Lookup), TCP", [&] { return LookupCall(*env.tcp, lookup); }, {}});
  variants.push_back({"hit by IR (Compile), UDS, lean transport", [&] { return ir_hit(*env.uds); }, {}});
  variants.push_back({"bare gRPC call, UDS", [&] { return EchoCall(*env.echo_uds, echo); }, {}});
  variants.push_back({"bare gRPC call, TCP", [&] { return EchoCall(*env.echo_tcp, echo); }, {}});
  variants.push_back({"raw unix-socket round trip", [&] {
                        return raw->RoundTrip(echo.payload(), echo.reply_bytes(), &raw_answer);
                      }, {}});
  variants.push_back({"hit by fast key (Lookup), UDS, gRPC", [&] { return LookupCall(*env.uds_grpc, lookup); }, {}});
  variants.push_back({"hit by IR (Compile), UDS, gRPC", [&] { return ir_hit(*env.uds_grpc); }, {}});

  // Rounds interleave the variants so that noise hits them alike; the
  // first round warms up and is not counted.
  for (int round = 0; round <= env.options.rounds; ++round) {
    for (Variant& v : variants) {
      for (int i = 0; i < env.options.calls_per_round; ++i) {
        Status s;
        const double seconds = SecondsOf([&] { s = v.call(); });
        QDC_RETURN_IF_ERROR(s.WithContext(v.name));
        if (round > 0) v.micros.push_back(seconds * 1e6);
      }
    }
  }
  std::vector<Summary> s;
  for (Variant& v : variants) {
    s.push_back(Summarize(v.micros));
    report.Add({kScenario, v.name + " (" + std::to_string(size) + " B)", "us", s.back()});
  }
  // What a Python framework asking for one kernel at a time sees: a
  // process of its own per round (its calls cannot interleave with the
  // variants above), each call until the payload is in hand.
  std::vector<double> python_micros;
  const std::string python = testing::FindOnPath("python3");
  if (!python.empty()) {
    const std::vector<std::string> argv = {python, "-S", PythonWarmStartScript(), "hits", env.daemon->socket_path(),
                                           "bench", "cpu:x86-64", fast_key,
                                           std::to_string(env.options.calls_per_round)};
    for (int round = 0; round < env.options.rounds; ++round) {
      QDC_ASSIGN_OR_RETURN(nlohmann::json out,
                           RunPythonChild(argv, static_cast<std::size_t>(env.options.calls_per_round),
                                          env.dir / "pycache"));
      for (const nlohmann::json& us : out.value("us", nlohmann::json::array())) {
        if (!us.is_number()) return Internal("python hits child printed a time that is not a number: " + out.dump());
        python_micros.push_back(us.get<double>());
      }
    }
    report.Add({kScenario, "hit by fast key, Python Client.lookup of one key (" + std::to_string(size) + " B)", "us",
                Summarize(python_micros)});
  } else {
    report.Note(kScenario, "no python3 on PATH: the Python hit was not measured");
  }
  std::string no_ccache;
  QDC_ASSIGN_OR_RETURN(std::vector<double> ccache, CcacheHits(env, std::max(10, env.options.rounds), &no_ccache));
  report.Compare(kScenario, "Lookup UDS (lean) p50 / raw unix-socket p50", s[0].p50, s[5].p50, 1.5);
  report.Compare(kScenario, "Lookup UDS (gRPC) p50 / raw unix-socket p50", s[6].p50, s[5].p50, std::nullopt);
  report.Compare(kScenario, "Lookup UDS (gRPC) p50 / bare gRPC UDS p50", s[6].p50, s[3].p50, std::nullopt);
  report.Compare(kScenario, "Lookup TCP p50 / bare gRPC TCP p50", s[1].p50, s[4].p50, std::nullopt);
  report.Compare(kScenario, "Compile hit UDS p50 / raw unix-socket p50", s[2].p50, s[5].p50, std::nullopt);
  if (!python_micros.empty()) {
    report.Compare(kScenario, "Python Lookup p50 / raw unix-socket p50", Summarize(python_micros).p50, s[5].p50,
                   std::nullopt);
  }
  if (ccache.empty()) {
    report.Note(kScenario, no_ccache);
  } else {
    const Summary c = Summarize(ccache);
    report.Add({kScenario, "ccache hit (ccache cc -c, a process)", "us", c});
    report.Compare(kScenario, "ccache hit p50 / Lookup UDS p50 (times faster)", c.p50, s[0].p50,
                   std::nullopt, 30.0);
  }
  return Status::Ok();
}

}  // namespace qdcache::bench

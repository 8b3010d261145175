// qdcache_load: a load generator against a real daemon. Starts qdcached on a
// temporary socket and store, pre-compiles a set of warm kernels, then runs
// --clients client processes (this binary re-executed with --worker) that
// mix hits, fast-key lookups, fresh compiles and bad input for --seconds,
// while it samples the daemon's RSS and open fds. See README.md.
//
// Exit status: 0 when every request got its expected answer and neither RSS
// nor the fd count grew after warm-up beyond the tolerances; 1 otherwise;
// 2 on a usage error.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "tests/load/load_worker.h"
#include "tests/load/process_sampler.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/redis_server.h"
#include "tests/support/subprocess.h"

namespace qdcache::load {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  double seconds = 10;
  int clients = 8;
  double warmup_fraction = 0.25;
  int sample_ms = 250;
  // RocksDB memtables (64 MiB write buffer) fill between flushes, so RSS saws
  // by up to ~70 MiB under a steady write load without any leak.
  std::uint64_t rss_tolerance_mib = 96;
  std::uint64_t fd_tolerance = 8;
  // When set (the soak: 5), RSS and fds compared as medians of a window at
  // the end of warm-up and at the end of the run, within this many percent.
  double flat_percent = 0;
  double flat_window = 0.1;  // the windows' length, as a fraction of the run
  std::uint64_t worker_rss_max_mib = 1024;  // any compile worker, any sample
  bool no_cuda = false;
  bool redis = false;  // a Redis tier (redis-server started here) behind the daemon
  std::uint64_t seed = 0;
  std::vector<std::string> daemon_args;
  std::string samples_csv;  // write every sample here
  WorkerConfig worker;
  // --worker mode (internal)
  bool is_worker = false;
  std::string out;
};

double Percentile(std::vector<std::uint32_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1] / 1000.0;
}

double Mib(std::uint64_t kib) { return static_cast<double>(kib) / 1024.0; }

pid_t SpawnWorker(const Options& o, const std::string& socket, int index, const std::string& out) {
  std::vector<std::string> argv = {"/proc/self/exe", "--worker",
                                   "--socket",       socket,
                                   "--seconds",      std::to_string(o.seconds),
                                   "--index",        std::to_string(index),
                                   "--seed",         std::to_string(o.seed + 7919 * (index + 1)),
                                   "--warm-kernels", std::to_string(o.worker.warm_kernels),
                                   "--hit-ratio",    std::to_string(o.worker.hit_ratio),
                                   "--lookup-ratio", std::to_string(o.worker.lookup_ratio),
                                   "--bad-ratio",    std::to_string(o.worker.bad_ratio),
                                   "--rate",         std::to_string(o.worker.rate),
                                   "--out",          out};
  if (!o.worker.cuda) argv.push_back("--no-cuda");
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  if (pid < 0) throw std::runtime_error("fork failed");
  return pid;
}

// Warm kernels, compiled once before the load so that "hit" and "lookup"
// requests have something to find.
void CompileWarmSet(const testing::DaemonProcess& daemon, int count, bool cuda) {
  v1::CompileRequest request;
  for (int n = 0; n < count; ++n) *request.add_kernels() = WarmKernel(n, cuda);
  auto response = daemon.Connect()->Compile(std::move(request));
  if (!response.ok()) throw std::runtime_error("warm-up compile: " + response.status().ToString());
  for (const v1::CompileResult& r : response->results()) {
    if (!r.has_artifact()) throw std::runtime_error("warm-up compile: " + r.ShortDebugString());
  }
}

// The median of `value` over the samples taken in [from, to) seconds.
template <typename Value>
double WindowMedian(const std::vector<ProcessSample>& samples, double from, double to, Value value) {
  std::vector<double> v;
  for (const ProcessSample& s : samples) {
    if (s.at_seconds >= from && s.at_seconds < to) v.push_back(static_cast<double>(value(s)));
  }
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string FormatRate(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", rate);
  return text;
}

int RunDriver(const Options& o) {
  testing::TempDir dir;
  // All clients are one tenant (this uid): its malformed inputs would spend
  // the failure budget and refuse its fresh compiles, which is not what a
  // load run measures. --daemon-arg=--peer-failure-burst=N comes after and wins.
  std::vector<std::string> daemon_args = {"--peer-failure-burst", "0"};
  std::unique_ptr<testing::RedisServer> redis;
  if (o.redis) {
    if (!testing::RedisAvailable()) throw std::runtime_error("--redis: redis-server is not installed");
    std::filesystem::create_directories(dir / "redis");
    redis = std::make_unique<testing::RedisServer>(dir / "redis");
    redis->Start();
    daemon_args.insert(daemon_args.end(), {"--remote", "redis://" + redis->endpoint().ToString() + "/load"});
  }
  daemon_args.insert(daemon_args.end(), o.daemon_args.begin(), o.daemon_args.end());
  std::filesystem::create_directories(dir / "daemon");
  testing::DaemonProcess daemon(dir / "daemon", daemon_args);
  daemon.Start();
  CompileWarmSet(daemon, o.worker.warm_kernels, o.worker.cuda);
  // The store's own files (tables, blob files, WAL) are counted apart: their
  // number follows the data stored, up to the store's open-file bound.
  const std::string store_dir = std::filesystem::canonical(daemon.store_dir()).string();
  const std::optional<ProcessSample> idle = SampleProcess(daemon.pid(), store_dir);
  if (!idle) throw std::runtime_error("cannot sample the daemon");
  std::printf(
      "qdcache_load: %d client processes for %.0f s%s, seed %llu, CPU%s targets%s; daemon pid %d idle: RSS "
      "%.1f MiB, %llu fds\n",
      o.clients, o.seconds,
      o.worker.rate > 0 ? (" at " + FormatRate(o.worker.rate) + " requests/s each").c_str() : "",
      static_cast<unsigned long long>(o.seed), o.worker.cuda ? " and CUDA" : "", redis ? ", Redis tier" : "",
      daemon.pid(), Mib(idle->rss_kib), static_cast<unsigned long long>(idle->fds));
  std::fflush(stdout);

  std::vector<pid_t> workers;
  for (int i = 0; i < o.clients; ++i) {
    workers.push_back(
        SpawnWorker(o, daemon.socket_path(), i, dir / ("worker-" + std::to_string(i))));
  }
  // Sampling is what this loop is for: the interval is a measurement period,
  // not a wait for some event.
  const Clock::time_point t0 = Clock::now();
  std::vector<ProcessSample> samples;
  std::uint64_t worker_peak_kib = 0;  // the largest RSS of any compile worker seen
  std::size_t end_sample = 0;  // last sample while every worker still ran
  int running = o.clients, failed_workers = 0;
  bool daemon_gone = false;
  while (running > 0) {
    std::optional<ProcessSample> s = SampleProcess(daemon.pid(), store_dir);
    if (!s) {
      daemon_gone = true;
      break;
    }
    s->at_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    samples.push_back(*s);
    for (pid_t child : ChildrenOf(daemon.pid())) {
      if (std::optional<ProcessSample> w = SampleProcess(child)) worker_peak_kib = std::max(worker_peak_kib, w->rss_kib);
    }
    for (pid_t& pid : workers) {
      int status = 0;
      if (pid > 0 && ::waitpid(pid, &status, WNOHANG) == pid) {
        if (running == o.clients) end_sample = samples.size() >= 2 ? samples.size() - 2 : 0;
        pid = -1;
        --running;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed_workers;
      }
    }
    // The sampling period (what --sample-ms sets), not a wait for an event:
    // a client that ends is reaped at the next sample.
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.sample_ms));
  }
  for (pid_t pid : workers) {
    if (pid > 0) ::waitpid(pid, nullptr, 0);
  }

  LoadResult total;
  for (int i = 0; i < o.clients; ++i) {
    LoadResult one;
    std::string text;
    try {
      text = testing::ReadFileOrDie(dir / ("worker-" + std::to_string(i)));
    } catch (const std::exception&) {
      ++failed_workers;
      continue;
    }
    if (!LoadResult::Parse(text, &one)) ++failed_workers;
    total.Merge(one);
  }
  Expected<v1::Stats> stats =
      daemon_gone ? Expected<v1::Stats>(Unavailable("daemon gone")) : daemon.Connect()->Stats();
  const int stop = daemon_gone ? -1 : daemon.Stop();

  // Requests and outcomes.
  std::uint64_t requests = 0, unexpected = 0;
  std::printf("\n%-40s %10s\n", "outcome", "count");
  for (const auto& [k, n] : total.outcomes) {
    requests += n;
    if (k.substr(k.find(' ') + 1) != "ok") unexpected += n;
    std::printf("%-40s %10llu\n", k.c_str(), static_cast<unsigned long long>(n));
  }
  std::printf("%llu requests in %.1f s (%.0f/s), %llu unexpected\n\n",
              static_cast<unsigned long long>(requests), o.seconds,
              static_cast<double>(requests) / o.seconds,
              static_cast<unsigned long long>(unexpected));
  std::printf("%-10s %10s %10s %10s %10s\n", "latency", "n", "p50 ms", "p99 ms", "max ms");
  std::vector<std::uint32_t> all;
  for (const auto& [op, v] : total.latency_us) {
    all.insert(all.end(), v.begin(), v.end());
    std::printf("%-10s %10zu %10.2f %10.2f %10.2f\n", op.c_str(), v.size(), Percentile(v, 0.5),
                Percentile(v, 0.99), Percentile(v, 1.0));
  }
  std::printf("%-10s %10zu %10.2f %10.2f %10.2f\n\n", "all", all.size(), Percentile(all, 0.5),
              Percentile(all, 0.99), Percentile(all, 1.0));
  if (stats.ok()) {
    std::printf(
        "daemon: %llu compiles, %llu hits, %llu alias hits, %llu coalesced, %llu errors, "
        "%llu store errors, %llu artifacts stored (%.1f MiB), remote %s (%llu hits, %llu writes, %llu errors)\n",
        static_cast<unsigned long long>(stats->compiles()),
        static_cast<unsigned long long>(stats->hits()),
        static_cast<unsigned long long>(stats->alias_hits()),
        static_cast<unsigned long long>(stats->coalesced()),
        static_cast<unsigned long long>(stats->errors()),
        static_cast<unsigned long long>(stats->store_errors()),
        static_cast<unsigned long long>(stats->store_artifacts()),
        static_cast<double>(stats->total_bytes()) / (1 << 20), stats->remote_state().c_str(),
        static_cast<unsigned long long>(stats->remote_hits()),
        static_cast<unsigned long long>(stats->remote_writes()),
        static_cast<unsigned long long>(stats->remote_errors() + stats->remote_write_failures()));
    std::printf("compile workers: %llu started, %llu crashed; largest RSS seen %.1f MiB (bound %llu MiB)\n",
                static_cast<unsigned long long>(stats->worker_starts()),
                static_cast<unsigned long long>(stats->worker_crashes()), Mib(worker_peak_kib),
                static_cast<unsigned long long>(o.worker_rss_max_mib));
  }
  if (!o.samples_csv.empty()) {
    std::string csv = "seconds,rss_kib,fds,store_fds\n";
    for (const ProcessSample& s : samples) {
      csv += std::to_string(s.at_seconds) + "," + std::to_string(s.rss_kib) + "," +
             std::to_string(s.fds) + "," + std::to_string(s.fds_under) + "\n";
    }
    testing::WriteFileOrDie(o.samples_csv, csv);
  }

  // Resources: warm-up (the first sample at warmup_fraction of the run) vs end.
  std::vector<std::string> failures;
  if (daemon_gone) failures.push_back("the daemon exited during the load");
  if (stop != 0 && !daemon_gone)
    failures.push_back("daemon exit status " + std::to_string(stop) + " on SIGTERM");
  if (failed_workers > 0)
    failures.push_back(std::to_string(failed_workers) + " client processes failed");
  if (unexpected > 0) failures.push_back(std::to_string(unexpected) + " unexpected outcomes");
  if (stats.ok() && stats->store_errors() > 0) failures.push_back("store errors");
  if (worker_peak_kib > o.worker_rss_max_mib * 1024) {
    failures.push_back("a compile worker reached " + std::to_string(worker_peak_kib / 1024) + " MiB RSS");
  }
  std::size_t warm = 0;
  while (warm < end_sample && samples[warm].at_seconds < o.warmup_fraction * o.seconds) ++warm;
  if (samples.size() < 2 || warm >= end_sample) {
    failures.push_back("too few samples to compare warm-up with the end (run longer)");
  } else {
    const ProcessSample& w = samples[warm];
    const ProcessSample& e = samples[end_sample];
    std::uint64_t peak = 0;
    for (const ProcessSample& s : samples) peak = std::max(peak, s.rss_kib);
    std::printf(
        "daemon RSS: idle %.1f MiB, warm-up (%.1f s) %.1f MiB, end (%.1f s) %.1f MiB, "
        "peak %.1f MiB; tolerance +%llu MiB\n",
        Mib(idle->rss_kib), w.at_seconds, Mib(w.rss_kib), e.at_seconds, Mib(e.rss_kib), Mib(peak),
        static_cast<unsigned long long>(o.rss_tolerance_mib));
    auto ull = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf(
        "daemon fds: idle %llu, warm-up %llu, end %llu; tolerance +%llu; of them the store's files: "
        "idle %llu, warm-up %llu, end %llu\n",
        ull(idle->fds), ull(w.fds), ull(e.fds), ull(o.fd_tolerance), ull(idle->fds_under),
        ull(w.fds_under), ull(e.fds_under));
    if (o.flat_percent > 0) {
      // Medians of a window (--flat-window of the run) right after warm-up and
      // at the end: one sample can sit at any point of the memtables' sawtooth.
      const double window = std::max(o.seconds * o.flat_window, 2.0 * o.sample_ms / 1000);
      const double w0 = samples[warm].at_seconds, e1 = samples[end_sample].at_seconds + 1e-9;
      auto rss = [](const ProcessSample& p) { return p.rss_kib; };
      // Connections, pipes to workers, sockets, event fds: where a leak would
      // show. The store's files are reported beside them (they follow the
      // data: a flush adds a table and a blob file, compaction merges).
      auto fds = [](const ProcessSample& p) { return p.fds - p.fds_under; };
      auto store_fds = [](const ProcessSample& p) { return p.fds_under; };
      const double rss_w = WindowMedian(samples, w0, w0 + window, rss), rss_e = WindowMedian(samples, e1 - window, e1, rss);
      const double fds_w = WindowMedian(samples, w0, w0 + window, fds), fds_e = WindowMedian(samples, e1 - window, e1, fds);
      const double rss_change = 100 * (rss_e - rss_w) / rss_w, fds_change = 100 * (fds_e - fds_w) / fds_w;
      std::printf(
          "flat after warm-up (medians of %.0f s windows): RSS %.1f -> %.1f MiB (%+.1f%%), fds other than "
          "the store's files %.0f -> %.0f (%+.1f%%); tolerance %.0f%%; the store's files %.0f -> %.0f\n",
          window, rss_w / 1024, rss_e / 1024, rss_change, fds_w, fds_e, fds_change, o.flat_percent,
          WindowMedian(samples, w0, w0 + window, store_fds), WindowMedian(samples, e1 - window, e1, store_fds));
      if (std::abs(rss_change) > o.flat_percent) failures.push_back("RSS not flat after warm-up");
      if (std::abs(fds_change) > o.flat_percent) failures.push_back("fd count not flat after warm-up");
    }
    if (e.rss_kib > w.rss_kib + o.rss_tolerance_mib * 1024) {
      failures.push_back("RSS grew by " + std::to_string((e.rss_kib - w.rss_kib) / 1024) +
                         " MiB after warm-up");
    }
    const std::uint64_t other_w = w.fds - w.fds_under, other_e = e.fds - e.fds_under;
    if (other_e > other_w + o.fd_tolerance) {
      failures.push_back("open fds other than the store's files grew by " +
                         std::to_string(other_e - other_w) + " after warm-up");
    }
  }
  if (failures.empty()) {
    std::printf("PASS\n");
    return 0;
  }
  for (const std::string& f : failures) std::fprintf(stderr, "FAIL: %s\n", f.c_str());
  std::fprintf(
      stderr, "daemon log tail:\n%s\n",
      daemon.log().substr(daemon.log().size() > 4000 ? daemon.log().size() - 4000 : 0).c_str());
  return 1;
}

int RunWorkerProcess(const Options& o) {
  LoadResult result = RunWorker(o.worker);
  testing::WriteFileOrDie(o.out, result.Serialize());
  return 0;
}

}  // namespace
}  // namespace qdcache::load

int main(int argc, char** argv) {
  qdcache::load::Options o;
  CLI::App app{"mixed load against a real qdcached, watching its RSS and open fds"};
  app.add_option("--seconds", o.seconds, "how long the clients send requests")
      ->check(CLI::PositiveNumber);
  app.add_option("--clients", o.clients, "client processes")->check(CLI::Range(1, 512));
  app.add_option("--warmup-fraction", o.warmup_fraction,
                 "RSS and fds are compared from this fraction of the run on")
      ->check(CLI::Range(0.0, 0.9));
  app.add_option("--sample-ms", o.sample_ms, "sampling period")->check(CLI::Range(10, 60000));
  app.add_option("--rss-tolerance-mib", o.rss_tolerance_mib, "allowed RSS growth after warm-up");
  app.add_option("--fd-tolerance", o.fd_tolerance, "allowed fd growth after warm-up");
  app.add_option("--seed", o.seed, "seed of the request mix");
  app.add_option("--samples-csv", o.samples_csv, "write every RSS/fd sample to this CSV file");
  app.add_option("--flat-percent", o.flat_percent,
                 "RSS and fds must stay within this many percent after warm-up (window medians; 0: off)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--flat-window", o.flat_window,
                 "length of the windows --flat-percent compares, as a fraction of the run: at least one "
                 "memtable flush cycle (the RSS sawtooth) should fit")
      ->check(CLI::Range(0.01, 0.5));
  app.add_option("--worker-rss-max-mib", o.worker_rss_max_mib, "largest RSS a compile worker may reach");
  app.add_flag("--no-cuda", o.no_cuda, "CPU kernels only, even in a CUDA build");
  app.add_flag("--redis", o.redis, "put a Redis tier (a redis-server started here) behind the daemon");
  app.add_option("--rate", o.worker.rate, "requests per second per client (0: as fast as answered)")
      ->check(CLI::Range(0.0, 100000.0));
  app.add_option("--daemon-arg", o.daemon_args,
                 "extra qdcached flag (repeatable), e.g. --daemon-arg=--workers=4");
  app.add_option("--warm-kernels", o.worker.warm_kernels, "kernels compiled before the load")
      ->check(CLI::Range(1, 4096));
  app.add_option("--hit-ratio", o.worker.hit_ratio, "share of compile requests for warm kernels")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--lookup-ratio", o.worker.lookup_ratio, "share of fast-key lookups")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--bad-ratio", o.worker.bad_ratio, "share of malformed IR")
      ->check(CLI::Range(0.0, 1.0));
  // Internal: one client process.
  app.add_flag("--worker", o.is_worker)->group("");
  app.add_option("--socket", o.worker.socket)->group("");
  app.add_option("--index", o.worker.index)->group("");
  app.add_option("--out", o.out)->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  o.worker.seconds = o.seconds;
  o.worker.seed = o.seed;
  o.worker.cuda = qdcache::testing::CudaBuilt() && !o.no_cuda;
  try {
    return o.is_worker ? qdcache::load::RunWorkerProcess(o) : qdcache::load::RunDriver(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
}

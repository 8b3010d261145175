// The Redis remote tier through real daemons with separate local stores and
// a real Redis (one server, or a cluster of three masters), started by the
// test. Each behaviour runs against both deployments. Skipped (with a
// warning) when redis-server is not on PATH.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "tests/support/daemon_process.h"
#include "tests/support/log_watch.h"
#include "tests/support/kernels.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

constexpr const char* kPrefix = "itest:";

// A standalone server or a cluster, behind one URL.
class Backend {
 public:
  Backend(const std::string& dir, bool cluster) : dir_(dir), cluster_(cluster) {
    if (cluster_) {
      cluster_nodes_ = std::make_unique<RedisCluster>(dir_);
      cluster_nodes_->Start();
    } else {
      server_ = std::make_unique<RedisServer>(dir_);
      server_->Start();
    }
  }
  std::string Url() {
    std::string url = cluster_ ? "redis-cluster://" : "redis://";
    std::vector<RedisServer*> nodes = Nodes();
    // A cluster is reached through one seed; the others come from CLUSTER SLOTS.
    url += nodes.front()->endpoint().ToString();
    return url + "/" + kPrefix;
  }
  std::vector<RedisServer*> Nodes() {
    if (!cluster_) return {server_.get()};
    std::vector<RedisServer*> nodes;
    for (auto& n : cluster_nodes_->nodes()) nodes.push_back(n.get());
    return nodes;
  }
  void Kill() {
    if (cluster_) {
      cluster_nodes_->KillAll();
    } else {
      server_->Kill();
    }
  }
  void Restart() {
    if (cluster_) {
      cluster_nodes_->RestartAll();
    } else {
      server_->Start();
    }
  }

 private:
  const std::string dir_;
  const bool cluster_;
  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisCluster> cluster_nodes_;
};

std::string SubDir(const TempDir& dir, const std::string& name) {
  const std::string path = dir / name;
  ::mkdir(path.c_str(), 0700);
  return path;
}

std::vector<std::string> RemoteArgs(Backend& backend, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--remote", backend.Url(), "--remote-backoff", "200ms",
                                   "--workers", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A small, distinct CPU kernel per `n`, with a fast key.
v1::KernelDescriptor Kernel(int n) {
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @value() {\n  ret i64 " + std::to_string(n) + "\n}\n");
  d.set_fast_key("remote-fk-" + std::to_string(n));
  d.set_namespace_("remote-test");
  return d;
}

void SharesArtifactsBetweenDaemons(bool cluster) {
  TempDir dir;
  Backend backend(SubDir(dir, "redis"), cluster);
  DaemonProcess a(SubDir(dir, "a"), RemoteArgs(backend));
  DaemonProcess b(SubDir(dir, "b"), RemoteArgs(backend));
  a.Start();
  b.Start();
  const v1::KernelDescriptor d = Kernel(1);
  const v1::CompileResult compiled = CompileOne(*a.Connect(), d);
  REQUIRE(compiled.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(StatsOf(a).remote_writes() >= 2);  // the artifact and its alias

  // B has never seen the kernel: the fast key and the IR both find A's artifact.
  const v1::CompileResult by_fast_key = LookupOne(b, d);
  REQUIRE(by_fast_key.status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(by_fast_key.artifact().payload() == compiled.artifact().payload());
  const v1::CompileResult by_ir = CompileOne(*b.Connect(), Kernel(1));
  CHECK(by_ir.status() == v1::CACHE_STATUS_HIT);
  CHECK(by_ir.artifact().payload() == compiled.artifact().payload());

  const v1::Stats s = StatsOf(b);
  CHECK(s.compiles() == 0);
  CHECK(s.remote_hits() >= 2);
  CHECK(s.remote_corrupt() == 0);
  CHECK(s.remote_state() == "ok");
  CHECK(s.store_artifacts() == 1);  // back-filled into B's local store
  CHECK(b.Connect()->Ping("qdcache.remote").ok());
}

void SurvivesRedisDownAndReconnects(bool cluster) {
  TempDir dir;
  Backend backend(SubDir(dir, "redis"), cluster);
  DaemonProcess a(SubDir(dir, "a"), RemoteArgs(backend));
  DaemonProcess b(SubDir(dir, "b"), RemoteArgs(backend));
  a.Start();
  b.Start();
  const v1::CompileResult first = CompileOne(*a.Connect(), Kernel(1));
  REQUIRE(CompileOne(*b.Connect(), Kernel(1)).status() == v1::CACHE_STATUS_HIT);

  backend.Kill();
  // Local hits and new compiles go on; the failures open B's breaker.
  const v1::CompileResult local = CompileOne(*b.Connect(), Kernel(1));
  CHECK(local.status() == v1::CACHE_STATUS_HIT);
  CHECK(local.artifact().payload() == first.artifact().payload());
  for (int n = 10; n < 13; ++n) {
    CHECK(CompileOne(*b.Connect(), Kernel(n)).status() == v1::CACHE_STATUS_COMPILED);
  }
  v1::Stats down = StatsOf(b);
  CHECK(down.remote_state() == "degraded");
  CHECK(down.remote_errors() + down.remote_write_failures() >= 3);
  CHECK(down.compiles() == 3);

  const std::size_t log_mark = FileSize(b.log_path());
  backend.Restart();
  // Without restarting either daemon: at the end of its back-off B probes
  // Redis by itself and says so; from then on it finds what A writes.
  REQUIRE(WaitForLogText(b.log_path(), log_mark, " is back", b.pid()));
  REQUIRE(CompileOne(*a.Connect(), Kernel(100)).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(LookupOne(b, Kernel(100)).status() == v1::CACHE_STATUS_ALIAS_HIT);
  const v1::Stats up = StatsOf(b);
  CHECK(up.remote_state() == "ok");
  CHECK(up.remote_hits() > down.remote_hits());
  CHECK(a.Alive());
  CHECK(b.Alive());
}

void CorruptValueIsAMiss(bool cluster) {
  TempDir dir;
  Backend backend(SubDir(dir, "redis"), cluster);
  DaemonProcess a(SubDir(dir, "a"), RemoteArgs(backend));
  DaemonProcess b(SubDir(dir, "b"), RemoteArgs(backend));
  a.Start();
  b.Start();
  const v1::CompileResult compiled = CompileOne(*a.Connect(), Kernel(7));
  REQUIRE(OverwriteKeys(backend.Nodes(), std::string(kPrefix) + "v1:a:*", "QDRM not really") == 1);

  const v1::CompileResult again = CompileOne(*b.Connect(), Kernel(7));
  CHECK(again.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(again.artifact().payload() == compiled.artifact().payload());
  const v1::Stats s = StatsOf(b);
  CHECK(s.remote_corrupt() >= 1);  // read again by the compile leader
  CHECK(s.compiles() == 1);
  CHECK(s.remote_state() == "ok");
  // B's write-through replaced the corrupt value: a third daemon hits.
  DaemonProcess c(SubDir(dir, "c"), RemoteArgs(backend));
  c.Start();
  CHECK(CompileOne(*c.Connect(), Kernel(7)).status() == v1::CACHE_STATUS_HIT);
}

void ReadOnlyNeverWrites(bool cluster) {
  TempDir dir;
  Backend backend(SubDir(dir, "redis"), cluster);
  DaemonProcess reader(SubDir(dir, "r"), RemoteArgs(backend, {"--remote-read-only"}));
  reader.Start();
  CHECK(CompileOne(*reader.Connect(), Kernel(3)).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(DbSize(backend.Nodes()) == 0);

  DaemonProcess writer(SubDir(dir, "w"), RemoteArgs(backend));
  writer.Start();
  const v1::CompileResult compiled = CompileOne(*writer.Connect(), Kernel(4));
  const long long written = DbSize(backend.Nodes());
  CHECK(written == 2);  // artifact and alias

  const v1::CompileResult hit = CompileOne(*reader.Connect(), Kernel(4));
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(hit.artifact().payload() == compiled.artifact().payload());
  CHECK(LookupOne(reader, Kernel(4)).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(DbSize(backend.Nodes()) == written);
  const v1::Stats s = StatsOf(reader);
  CHECK(s.remote_writes() == 0);
  CHECK(s.remote_hits() >= 1);
}

// The shared tier's admission rules and back-fill (--remote-max-share-size,
// --remote-min-share-compile, --remote-backfill), each beside a daemon with
// the defaults: an artifact the rules keep local never reaches Redis (its
// fast key does, and sends others to a miss), is counted and shown, and
// others compile it themselves.
void AdmissionRulesAndBackfill(bool cluster) {
  TempDir dir;
  Backend backend(SubDir(dir, "redis"), cluster);
  // Every CPU artifact is more than 64 bytes.
  DaemonProcess small(SubDir(dir, "small"), RemoteArgs(backend, {"--remote-max-share-size", "64B"}));
  DaemonProcess patient(SubDir(dir, "patient"), RemoteArgs(backend, {"--remote-min-share-compile", "1h"}));
  DaemonProcess plain(SubDir(dir, "plain"), RemoteArgs(backend));
  small.Start();
  patient.Start();
  plain.Start();
  REQUIRE(CompileOne(*small.Connect(), Kernel(20)).status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(CompileOne(*patient.Connect(), Kernel(21)).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(DbSize(backend.Nodes()) == 2);  // the two aliases, no artifact
  const v1::Stats s = StatsOf(small);
  CHECK(s.remote_not_shared_large() == 1);
  CHECK(s.remote_not_shared_cheap() == 0);
  CHECK(s.remote_max_share_bytes() == 64);
  CHECK(s.remote_writes() == 1);
  const v1::Stats p = StatsOf(patient);
  CHECK(p.remote_not_shared_cheap() == 1);
  CHECK(p.remote_min_share_compile_ms() == 3600 * 1000);
  CHECK(p.remote_backfill());
  // Neither artifact is anywhere but where it was compiled: others miss.
  CHECK(LookupOne(plain, Kernel(20)).status() == v1::CACHE_STATUS_MISS);
  CHECK(LookupOne(plain, Kernel(21)).status() == v1::CACHE_STATUS_MISS);
  CHECK(CompileOne(*plain.Connect(), Kernel(21)).status() == v1::CACHE_STATUS_COMPILED);
  const long long before = DbSize(backend.Nodes());  // + Kernel(21)'s artifact from `plain`
  CHECK(before == 3);
  // The defaults share: the artifact and its alias.
  const v1::CompileResult shared = CompileOne(*plain.Connect(), Kernel(22));
  REQUIRE(shared.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(DbSize(backend.Nodes()) == before + 2);
  CHECK(StatsOf(plain).remote_max_share_bytes() == 16u << 20);

  // Back-fill off: served from Redis, by fast key and by IR, never kept.
  DaemonProcess lean(SubDir(dir, "lean"), RemoteArgs(backend, {"--remote-backfill=false"}));
  lean.Start();
  CHECK(LookupOne(lean, Kernel(22)).status() == v1::CACHE_STATUS_ALIAS_HIT);
  const v1::CompileResult hit = CompileOne(*lean.Connect(), Kernel(22));
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(hit.artifact().payload() == shared.artifact().payload());
  const v1::Stats l = StatsOf(lean);
  CHECK(l.store_artifacts() == 0);
  CHECK(l.store_aliases() == 0);
  CHECK_FALSE(l.remote_backfill());
  CHECK(l.compiles() == 0);
  // A fast key of its own for that remote artifact goes to Redis only.
  v1::KernelDescriptor renamed = Kernel(22);
  renamed.set_fast_key("remote-fk-renamed");
  CHECK(CompileOne(*lean.Connect(), renamed).status() == v1::CACHE_STATUS_HIT);
  CHECK(StatsOf(lean).store_aliases() == 0);
  CHECK(DbSize(backend.Nodes()) == before + 3);
  CHECK(LookupOne(plain, renamed).status() == v1::CACHE_STATUS_ALIAS_HIT);

  // `qdcache stats` shows the policy.
  const RunResult text = Run({CliBinary(), "--socket", small.socket_path(), "stats"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("shared tier policy") && Catch::Contains("1 too large, 0 too quick to compile"));
}

}  // namespace

TEST_CASE("daemons sharing a Redis serve each other's artifacts by IR and fast key",
          "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  SharesArtifactsBetweenDaemons(false);
}

TEST_CASE("daemons sharing a Redis Cluster serve each other's artifacts by IR and fast key",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  SharesArtifactsBetweenDaemons(true);
}

TEST_CASE("with Redis down a daemon serves and compiles, then uses Redis again once it is back",
          "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  SurvivesRedisDownAndReconnects(false);
}

TEST_CASE("with the Redis Cluster down a daemon serves and compiles, then uses it again",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  SurvivesRedisDownAndReconnects(true);
}

TEST_CASE("a corrupt value in Redis is a counted miss and the daemon compiles", "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  CorruptValueIsAMiss(false);
}

TEST_CASE("a corrupt value in the Redis Cluster is a counted miss and the daemon compiles",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  CorruptValueIsAMiss(true);
}

TEST_CASE("a read-only remote tier reads Redis and writes nothing to it", "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  ReadOnlyNeverWrites(false);
}

TEST_CASE("a read-only remote tier reads the Redis Cluster and writes nothing to it",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  ReadOnlyNeverWrites(true);
}

TEST_CASE("a daemon whose Redis is unreachable at start starts, degraded", "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  TempDir dir;
  // The port of a server that has been killed: nothing listens there.
  RedisServer redis(SubDir(dir, "redis"));
  redis.Start();
  const std::string url = "redis://" + redis.endpoint().ToString() + "/" + kPrefix;
  redis.Kill();
  DaemonProcess daemon(SubDir(dir, "d"), {"--remote", url, "--remote-backoff", "1m"});
  daemon.Start();
  CHECK(CompileOne(*daemon.Connect(), Kernel(5)).status() == v1::CACHE_STATUS_COMPILED);
  const v1::Stats s = StatsOf(daemon);
  CHECK(s.remote_state() == "degraded");
  CHECK(s.remote_skipped() >= 1);
  CHECK(daemon.log().find("does not answer") != std::string::npos);
  // The daemon is healthy; the remote tier's health service says it is not.
  CHECK(daemon.Connect()->Ping().ok());
  CHECK(daemon.Connect()->Ping("qdcache.remote").code() == Code::kUnavailable);
}

TEST_CASE("a daemon without a remote reports its remote state as off", "[integration][remote]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CHECK(StatsOf(daemon).remote_state() == "off");
  CHECK(daemon.Connect()->Ping("qdcache.remote").code() == Code::kNotFound);
}

namespace {

// The compile workers of `daemon`: its child processes.
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(std::stoi(name));
  }
  return children;
}

}  // namespace

TEST_CASE("the Redis password from the environment authenticates, and compile workers never inherit it",
          "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  TempDir dir;
  RedisServer redis(SubDir(dir, "redis"));
  redis.Start();
  REQUIRE_FALSE(redis.Command({"CONFIG", "SET", "requirepass", "s3cret-pw"}).is_error());
  const std::string url = "redis://" + redis.endpoint().ToString() + "/" + kPrefix;
  DaemonProcess daemon(SubDir(dir, "d"), {"--remote", url, "--workers", "1"});
  daemon.set_env({"QDCACHED_REMOTE_PASSWORD=s3cret-pw"});
  daemon.Start();
  CHECK(CompileOne(*daemon.Connect(), Kernel(41)).status() == v1::CACHE_STATUS_COMPILED);
  const v1::Stats s = StatsOf(daemon);
  CHECK(s.remote_state() == "ok");
  CHECK(s.remote_writes() >= 1);
  CHECK(s.remote_errors() == 0);
  CHECK(daemon.log().find("s3cret-pw") == std::string::npos);
  const std::vector<pid_t> workers = ChildrenOf(daemon.pid());
  CHECK(workers.size() >= 2);  // a key worker and a compile worker
  for (pid_t worker : workers) {
    INFO("worker " << worker);
    const std::string environ = ReadFileOrDie("/proc/" + std::to_string(worker) + "/environ");
    CHECK(environ.find("QDCACHED_REMOTE_PASSWORD") == std::string::npos);
  }
}

TEST_CASE("the shared tier's admission rules keep large and quick artifacts local, and back-fill can be off",
          "[integration][remote]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  AdmissionRulesAndBackfill(false);
}

TEST_CASE("the Redis Cluster tier's admission rules keep large and quick artifacts local, and back-fill can be off",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("remote tier tests")) return;
  AdmissionRulesAndBackfill(true);
}

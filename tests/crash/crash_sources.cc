#include "tests/crash/crash_sources.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

namespace qdcache::crash {
namespace {

namespace fs = std::filesystem;

// Compiles kernels first_id .. first_id + count - 1 through `producer` and
// records each in the oracle as a candidate.
std::vector<Acknowledged> Produce(testing::DaemonProcess& producer, Oracle& oracle, std::uint64_t first_id,
                                  int count, bool cuda) {
  std::unique_ptr<client::Client> client = producer.Connect();
  std::vector<Acknowledged> made;
  for (int i = 0; i < count; ++i) {
    KernelSpec spec;
    spec.id = first_id + static_cast<std::uint64_t>(i);
    spec.cuda = cuda && i % 4 == 3;
    spec.fast_key = i % 2 == 0;
    v1::CompileRequest request;
    *request.add_kernels() = KernelDescriptorOf(spec);
    Expected<v1::CompileResponse> response = client->Compile(std::move(request));
    if (!response.ok() || !response->results(0).has_artifact()) {
      throw std::runtime_error("producer could not compile kernel " + std::to_string(spec.id) + ": " +
                               (response.ok() ? Summary(response->results(0)) : response.status().ToString()));
    }
    const v1::Artifact& a = response->results(0).artifact();
    Acknowledged entry{-1, spec, a.artifact_key(), Sha256Hex(a.payload()), /*guaranteed=*/false};
    oracle.Add(entry);
    made.push_back(std::move(entry));
  }
  return made;
}

}  // namespace

ImportSource MakeImportSource(const std::string& dir, Oracle& oracle, std::uint64_t first_id, int count,
                              bool cuda) {
  fs::create_directories(dir);
  testing::DaemonProcess producer(dir);
  producer.Start();
  ImportSource source;
  for (const Acknowledged& a : Produce(producer, oracle, first_id, count, cuda)) source.ids.push_back(a.spec.id);
  source.bundle = dir + "/crash.qdcb";
  const testing::RunResult exported = testing::Run(
      {testing::CliBinary(), "--socket", producer.socket_path(), "--no-spawn", "export", "--out", source.bundle});
  if (exported.exit_code != 0) throw std::runtime_error("export failed: " + exported.err);
  if (producer.Stop() != 0) throw std::runtime_error("the producer daemon did not stop cleanly");
  return source;
}

std::unique_ptr<RemoteSource> MakeRemoteSource(const std::string& dir, Oracle& oracle, std::uint64_t first_id,
                                               int count, bool cuda) {
  if (!testing::RedisAvailable()) return nullptr;
  fs::create_directories(dir + "/redis");
  auto source = std::make_unique<RemoteSource>();
  source->redis = std::make_unique<testing::RedisServer>(dir + "/redis");
  source->redis->Start();
  source->url = "redis://" + source->redis->endpoint().ToString() + "/crash";
  fs::create_directories(dir + "/producer");
  testing::DaemonProcess producer(dir + "/producer", {"--remote", source->url});
  producer.Start();
  source->kernels = Produce(producer, oracle, first_id, count, cuda);
  const v1::Stats stats = testing::StatsOf(producer);
  if (stats.remote_writes() < static_cast<std::uint64_t>(count)) {
    throw std::runtime_error("the producer wrote only " + std::to_string(stats.remote_writes()) +
                             " values to Redis");
  }
  if (producer.Stop() != 0) throw std::runtime_error("the producer daemon did not stop cleanly");
  return source;
}

std::string DamageNewestFile(const std::string& store_dir, std::mt19937_64& rng) {
  // RocksDB numbers its files in creation order: the highest number of a
  // kind is its newest file.
  std::vector<std::pair<std::uint64_t, fs::path>> newest;  // one per kind with a non-empty file
  for (const char* ext : {".log", ".sst", ".blob"}) {
    std::pair<std::uint64_t, fs::path> best{0, {}};
    for (const fs::directory_entry& e : fs::directory_iterator(store_dir)) {
      if (e.path().extension() != ext || !e.is_regular_file() || e.file_size() == 0) continue;
      const std::uint64_t number = std::stoull("0" + e.path().stem().string());
      if (best.second.empty() || number > best.first) best = {number, e.path()};
    }
    if (!best.second.empty()) newest.push_back(best);
  }
  if (newest.empty()) return "";
  const fs::path victim = newest[std::uniform_int_distribution<std::size_t>(0, newest.size() - 1)(rng)].second;
  const std::uintmax_t size = fs::file_size(victim);
  const std::uintmax_t cut =
      std::uniform_int_distribution<std::uintmax_t>(1, std::min<std::uintmax_t>(size, 4096))(rng);
  fs::resize_file(victim, size - cut);
  return "cut " + std::to_string(cut) + " of " + std::to_string(size) + " bytes off " +
         victim.filename().string();
}

int MovedAsideStores(const std::string& store_dir) {
  const fs::path store(store_dir);
  const std::string prefix = store.filename().string() + ".incompatible-";
  int n = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(store.parent_path())) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

}  // namespace qdcache::crash

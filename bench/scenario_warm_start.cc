// Scenario 2: a warm start. A fresh process gets 1,000 artifacts by fast
// key in one Lookup, against the same process reading them from a
// file-per-entry directory (the usual in-process kernel cache), warm and
// with the files dropped from the page cache.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "bench/bench_kernels.h"
#include "bench/scenarios.h"
#include "tests/support/kernels.h"
#include "common/digest.h"

namespace qdcache::bench {
namespace {

constexpr std::size_t kCompileBatch = 50;

// Writes `bytes` to `path` and syncs it: only clean pages can be dropped.
Status WriteSynced(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot create " + path);
  const bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  return ok ? Status::Ok() : Internal("cannot write " + path);
}

Status DropFromPageCache(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Internal("cannot open " + path);
    const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
    if (rc != 0) return Internal("posix_fadvise failed on " + path);
  }
  return Status::Ok();
}

// The fraction of the files' pages in the page cache (mincore): what makes
// "cold" cold. tmpfs, for one, ignores DONTNEED.
Expected<double> ResidentFraction(const std::vector<std::string>& paths) {
  const long page = ::sysconf(_SC_PAGESIZE);
  std::size_t pages = 0, resident = 0;
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Internal("cannot open " + path);
    struct stat st {};
    ::fstat(fd, &st);
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map = size == 0 ? MAP_FAILED : ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) continue;
    std::vector<unsigned char> in((size + page - 1) / page);
    if (::mincore(map, size, in.data()) == 0) {
      pages += in.size();
      for (unsigned char c : in) resident += c & 1;
    }
    ::munmap(map, size);
  }
  return pages == 0 ? 0.0 : static_cast<double>(resident) / static_cast<double>(pages);
}

Expected<double> TimedChild(const std::vector<std::string>& argv, std::size_t expect_items) {
  QDC_ASSIGN_OR_RETURN(TimedRun run, RunTimed(argv));
  const std::string want = "{\"items\":" + std::to_string(expect_items) + ",";
  if (run.exit_code != 0 || run.out.rfind(want, 0) != 0) {
    return Internal(argv[1] + " child failed (exit " + std::to_string(run.exit_code) + "): " + run.out);
  }
  return run.seconds * 1e3;
}

}  // namespace

Status RunWarmStart(BenchEnv& env, Report& report) {
  const char* kScenario = "2 warm start";
  const std::size_t n = env.options.warm_kernels;
  const std::string files = env.dir / "file-cache";
  ::mkdir(files.c_str(), 0700);
  std::vector<std::string> paths;
  std::string keys, names;
  std::size_t bytes = 0;
  const std::size_t table = TableBytesFor(env.options.artifact_bytes);
  // The kernels are compiled for real, in batches; each artifact also goes
  // to the file-per-entry directory under its fast key's hash.
  for (std::size_t first = 0; first < n; first += kCompileBatch) {
    v1::CompileRequest request;
    for (std::size_t i = first; i < std::min(n, first + kCompileBatch); ++i) {
      *request.add_kernels() = CpuDescriptor(testing::PaddedCpuKernel(1000 + i, table), "warm-" + std::to_string(i));
    }
    QDC_ASSIGN_OR_RETURN(v1::CompileResponse response, env.uds->Compile(request));
    for (int j = 0; j < response.results_size(); ++j) {
      const v1::CompileResult& r = response.results(j);
      if (r.has_error()) return Internal("warm kernel compile failed: " + r.error().message());
      const std::string hex = ToHex(request.kernels(j).fast_key());
      keys += hex + "\n";
      // The file cache's name for it: a hash of the key, as such caches do.
      const std::string name = ToHex(Sha256(request.kernels(j).fast_key()));
      names += name + "\n";
      paths.push_back(files + "/" + name);
      bytes += r.artifact().payload().size();
      QDC_RETURN_IF_ERROR(WriteSynced(paths.back(), r.artifact().payload()));
    }
  }
  const std::string keys_file = env.dir / "warm-keys.txt";
  testing::WriteFileOrDie(keys_file, keys);
  const std::string names_file = env.dir / "warm-files.txt";
  testing::WriteFileOrDie(names_file, names);

  const std::vector<std::string> lookup = {BenchClientBinary(), "lookup", "--socket",
                                           env.daemon->socket_path(), "--namespace", "bench",
                                           "--target", "cpu:x86-64", "--keys", keys_file};
  const std::vector<std::string> read = {BenchClientBinary(), "files", "--dir", files, "--keys", names_file};
  std::vector<double> daemon_ms, warm_ms, cold_ms;
  double max_resident = 0;
  const int rounds = std::max(5, env.options.rounds / 2);
  for (int round = 0; round <= rounds; ++round) {
    QDC_ASSIGN_OR_RETURN(double d, TimedChild(lookup, n));
    QDC_ASSIGN_OR_RETURN(double w, TimedChild(read, n));
    QDC_RETURN_IF_ERROR(DropFromPageCache(paths));
    QDC_ASSIGN_OR_RETURN(double still, ResidentFraction(paths));
    max_resident = std::max(max_resident, still);
    QDC_ASSIGN_OR_RETURN(double c, TimedChild(read, n));
    if (round == 0) continue;  // warm-up
    daemon_ms.push_back(d);
    warm_ms.push_back(w);
    cold_ms.push_back(c);
  }
  const std::string what = std::to_string(n) + " artifacts, " + std::to_string(bytes >> 10) + " KiB";
  const Summary d = Summarize(daemon_ms), w = Summarize(warm_ms), c = Summarize(cold_ms);
  report.Add({kScenario, "fresh process, Lookup by fast key (" + what + ")", "ms", d});
  report.Add({kScenario, "fresh process, file-per-entry dir, warm", "ms", w});
  report.Add({kScenario, "fresh process, file-per-entry dir, cold (fadvise)", "ms", c});
  if (max_resident > 0.1) {
    report.Note(kScenario, "the cold baseline was not cold: up to " + std::to_string(int(max_resident * 100)) +
                               "% of its pages stayed cached after DONTNEED (tmpfs?); set TMPDIR to a disk");
  }
  report.Compare(kScenario, "Lookup process p50 / warm file cache p50", d.p50, w.p50, 1.5);
  report.Compare(kScenario, "cold file cache p50 / Lookup process p50 (times faster)", c.p50, d.p50,
                 std::nullopt, 10.0);
  return Status::Ok();
}

}  // namespace qdcache::bench

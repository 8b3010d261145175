// Scenario 2: a warm start, as the frameworks run it. A fresh process gets N
// artifacts by fast key in one Lookup (the C++ client, the C ABI from C,
// and Python from `import qdcache` on), against the same kind of process
// reading them from a file-per-entry directory (the usual in-process kernel
// cache), warm and with the files dropped from the page cache; for each N
// and artifact size of the options. Each client's warm start is measured
// twice a round: first right after a rebound fast key (answered afresh),
// then again (the answer the daemon kept, --answer-cache).
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

Expected<double> TimedChild(const std::vector<std::string>& argv, std::size_t expect_items,
                            const std::vector<std::string>& env = {}) {
  QDC_ASSIGN_OR_RETURN(TimedRun run, RunTimed(argv, env));
  const std::string want = "{\"items\":" + std::to_string(expect_items) + ",";
  if (run.exit_code != 0 || run.out.rfind(want, 0) != 0) {
    return Internal(argv[1] + " child failed (exit " + std::to_string(run.exit_code) + "): " + run.out);
  }
  return run.seconds * 1e3;
}

// The Python child (python_warm_start.py) times itself from before
// `import qdcache`: the interpreter's start-up, the same for it and its
// baseline, is not counted. Its "ms".
Expected<double> PythonChild(const std::vector<std::string>& argv, std::size_t expect_items,
                             const std::string& pycache) {
  QDC_ASSIGN_OR_RETURN(nlohmann::json out, RunPythonChild(argv, expect_items, pycache));
  if (!out.contains("ms") || !out["ms"].is_number()) return Internal("python child without \"ms\": " + out.dump());
  return out["ms"].get<double>();
}

std::string SizeName(std::size_t bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KiB" : std::to_string(bytes) + " B";
}

// One store and file cache of `n` artifacts of about `artifact_bytes`.
struct WarmSet {
  std::string keys_file;   // the fast keys, hex, one per line
  std::string names_file;  // the file cache's names, one per line
  std::string files;       // the file-per-entry directory
  std::vector<std::string> paths;
  std::size_t bytes = 0;
};

// Compiles the kernels for real, in batches; each artifact also goes to the
// file-per-entry directory under its fast key's hash, as such caches name
// them. `tag` keeps the sets' kernels and keys apart.
Expected<WarmSet> Populate(BenchEnv& env, std::size_t n, std::size_t artifact_bytes, const std::string& tag,
                           std::uint64_t first_index) {
  WarmSet set;
  set.files = env.dir / ("file-cache-" + tag);
  ::mkdir(set.files.c_str(), 0700);
  std::string keys, names;
  const std::size_t table = TableBytesFor(artifact_bytes);
  for (std::size_t first = 0; first < n; first += kCompileBatch) {
    v1::CompileRequest request;
    for (std::size_t i = first; i < std::min(n, first + kCompileBatch); ++i) {
      *request.add_kernels() =
          CpuDescriptor(testing::PaddedCpuKernel(first_index + i, table), "warm-" + tag + "-" + std::to_string(i));
    }
    QDC_ASSIGN_OR_RETURN(v1::CompileResponse response, env.uds->Compile(request));
    for (int j = 0; j < response.results_size(); ++j) {
      const v1::CompileResult& r = response.results(j);
      if (r.has_error()) return Internal("warm kernel compile failed: " + r.error().message());
      keys += ToHex(request.kernels(j).fast_key()) + "\n";
      const std::string name = ToHex(Sha256(request.kernels(j).fast_key()));
      names += name + "\n";
      set.paths.push_back(set.files + "/" + name);
      set.bytes += r.artifact().payload().size();
      QDC_RETURN_IF_ERROR(WriteSynced(set.paths.back(), r.artifact().payload()));
    }
  }
  set.keys_file = env.dir / ("warm-keys-" + tag + ".txt");
  testing::WriteFileOrDie(set.keys_file, keys);
  set.names_file = env.dir / ("warm-files-" + tag + ".txt");
  testing::WriteFileOrDie(set.names_file, names);
  return set;
}

struct Samples {
  std::vector<double> cpp, cpp_warm, cpp_cold, capi, py, py_warm, py_cold;
  std::vector<double> cpp_fresh, capi_fresh, py_fresh;  // the first warm start after a store write
};

// A store write that replaces what a lookup may have read: a fast key
// rebound to a new kernel (from the second call on; the first binds it).
// Every answer the daemon kept (--answer-cache) is dropped, as after a
// rebound alias, an eviction or a deletion anywhere in the store, and the
// next warm start is answered afresh.
Status ChangeStore(BenchEnv& env, std::uint64_t index, bool bind = false) {
  v1::CompileRequest request;
  *request.add_kernels() = CpuDescriptor(testing::PaddedCpuKernel(index, 64), "store-change");
  QDC_ASSIGN_OR_RETURN(v1::CompileResponse response, env.uds->Compile(request));
  if (response.results_size() != 1 || response.results(0).status() != v1::CACHE_STATUS_COMPILED) {
    return Internal("the store-changing compile did not compile");
  }
  if (!bind && !response.results(0).alias_conflict().rebound()) {
    return Internal("the store-changing compile did not rebind its fast key (--alias-policy-floor strict?): the "
                    "\"answered afresh\" figures would measure kept answers");
  }
  return Status::Ok();
}

Status RunSet(BenchEnv& env, Report& report, std::size_t n, std::size_t artifact_bytes, std::uint64_t first_index,
              std::uint64_t* change_index) {
  const std::string tag = std::to_string(n) + "x" + std::to_string(artifact_bytes);
  const std::string scenario = "2 warm start " + std::to_string(n) + " x " + SizeName(artifact_bytes);
  QDC_ASSIGN_OR_RETURN(WarmSet set, Populate(env, n, artifact_bytes, tag, first_index));
  const std::string socket = env.daemon->socket_path();
  const std::vector<std::string> lookup = {BenchClientBinary(), "lookup", "--socket", socket, "--namespace",
                                           "bench", "--target", "cpu:x86-64", "--keys", set.keys_file};
  const std::vector<std::string> read = {BenchClientBinary(), "files", "--dir", set.files, "--keys", set.names_file};
  const std::vector<std::string> capi = {CapiClientBinary(), socket, "bench", "cpu:x86-64", set.keys_file};
  const std::string python = testing::FindOnPath("python3");
  const std::vector<std::string> py_lookup = {python, "-S", PythonWarmStartScript(), "lookup", socket, "bench",
                                              "cpu:x86-64", set.keys_file};
  const std::vector<std::string> py_read = {python, "-S", PythonWarmStartScript(), "files", set.files,
                                            set.names_file};
  const std::string pycache = env.dir / "pycache";
  Samples s;
  double max_resident = 0;
  // Big sets take seconds a child: fewer rounds.
  const int rounds = set.bytes > (256u << 20) ? 3 : std::max(5, env.options.rounds / 2);
  for (int round = 0; round <= rounds; ++round) {
    const bool keep = round > 0;  // round 0 warms up
    auto sample = [&](std::vector<double>& into, Expected<double> ms) -> Status {
      if (!ms.ok()) return ms.status();
      if (keep) into.push_back(*ms);
      return Status::Ok();
    };
    auto cold = [&]() -> Status {
      QDC_RETURN_IF_ERROR(DropFromPageCache(set.paths));
      QDC_ASSIGN_OR_RETURN(double still, ResidentFraction(set.paths));
      max_resident = std::max(max_resident, still);
      return Status::Ok();
    };
    // After a store change, a warm start is answered afresh and kept; the
    // next one, whichever client asks (the client's name is not part of a
    // kept answer's key), is the kept answer. So each client's fresh figure
    // follows a store change of its own.
    QDC_RETURN_IF_ERROR(ChangeStore(env, (*change_index)++));
    QDC_RETURN_IF_ERROR(sample(s.cpp_fresh, TimedChild(lookup, n)));
    QDC_RETURN_IF_ERROR(ChangeStore(env, (*change_index)++));
    QDC_RETURN_IF_ERROR(sample(s.capi_fresh, TimedChild(capi, n)));
    if (!python.empty()) {
      QDC_RETURN_IF_ERROR(ChangeStore(env, (*change_index)++));
      QDC_RETURN_IF_ERROR(sample(s.py_fresh, PythonChild(py_lookup, n, pycache)));
    }
    QDC_RETURN_IF_ERROR(sample(s.cpp, TimedChild(lookup, n)));
    QDC_RETURN_IF_ERROR(sample(s.cpp_warm, TimedChild(read, n)));
    QDC_RETURN_IF_ERROR(sample(s.capi, TimedChild(capi, n)));
    if (!python.empty()) {
      QDC_RETURN_IF_ERROR(sample(s.py, PythonChild(py_lookup, n, pycache)));
      QDC_RETURN_IF_ERROR(sample(s.py_warm, PythonChild(py_read, n, pycache)));
      QDC_RETURN_IF_ERROR(cold());
      QDC_RETURN_IF_ERROR(sample(s.py_cold, PythonChild(py_read, n, pycache)));
    }
    QDC_RETURN_IF_ERROR(cold());
    QDC_RETURN_IF_ERROR(sample(s.cpp_cold, TimedChild(read, n)));
  }
  const std::string what = std::to_string(n) + " artifacts, " + std::to_string(set.bytes >> 10) + " KiB";
  const Summary cpp = Summarize(s.cpp), cpp_warm = Summarize(s.cpp_warm), cpp_cold = Summarize(s.cpp_cold),
                c = Summarize(s.capi), cpp_fresh = Summarize(s.cpp_fresh), c_fresh = Summarize(s.capi_fresh);
  report.Add({scenario, "C++ client process, Lookup by fast key (" + what + ")", "ms", cpp});
  report.Add({scenario, "  the same, answered afresh (first after a rebound alias)", "ms", cpp_fresh});
  report.Add({scenario, "C ABI process (C), qdcache_lookup + qdcache_results_items", "ms", c});
  report.Add({scenario, "  the same, answered afresh", "ms", c_fresh});
  report.Add({scenario, "C++ process, file-per-entry dir, warm", "ms", cpp_warm});
  report.Add({scenario, "C++ process, file-per-entry dir, cold (fadvise)", "ms", cpp_cold});
  report.Compare(scenario, "C++ Lookup p50 / C++ warm file cache p50", cpp.p50, cpp_warm.p50, 0.8);
  report.Compare(scenario, "C ABI Lookup p50 / C++ warm file cache p50", c.p50, cpp_warm.p50, 0.8);
  report.Compare(scenario, "  answered afresh: C++ / C++ warm file cache", cpp_fresh.p50, cpp_warm.p50, 0.8);
  report.Compare(scenario, "  answered afresh: C ABI / C++ warm file cache", c_fresh.p50, cpp_warm.p50, 0.8);
  report.Compare(scenario, "C++ cold file cache p50 / C++ Lookup p50 (times faster)", cpp_cold.p50, cpp.p50,
                 std::nullopt, 5.0);
  if (python.empty()) {
    report.Note(scenario, "no python3 on PATH: the Python figures were not measured");
  } else {
    const Summary py = Summarize(s.py), py_warm = Summarize(s.py_warm), py_cold = Summarize(s.py_cold),
                  py_fresh = Summarize(s.py_fresh);
    report.Add({scenario, "Python, from `import qdcache` to every payload (Client.lookup, lean transport)", "ms", py});
    report.Add({scenario, "  the same, answered afresh", "ms", py_fresh});
    report.Add({scenario, "Python, file-per-entry dir (open().read()), warm", "ms", py_warm});
    report.Add({scenario, "Python, file-per-entry dir, cold (fadvise)", "ms", py_cold});
    report.Compare(scenario, "Python qdcache p50 / Python warm file cache p50", py.p50, py_warm.p50, 0.8);
    report.Compare(scenario, "  answered afresh: Python / Python warm file cache", py_fresh.p50, py_warm.p50, 0.8);
    report.Compare(scenario, "Python cold file cache p50 / Python qdcache p50 (times faster)", py_cold.p50, py.p50,
                   std::nullopt, 5.0);
  }
  if (max_resident > 0.1) {
    report.Note(scenario, "the cold baseline was not cold: up to " + std::to_string(int(max_resident * 100)) +
                              "% of its pages stayed cached after DONTNEED (tmpfs?); set TMPDIR to a disk");
  }
  return Status::Ok();
}

}  // namespace

Status RunWarmStart(BenchEnv& env, Report& report) {
  std::uint64_t first_index = 1000;
  std::uint64_t change_index = 900'000'000;  // kernels of their own
  QDC_RETURN_IF_ERROR(ChangeStore(env, change_index++, /*bind=*/true));  // the fast key the rounds rebind
  for (std::size_t n : env.options.warm_kernels) {
    for (std::size_t bytes : env.options.warm_bytes) {
      QDC_RETURN_IF_ERROR(RunSet(env, report, n, bytes, first_index, &change_index));
      first_index += n;
    }
  }
  return Status::Ok();
}

}  // namespace qdcache::bench

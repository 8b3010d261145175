#include "tests/load/load_worker.h"

#include <chrono>
#include <random>
#include <sstream>
#include <thread>

#include "client/client.h"
#include "client/wire_target.h"

namespace qdcache::load {
namespace {

using Clock = std::chrono::steady_clock;

v1::KernelDescriptor CpuKernel(const std::string& ir) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  *d.mutable_target() = *client::ParseWireTarget("cpu:x86-64");
  d.add_entry_points("value");
  return d;
}

// A CUDA kernel storing `op`(i, c) at p[i].
v1::KernelDescriptor CudaKernel(const std::string& op, const std::string& c) {
  v1::KernelDescriptor d;
  d.set_ir("target triple = \"nvptx64-nvidia-cuda\"\n"
           "define ptx_kernel void @value(ptr %p, i64 %i) {\n"
           "  %q = getelementptr i64, ptr %p, i64 %i\n"
           "  %v = " + op + " i64 %i, " + c + "\n"
           "  store i64 %v, ptr %q\n  ret void\n}\n");
  *d.mutable_target() = *client::ParseWireTarget("cuda:sm_90");
  d.add_entry_points("value");
  return d;
}

std::string NameOf(int code) { return std::string(CodeName(static_cast<Code>(code))); }

}  // namespace

std::string WarmFastKey(int n) { return "warm-" + std::to_string(n); }

v1::KernelDescriptor WarmKernel(int n, bool cuda) {
  const std::string c = std::to_string(n);
  v1::KernelDescriptor d = cuda && n % 4 == 3 ? CudaKernel("add", c) : CpuKernel("define i64 @value(i64 %x) {\n  %a = add i64 %x, " + c +
                                     "\n  %b = mul i64 %a, %x\n  ret i64 %b\n}\n");
  d.set_fast_key(WarmFastKey(n));
  d.set_namespace_(kWarmNamespace);
  return d;
}

v1::KernelDescriptor FreshKernel(std::uint64_t id, bool cuda) {
  const std::string c = std::to_string(id);
  if (cuda && id % 4 == 3) return CudaKernel("mul", c);
  return CpuKernel("define i64 @value(i64 %x) {\n  %a = sub i64 %x, " + c +
                   "\n  %b = shl i64 %a, 3\n  %c = xor i64 %b, " + c + "\n  ret i64 %c\n}\n");
}

void LoadResult::Merge(const LoadResult& other) {
  for (const auto& [k, n] : other.outcomes) outcomes[k] += n;
  for (const auto& [op, v] : other.latency_us) {
    auto& mine = latency_us[op];
    mine.insert(mine.end(), v.begin(), v.end());
  }
}

std::string LoadResult::Serialize() const {
  std::ostringstream out;
  for (const auto& [k, n] : outcomes) out << "outcome " << n << ' ' << k << '\n';
  for (const auto& [op, v] : latency_us) {
    out << "latency " << op;
    for (std::uint32_t us : v) out << ' ' << us;
    out << '\n';
  }
  return out.str();
}

bool LoadResult::Parse(const std::string& text, LoadResult* out) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind == "outcome") {
      std::uint64_t n = 0;
      std::string op, outcome;
      if (!(fields >> n >> op >> outcome)) return false;
      out->outcomes[op + " " + outcome] += n;
    } else if (kind == "latency") {
      std::string op;
      if (!(fields >> op)) return false;
      auto& v = out->latency_us[op];
      for (std::uint32_t us; fields >> us;) v.push_back(us);
    } else if (!kind.empty()) {
      return false;
    }
  }
  return true;
}

LoadResult RunWorker(const WorkerConfig& config) {
  LoadResult result;
  client::ClientOptions options;
  options.socket_path = config.socket;
  options.timeout = std::chrono::seconds(120);
  options.client_name = "qdcache-load";
  auto connected = client::Client::Connect(options);
  if (!connected.ok()) {
    ++result.outcomes["connect call:" + NameOf(static_cast<int>(connected.status().code()))];
    return result;
  }
  client::Client& client = **connected;
  std::mt19937_64 rng(config.seed);
  std::uniform_real_distribution<double> op_draw(0, 1);
  std::uniform_int_distribution<int> warm(0, config.warm_kernels - 1);
  std::uint64_t fresh = 0;
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.seconds));

  // With a rate, requests start on a fixed schedule (a pace, not a wait for
  // anything); a late one starts at once.
  Clock::time_point next = Clock::now();
  const Clock::duration period =
      config.rate > 0 ? std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / config.rate))
                      : Clock::duration::zero();
  while (Clock::now() < deadline) {
    if (config.rate > 0) {
      std::this_thread::sleep_until(next);
      next += period;
    }
    const double draw = op_draw(rng);
    std::string op;
    v1::CacheStatus want = v1::CACHE_STATUS_HIT;
    int want_error = 0;
    v1::CompileRequest compile;
    v1::LookupRequest lookup;
    if (draw < config.hit_ratio) {
      op = "hit";
      *compile.add_kernels() = WarmKernel(warm(rng), config.cuda);
    } else if (draw < config.hit_ratio + config.lookup_ratio) {
      op = "lookup";
      want = v1::CACHE_STATUS_ALIAS_HIT;
      const int n = warm(rng);
      v1::FastKeyQuery* q = lookup.add_queries();
      q->set_fast_key(WarmFastKey(n));
      q->set_namespace_(kWarmNamespace);
      *q->mutable_target() = WarmKernel(n, config.cuda).target();
    } else if (draw < config.hit_ratio + config.lookup_ratio + config.bad_ratio) {
      op = "bad";
      want = v1::CACHE_STATUS_ERROR;
      want_error = static_cast<int>(Code::kInvalidArgument);
      *compile.add_kernels() = CpuKernel("this is not LLVM IR " + std::to_string(rng()));
    } else {
      op = "compile";
      want = v1::CACHE_STATUS_COMPILED;
      const std::uint64_t id = (static_cast<std::uint64_t>(config.index) << 40) | fresh++;
      *compile.add_kernels() = FreshKernel(id, config.cuda);
    }

    const Clock::time_point t0 = Clock::now();
    Status call;
    v1::CompileResult item;
    if (op == "lookup") {
      Expected<v1::LookupResponse> r = client.Lookup(std::move(lookup));
      call = r.status();
      if (r.ok() && r->results_size() == 1) item = r->results(0);
    } else {
      Expected<v1::CompileResponse> r = client.Compile(std::move(compile));
      call = r.status();
      if (r.ok() && r->results_size() == 1) item = r->results(0);
    }
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);

    std::string outcome;
    if (!call.ok()) {
      outcome = "call:" + NameOf(static_cast<int>(call.code()));
    } else if (item.status() == v1::CACHE_STATUS_ERROR && item.status() != want) {
      outcome = "item:" + NameOf(item.error().code());
    } else if (item.status() != want) {
      outcome = "status:" + v1::CacheStatus_Name(item.status());
    } else if (want == v1::CACHE_STATUS_ERROR && item.error().code() != want_error) {
      outcome = "item:" + NameOf(item.error().code());
    } else if (want != v1::CACHE_STATUS_ERROR && item.artifact().payload().empty()) {
      outcome = "empty-artifact";
    } else {
      outcome = "ok";
      result.latency_us[op].push_back(static_cast<std::uint32_t>(us.count()));
    }
    ++result.outcomes[op + " " + outcome];
  }
  return result;
}

}  // namespace qdcache::load

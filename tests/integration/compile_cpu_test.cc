// A real qdcached compiles x86-64 kernels to shared objects that load from
// memory and compute correct results.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "client/launch_cpu.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

client::CpuModule Load(const v1::CompileResult& r) {
  REQUIRE(r.has_artifact());
  auto module = client::CpuModule::Load(r.artifact().payload(), "test");
  if (!module.ok()) FAIL(module.status().ToString());
  return std::move(module).value();
}

template <typename Fn>
Fn* Symbol(client::CpuModule& m, const char* name) {
  auto sym = m.Symbol(name);
  if (!sym.ok()) FAIL(sym.status().ToString());
  return reinterpret_cast<Fn*>(*sym);
}

}  // namespace

TEST_CASE("cpu saxpy computes a*x+y", "[integration][cpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileResult r = CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64"));
  REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(r.artifact().kind() == v1::ARTIFACT_KIND_SHARED_OBJECT);
  CHECK(IsX86SharedObject(r.artifact().payload()));
  client::CpuModule m = Load(r);
  auto* saxpy = Symbol<void(std::int64_t, float, const float*, float*)>(m, "saxpy");
  std::vector<float> x(1000), y(1000), want(1000);
  for (int i = 0; i < 1000; ++i) {
    x[i] = static_cast<float>(i) * 0.5f;
    y[i] = static_cast<float>(1000 - i);
    want[i] = 3.0f * x[i] + y[i];
  }
  saxpy(1000, 3.0f, x.data(), y.data());
  CHECK(y == want);
}

TEST_CASE("cpu block_reduce sums its input", "[integration][cpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  client::CpuModule m = Load(CompileOne(*client, Descriptor("cpu/block_reduce.ll", "cpu:x86-64+avx2")));
  auto* reduce = Symbol<float(const float*, std::int64_t)>(m, "block_reduce");
  std::vector<float> x(4096);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);  // exact in float
  float want = 0;
  for (float v : x) want += v;
  CHECK(reduce(x.data(), static_cast<std::int64_t>(x.size())) == want);
}

TEST_CASE("cpu stencil2d averages the five-point neighbourhood and copies borders",
          "[integration][cpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  client::CpuModule m = Load(CompileOne(*client, Descriptor("cpu/stencil2d.ll", "cpu:x86-64")));
  auto* stencil = Symbol<void(const float*, float*, std::int64_t, std::int64_t)>(m, "stencil2d");
  const std::int64_t w = 37, h = 23;
  std::vector<float> in(w * h), out(w * h, -1.0f), want(w * h);
  for (std::int64_t i = 0; i < w * h; ++i) in[i] = static_cast<float>((i * 7919) % 101);
  for (std::int64_t r = 0; r < h; ++r) {
    for (std::int64_t c = 0; c < w; ++c) {
      std::int64_t i = r * w + c;
      bool border = r == 0 || c == 0 || r == h - 1 || c == w - 1;
      want[i] = border ? in[i] : 0.2f * (in[i] + in[i - w] + in[i + w] + in[i - 1] + in[i + 1]);
    }
  }
  stencil(in.data(), out.data(), w, h);
  for (std::int64_t i = 0; i < w * h; ++i) {
    INFO("index " << i);
    CHECK(out[i] == Approx(want[i]).epsilon(1e-6));
  }
}

TEST_CASE("a repeated cpu compile is a hit with identical bytes", "[integration][cpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  v1::CompileResult a = CompileOne(*client, d);
  v1::CompileResult b = CompileOne(*client, d);
  REQUIRE(a.status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(b.status() == v1::CACHE_STATUS_HIT);
  CHECK(a.artifact().payload() == b.artifact().payload());
}

TEST_CASE("a hit serves any entry point of the module, and refuses one it lacks", "[integration][cpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @one() {\n  ret i64 1\n}\ndefine i64 @two() {\n  ret i64 2\n}\n");
  d.add_entry_points("one");
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  d.clear_entry_points();
  d.add_entry_points("two");
  v1::CompileResult hit = CompileOne(*client, d);
  REQUIRE(hit.status() == v1::CACHE_STATUS_HIT);
  client::CpuModule m = Load(hit);
  CHECK(Symbol<std::int64_t()>(m, "two")() == 2);
  d.add_entry_points("three");
  v1::CompileResult missing = CompileOne(*client, d);
  CHECK(missing.status() == v1::CACHE_STATUS_ERROR);
  CHECK_THAT(missing.error().message(), Catch::Contains("three"));
}

TEST_CASE("a function name that is not UTF-8 is served escaped, and a hit still decodes", "[integration][cpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @\"k\\FF\"() {\n  ret i64 7\n}\n");
  v1::CompileResult first = CompileOne(*client, d);
  INFO(first.error().message());
  REQUIRE(first.status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(first.artifact().entries_size() == 1);
  CHECK(first.artifact().entries(0).name() == "k\\xFF");
  v1::CompileResult hit = CompileOne(*client, d);
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  client::CpuModule m = Load(hit);
  CHECK(Symbol<std::int64_t()>(m, "k\xFF")() == 7);
}

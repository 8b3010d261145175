// Cubins served by a real qdcached load and run on a CUDA device. Skips
// cleanly (with a warning) where there is no CUDA build, driver or device.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "client/launch_cuda.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// "sm_90" for the first device, or empty (with a warning) when none can run.
std::string DeviceSm() {
  if (!CudaBuilt()) {
    WARN("built without the CUDA Toolkit: skipping");
    return "";
  }
  Status available = client::CudaAvailable();
  if (!available.ok()) {
    WARN("no CUDA device: " << available.ToString() << ": skipping");
    return "";
  }
  auto driver = client::CudaDriver::Get();
  REQUIRE(driver.ok());
  auto cc = (*driver)->ComputeCapability(0);
  REQUIRE(cc.ok());
  return "sm_" + std::to_string(*cc);
}

struct Gpu {
  explicit Gpu(const std::string& sm) : dir(), daemon(dir.path()) {
    daemon.Start();
    client = daemon.Connect();
    target = "cuda:" + sm;
  }
  client::CudaModule Load(const std::string& kernel) {
    v1::CompileResult r = CompileOne(*client, Descriptor("cuda/" + kernel + ".ll", target));
    INFO(r.error().message());
    REQUIRE(r.has_artifact());
    auto m = client::CudaModule::Load(r.artifact().payload());
    if (!m.ok()) FAIL(m.status().ToString());
    return std::move(m).value();
  }
  TempDir dir;
  DaemonProcess daemon;
  std::unique_ptr<client::Client> client;
  std::string target;
};

client::DeviceBuffer Upload(const std::vector<float>& host) {
  auto b = client::DeviceBuffer::Allocate(host.size() * sizeof(float));
  REQUIRE(b.ok());
  REQUIRE(b->CopyFromHost(host.data(), host.size() * sizeof(float)).ok());
  return std::move(b).value();
}

std::vector<float> Download(const client::DeviceBuffer& b) {
  std::vector<float> host(b.size() / sizeof(float));
  REQUIRE(b.CopyToHost(host.data(), b.size()).ok());
  return host;
}

}  // namespace

TEST_CASE("saxpy runs on the device and computes a*x+y", "[integration][cuda][gpu]") {
  const std::string sm = DeviceSm();
  if (sm.empty()) return;
  Gpu gpu(sm);
  client::CudaModule m = gpu.Load("saxpy");
  auto k = m.Kernel("saxpy");
  REQUIRE(k.ok());
  const int n = 10000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  client::DeviceBuffer dx = Upload(x), dy = Upload(y);
  int nn = n;
  float a = 2.0f;
  void* args[] = {&nn, &a, dx.arg(), dy.arg()};
  REQUIRE(client::Launch(*k, {(n + 255) / 256}, {256}, 0, args).ok());
  std::vector<float> got = Download(dy);
  for (int i = 0; i < n; ++i) REQUIRE(got[i] == 2.0f * x[i] + 1.0f);
}

TEST_CASE("block_reduce runs on the device with shared memory and barriers", "[integration][cuda][gpu]") {
  const std::string sm = DeviceSm();
  if (sm.empty()) return;
  Gpu gpu(sm);
  client::CudaModule m = gpu.Load("block_reduce");
  auto k = m.Kernel("block_reduce");
  REQUIRE(k.ok());
  const int n = 256 * 40 + 17, blocks = (n + 255) / 256;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 5);
  client::DeviceBuffer din = Upload(in), dout = Upload(std::vector<float>(blocks, -1.0f));
  int nn = n;
  void* args[] = {din.arg(), dout.arg(), &nn};
  REQUIRE(client::Launch(*k, {static_cast<unsigned>(blocks)}, {256}, 0, args).ok());
  std::vector<float> got = Download(dout);
  for (int b = 0; b < blocks; ++b) {
    float want = 0;
    for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i) want += in[i];
    REQUIRE(got[b] == want);
  }
}

TEST_CASE("stencil2d runs on the device with a 2-D grid", "[integration][cuda][gpu]") {
  const std::string sm = DeviceSm();
  if (sm.empty()) return;
  Gpu gpu(sm);
  client::CudaModule m = gpu.Load("stencil2d");
  auto k = m.Kernel("stencil2d");
  REQUIRE(k.ok());
  const int w = 67, h = 45;
  std::vector<float> in(w * h);
  for (int i = 0; i < w * h; ++i) in[i] = static_cast<float>((i * 31) % 17);
  client::DeviceBuffer din = Upload(in), dout = Upload(std::vector<float>(w * h, 0.0f));
  int ww = w, hh = h;
  void* args[] = {din.arg(), dout.arg(), &ww, &hh};
  REQUIRE(client::Launch(*k, {(w + 15) / 16, (h + 15) / 16}, {16, 16}, 0, args).ok());
  std::vector<float> got = Download(dout);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      int i = y * w + x;
      bool border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
      float want = border ? in[i] : 0.2f * (in[i] + in[i - w] + in[i + w] + in[i + 1] + in[i - 1]);
      REQUIRE(got[i] == Approx(want).epsilon(1e-6));
    }
  }
}

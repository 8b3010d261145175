// CUDA launcher: without a driver or device every entry point says so and
// nothing crashes; with a device, a PTX kernel loads, launches and computes.
#include "client/launch_cuda.h"

#include <catch2/catch.hpp>
#include <vector>

namespace qdcache::client {
namespace {

// y[i] += 1.0f for i < n. PTX (not a cubin) so the driver JITs it for
// whatever GPU the test runs on.
constexpr const char* kAddOnePtx = R"(
.version 6.0
.target sm_50
.address_size 64

.visible .entry add_one(
	.param .u64 add_one_param_0,
	.param .u32 add_one_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [add_one_param_0];
	ld.param.u32 	%r2, [add_one_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	add.f32 	%f2, %f1, 0f3F800000;
	st.global.f32 	[%rd4], %f2;
$L__BB0_2:
	ret;
}
)";

#define QDC_REQUIRE_CUDA_DEVICE()                                     \
  do {                                                                \
    const Status qdc_cuda_ = CudaAvailable();                         \
    if (!qdc_cuda_.ok()) {                                            \
      WARN("skipping: CUDA not available: " << qdc_cuda_.ToString()); \
      return;                                                         \
    }                                                                 \
  } while (0)

TEST_CASE("CudaAvailable says why there is no CUDA", "[launch][cuda]") {
  const Status available = CudaAvailable();
  if (available.ok()) {
    auto driver = CudaDriver::Get();
    REQUIRE(driver.ok());
    CHECK((*driver)->device_count() > 0);
    return;
  }
  CHECK(available.code() == Code::kUnavailable);
  const std::string& why = available.message();
  const bool explained = why.find("libcuda.so.1 not found") != std::string::npos ||
                         why.find("no CUDA device") != std::string::npos ||
                         why.find("cuInit") != std::string::npos;
  CHECK(explained);
}

TEST_CASE("without CUDA every entry point fails cleanly", "[launch][cuda]") {
  const Status available = CudaAvailable();
  if (available.ok()) {
    WARN("skipping: a CUDA device is present");
    return;
  }
  auto module = CudaModule::Load(kAddOnePtx);
  REQUIRE_FALSE(module.ok());
  CHECK(module.status().code() == Code::kUnavailable);
  auto buffer = DeviceBuffer::Allocate(64);
  REQUIRE_FALSE(buffer.ok());
  CHECK(buffer.status().code() == Code::kUnavailable);
  CudaKernel null_kernel;
  CHECK(Launch(null_kernel, {}, {}, 0, nullptr).code() == Code::kInvalidArgument);
}

TEST_CASE("a PTX kernel loads, launches and computes", "[launch][cuda][gpu]") {
  QDC_REQUIRE_CUDA_DEVICE();
  auto driver = CudaDriver::Get();
  REQUIRE(driver.ok());
  auto cc = (*driver)->ComputeCapability(0);
  REQUIRE(cc.ok());
  CHECK(*cc >= 50);
  auto name = (*driver)->DeviceName(0);
  REQUIRE(name.ok());
  INFO("device 0: " << *name << ", sm_" << *cc << ", driver " << (*driver)->driver_version());

  auto module = CudaModule::Load(kAddOnePtx);
  INFO(module.status().ToString());
  REQUIRE(module.ok());
  auto kernel = module->Kernel("add_one");
  INFO(kernel.status().ToString());
  REQUIRE(kernel.ok());

  constexpr int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  auto buffer = DeviceBuffer::Allocate(n * sizeof(float));
  REQUIRE(buffer.ok());
  REQUIRE(buffer->CopyFromHost(host.data(), n * sizeof(float)).ok());
  int count = n;
  void* args[] = {buffer->arg(), &count};
  Status launched = Launch(*kernel, Dim3{(n + 127) / 128, 1, 1}, Dim3{128, 1, 1}, 0, args);
  INFO(launched.ToString());
  REQUIRE(launched.ok());
  REQUIRE((*driver)->Synchronize(0).ok());
  std::vector<float> out(n);
  REQUIRE(buffer->CopyToHost(out.data(), n * sizeof(float)).ok());
  for (int i = 0; i < n; ++i) REQUIRE(out[i] == static_cast<float>(i) + 1.0f);
}

TEST_CASE("a bad image and a missing kernel are clear errors", "[launch][cuda][gpu]") {
  QDC_REQUIRE_CUDA_DEVICE();
  auto garbage = CudaModule::Load("definitely not a cubin or PTX");
  REQUIRE_FALSE(garbage.ok());
  CHECK(garbage.status().code() == Code::kInvalidArgument);

  auto module = CudaModule::Load(kAddOnePtx);
  REQUIRE(module.ok());
  auto missing = module->Kernel("no_such_kernel");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);

  auto bad_device = CudaModule::Load(kAddOnePtx, 1 << 20);
  REQUIRE_FALSE(bad_device.ok());
  CHECK(bad_device.status().code() == Code::kInvalidArgument);
}

TEST_CASE("device buffers refuse copies larger than themselves", "[launch][cuda][gpu]") {
  QDC_REQUIRE_CUDA_DEVICE();
  auto buffer = DeviceBuffer::Allocate(16);
  REQUIRE(buffer.ok());
  std::vector<char> big(32);
  CHECK(buffer->CopyFromHost(big.data(), big.size()).code() == Code::kInvalidArgument);
  CHECK(buffer->CopyToHost(big.data(), big.size()).code() == Code::kInvalidArgument);
  DeviceBuffer moved = std::move(*buffer);
  CHECK(moved.size() == 16);
}

}  // namespace
}  // namespace qdcache::client

// HIP launcher: without the runtime or a GPU every entry point says so and
// nothing crashes or hangs; images that are not HSA code objects are refused
// before the runtime sees them; with a GPU, device memory round-trips. (A
// kernel that runs needs a code object for the GPU's processor: the daemon
// compiles one in the integration tests.)
#include "client/launch_hip.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

#ifndef QDCACHE_LAUNCH_FIXTURE
#error "QDCACHE_LAUNCH_FIXTURE must name the fixture shared object"
#endif

extern char** environ;

namespace qdcache::client {
namespace {

constexpr const char* kLibraryVariable = "QDCACHE_HIP_LIBRARY";

// A 64-byte ELF64 header: what CheckHsaCodeObject reads, nothing after it.
std::string ElfHeader(std::uint16_t machine, unsigned char os_abi = 64, std::uint16_t type = 3) {
  std::string header(64, '\0');
  header[0] = '\x7f';
  header[1] = 'E';
  header[2] = 'L';
  header[3] = 'F';
  header[4] = 2;  // ELFCLASS64
  header[5] = 1;  // little-endian
  header[6] = 1;  // EV_CURRENT
  header[7] = static_cast<char>(os_abi);
  header[16] = static_cast<char>(type & 0xff);
  header[17] = static_cast<char>(type >> 8);
  header[18] = static_cast<char>(machine & 0xff);
  header[19] = static_cast<char>(machine >> 8);
  return header;
}

// Sets (or with nullptr unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_.has_value())
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

#define QDC_REQUIRE_AMD_GPU()                                          \
  do {                                                                 \
    const Status qdc_hip_ = HipAvailable();                            \
    if (!qdc_hip_.ok()) {                                              \
      WARN("skipping: no AMD GPU available: " << qdc_hip_.ToString()); \
      return;                                                          \
    }                                                                  \
  } while (0)

TEST_CASE("HipAvailable says why there is no AMD GPU", "[launch][hip]") {
  const Status available = HipAvailable();
  if (available.ok()) {
    auto runtime = HipRuntime::Get();
    REQUIRE(runtime.ok());
    CHECK((*runtime)->device_count() > 0);
    return;
  }
  CHECK(available.code() == Code::kUnavailable);
  const std::string& why = available.message();
  INFO(why);
  const bool explained = why.find("not found (no HIP runtime") != std::string::npos ||
                         why.find("no AMD GPU") != std::string::npos ||
                         why.find("hipInit") != std::string::npos;
  CHECK(explained);
}

TEST_CASE("without an AMD GPU every entry point fails cleanly", "[launch][hip]") {
  const Status available = HipAvailable();
  if (available.ok()) {
    WARN("skipping: an AMD GPU is present");
    return;
  }
  // Whatever the bytes: the runtime is checked first, as for CUDA.
  auto module = HipModule::Load(ElfHeader(224));
  REQUIRE_FALSE(module.ok());
  CHECK(module.status().code() == Code::kUnavailable);
  CHECK(module.status().message() == available.message());
  auto buffer = HipDeviceBuffer::Allocate(64);
  REQUIRE_FALSE(buffer.ok());
  CHECK(buffer.status().code() == Code::kUnavailable);
  HipKernel null_kernel;
  CHECK(Launch(null_kernel, {}, {}, 0, nullptr).code() == Code::kInvalidArgument);
  auto runtime = HipRuntime::Get();
  if (runtime.ok()) {  // loaded, initialized, but without devices
    CHECK((*runtime)->device_count() == 0);
    CHECK((*runtime)->Synchronize(0).code() == Code::kUnavailable);
  }
}

TEST_CASE("QDCACHE_HIP_LIBRARY alone is tried when set, else libamdhip64 by three names",
          "[launch][hip]") {
  {
    ScopedEnv unset(kLibraryVariable, nullptr);
    CHECK(HipLibraryCandidates() ==
          std::vector<std::string>{"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"});
  }
  {
    ScopedEnv empty(kLibraryVariable, "");
    CHECK(HipLibraryCandidates().size() == 3);
  }
  ScopedEnv set(kLibraryVariable, "/opt/rocm/lib/libamdhip64.so");
  CHECK(HipLibraryCandidates() == std::vector<std::string>{"/opt/rocm/lib/libamdhip64.so"});
}

// Child side: $QDCACHE_HIP_LIBRARY names a library that does not exist.
TEST_CASE("missing-runtime child (run by the missing-runtime test only)", "[.hip_missing_child]") {
  const char* library = std::getenv(kLibraryVariable);
  REQUIRE(library != nullptr);
  const Status available = HipAvailable();
  CHECK(available.code() == Code::kUnavailable);
  CHECK_THAT(available.message(), Catch::Contains(library));
  CHECK_THAT(available.message(), Catch::Contains("no HIP runtime"));
  auto runtime = HipRuntime::Get();
  REQUIRE_FALSE(runtime.ok());
  CHECK(runtime.status().message() == available.message());
  // Every entry point gives the same answer, bytes or no bytes.
  auto module = HipModule::Load("not even an ELF");
  REQUIRE_FALSE(module.ok());
  CHECK(module.status().code() == Code::kUnavailable);
  CHECK_THAT(module.status().message(), Catch::Contains(library));
  auto buffer = HipDeviceBuffer::Allocate(64);
  REQUIRE_FALSE(buffer.ok());
  CHECK(buffer.status().code() == Code::kUnavailable);
  CHECK_THAT(buffer.status().message(), Catch::Contains(library));
}

TEST_CASE("a missing HIP runtime is UNAVAILABLE naming the library", "[launch][hip]") {
  // The runtime is chosen once per process, so a child process (this test
  // binary on the hidden case above) gets the variable.
  const std::string missing = (std::filesystem::temp_directory_path() /
                               ("qdcache-no-hip-" + std::to_string(::getpid())) / "libamdhip64.so")
                                  .string();
  REQUIRE_FALSE(std::filesystem::exists(missing));
  // The child's environment, built before fork: execve then needs no allocation.
  std::vector<std::string> entries{std::string(kLibraryVariable) + "=" + missing};
  const std::string prefix = std::string(kLibraryVariable) + "=";
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) entries.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  char arg0[] = "test_launch";
  char arg1[] = "[.hip_missing_child]";
  char* argv[] = {arg0, arg1, nullptr};

  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execve("/proc/self/exe", argv, envp.data());
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // the child's own report is above on failure
}

TEST_CASE("only an AMDGPU ELF shared object for AMDHSA passes as an HSA code object",
          "[launch][hip]") {
  CHECK(CheckHsaCodeObject(ElfHeader(224)).ok());

  auto refused = [](std::string_view image, const char* why) {
    const Status s = CheckHsaCodeObject(image);
    INFO(s.ToString());
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("not an HSA code object") && Catch::Contains(why));
  };
  refused("", "no ELF header");
  refused("definitely not an ELF", "no ELF header");
  refused(ElfHeader(224).substr(0, 20), "not a 64-bit ELF");
  refused(ElfHeader(190), "a cubin");
  refused(ElfHeader(224, 0), "OS ABI 0");                 // AMDGPU for PAL or Mesa, not HSA
  refused(ElfHeader(224, 64, 1), "not a shared object");  // a relocatable .o
  // A real artifact of the wrong kind: an x86-64 shared object.
  refused(testing::ReadFileOrDie(QDCACHE_LAUNCH_FIXTURE), "machine 62");
}

TEST_CASE("with an AMD GPU, wrong images and device indexes are refused before any load",
          "[launch][hip][gpu]") {
  QDC_REQUIRE_AMD_GPU();
  auto runtime = HipRuntime::Get();
  REQUIRE(runtime.ok());
  auto name = (*runtime)->DeviceName(0);
  REQUIRE(name.ok());
  INFO("device 0: " << *name << ", HIP " << (*runtime)->runtime_version() << " from "
                    << (*runtime)->library());

  auto shared_object = HipModule::Load(testing::ReadFileOrDie(QDCACHE_LAUNCH_FIXTURE));
  REQUIRE_FALSE(shared_object.ok());
  CHECK(shared_object.status().code() == Code::kInvalidArgument);
  auto cubin_header = HipModule::Load(ElfHeader(190));
  REQUIRE_FALSE(cubin_header.ok());
  CHECK(cubin_header.status().code() == Code::kInvalidArgument);
  auto empty = HipModule::Load("");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().code() == Code::kInvalidArgument);
  // The device is checked before the (header-only) image reaches the runtime.
  auto bad_device = HipModule::Load(ElfHeader(224), 1 << 20);
  REQUIRE_FALSE(bad_device.ok());
  CHECK(bad_device.status().code() == Code::kInvalidArgument);
  CHECK((*runtime)->CheckDevice(-1).code() == Code::kInvalidArgument);
}

TEST_CASE("device buffers round-trip through an AMD GPU and refuse oversized copies",
          "[launch][hip][gpu]") {
  QDC_REQUIRE_AMD_GPU();
  std::vector<float> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i) * 0.5f;
  const std::size_t bytes = host.size() * sizeof(float);
  auto buffer = HipDeviceBuffer::Allocate(bytes);
  INFO(buffer.status().ToString());
  REQUIRE(buffer.ok());
  CHECK(buffer->device_ptr() != 0);
  REQUIRE(buffer->CopyFromHost(host.data(), bytes).ok());
  std::vector<float> back(host.size());
  REQUIRE(buffer->CopyToHost(back.data(), bytes).ok());
  CHECK(back == host);

  std::vector<char> big(bytes + 1);
  CHECK(buffer->CopyFromHost(big.data(), big.size()).code() == Code::kInvalidArgument);
  CHECK(buffer->CopyToHost(big.data(), big.size()).code() == Code::kInvalidArgument);
  HipDeviceBuffer moved = std::move(*buffer);
  CHECK(moved.size() == bytes);
  CHECK(buffer->CopyToHost(back.data(), 4).code() == Code::kFailedPrecondition);
  CHECK(HipDeviceBuffer::Allocate(0).status().code() == Code::kInvalidArgument);
  auto runtime = HipRuntime::Get();
  REQUIRE(runtime.ok());
  CHECK((*runtime)->Synchronize(0).ok());
}

}  // namespace
}  // namespace qdcache::client

// Malformed inputs get a precise error, store nothing, and leave the daemon serving.
#include <catch2/catch.hpp>
#include <grpcpp/grpcpp.h>

#include <string>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

struct BadCase {
  const char* name;
  std::string ir;
  const char* target;
  const char* message;  // substring the error must contain
  std::vector<std::string> entries = {};
};

constexpr char kNulTruncated[] = "define void @f() {\n  ret void\n}\n\0define void @g() {\n  ret void\n}\n";

std::vector<BadCase> Cases() {
  const std::string x86 = "target triple = \"x86_64-unknown-linux-gnu\"\n";
  std::vector<BadCase> cases = {
      {"empty file", "", "cpu:x86-64", "empty"},
      {"whitespace only", " \n\t\n", "cpu:x86-64", "empty"},
      {"text parse error carries line:column", x86 + "define void @f() {\n  ret i32x\n}\n",
       "cpu:x86-64", "3:"},
      {"truncated bitcode", std::string("BC\xC0\xDE\x35\x14\x00\x00", 8), "cpu:x86-64", "bitcode"},
      {"verifier failure", x86 + "define i32 @f() {\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  ret i32 %a\n}\n",
       "cpu:x86-64", "dominate"},
      {"embedded NUL", x86 + std::string(kNulTruncated, sizeof kNulTruncated - 1), "cpu:x86-64", "NUL"},
      {"triple that contradicts the target", "target triple = \"nvptx64-nvidia-cuda\"\ndefine void @f() {\n  ret void\n}\n",
       "cpu:x86-64", "nvptx64"},
      {"module with no exported function", x86 + "define internal void @f() {\n  ret void\n}\n",
       "cpu:x86-64", "no exported function"},
      {"missing entry point", x86 + "define void @f() {\n  ret void\n}\n", "cpu:x86-64", "nope", {"nope"}},
      {"unknown cpu", x86 + "define void @f() {\n  ret void\n}\n", "cpu:not-a-cpu", "not-a-cpu"},
  };
  if (CudaBuilt()) {
    const std::string ptx = "target triple = \"nvptx64-nvidia-cuda\"\n";
    cases.push_back({"cuda module with no kernel", ptx + "define void @f() {\n  ret void\n}\n", "cuda:sm_90",
                     "no kernel"});
    cases.push_back({"x86 triple for a cuda target", x86 + "define void @f() {\n  ret void\n}\n", "cuda:sm_90",
                     "x86_64"});
    cases.push_back({"unsupported SM", ptx + "define void @f() {\n  ret void\n}\n", "cuda:sm_999", "sm_999"});
  }
  return cases;
}

}  // namespace

TEST_CASE("malformed inputs are refused precisely, nothing is stored, the daemon keeps serving",
          "[integration][bad-input]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const pid_t pid = daemon.pid();
  auto client = daemon.Connect();
  for (const BadCase& c : Cases()) {
    INFO(c.name);
    v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", c.target);
    d.set_ir(c.ir);
    for (const std::string& e : c.entries) d.add_entry_points(e);
    v1::CompileResult r = CompileOne(*client, d);
    REQUIRE(r.status() == v1::CACHE_STATUS_ERROR);
    CHECK(r.error().code() == static_cast<int>(Code::kInvalidArgument));
    CHECK_THAT(r.error().message(), Catch::Contains(c.message, Catch::CaseSensitive::No));
    CHECK_FALSE(r.has_artifact());
  }
  auto stats = client->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->store_artifacts() == 0);
  CHECK(stats->errors() == Cases().size());
  CHECK(client->Ping().ok());
  CHECK(daemon.pid() == pid);
  CHECK(CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64")).status() ==
        v1::CACHE_STATUS_COMPILED);
}

TEST_CASE("one bad item in a batch does not fail the others", "[integration][bad-input]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileRequest request;
  *request.add_kernels() = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  v1::KernelDescriptor bad = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  bad.set_ir("this is not IR");
  *request.add_kernels() = bad;
  *request.add_kernels() = Descriptor("cpu/stencil2d.ll", "cpu:x86-64");
  auto response = client->Compile(request);
  REQUIRE(response.ok());
  REQUIRE(response->results_size() == 3);
  CHECK(response->results(0).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(response->results(1).status() == v1::CACHE_STATUS_ERROR);
  CHECK(response->results(2).status() == v1::CACHE_STATUS_COMPILED);
}

TEST_CASE("bad descriptor fields are refused before compiling", "[integration][bad-input]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  SECTION("no target") {
    v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
    d.clear_target();
    CHECK_THAT(CompileOne(*client, d).error().message(), Catch::Contains("target"));
  }
  SECTION("opt level out of range") {
    v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
    d.mutable_options()->set_opt_level(7);
    CHECK_THAT(CompileOne(*client, d).error().message(), Catch::Contains("opt_level"));
  }
  SECTION("native cpu") {
    v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
    d.mutable_target()->mutable_cpu()->set_cpu("native");
    CHECK_THAT(CompileOne(*client, d).error().message(), Catch::Contains("native"));
  }
}

TEST_CASE("a request with another protocol version is refused", "[integration][bad-input]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  // Client always stamps version 1; talk to the stub directly.
  auto channel = grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials());
  auto stub = v1::CompileCache::NewStub(channel);
  grpc::ClientContext context;
  v1::GetStatsRequest request;
  request.mutable_header()->set_protocol_version(2);
  v1::GetStatsResponse response;
  grpc::Status s = stub->GetStats(&context, request, &response);
  CHECK(s.error_code() == grpc::StatusCode::FAILED_PRECONDITION);
  CHECK_THAT(s.error_message(), Catch::Contains("protocol_version"));
}

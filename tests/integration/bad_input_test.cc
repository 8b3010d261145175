// Bad requests beyond the IR itself: batches with one bad item, descriptor
// fields, protocol versions. Malformed IR is the corpus in bad_corpus_test.cc.
#include <catch2/catch.hpp>
#include <grpcpp/grpcpp.h>

#include <string>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

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
  SECTION("missing entry point") {
    v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
    d.add_entry_points("nope");
    const v1::CompileResult r = CompileOne(*client, d);
    CHECK(r.error().code() == static_cast<int>(Code::kInvalidArgument));
    CHECK_THAT(r.error().message(), Catch::Contains("nope"));
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

// Identical concurrent compiles run the compiler once (single-flight), also
// under a stampede of separate connections released at the same moment.
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <latch>
#include <thread>
#include <vector>

#include "qdcache/v1/qdcache.grpc.pb.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

struct Reply {
  grpc::Status status;
  v1::CompileResponse response;
};

// A channel with a connection of its own: by default gRPC shares one
// subchannel (one connection) between channels with the same target and
// arguments, which would turn N clients into N calls on one connection.
std::shared_ptr<grpc::Channel> OwnConnection(const DaemonProcess& daemon) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("unix:" + daemon.socket_path(),
                                   grpc::InsecureChannelCredentials(), args);
}

// `clients` clients, each on its own connected channel and thread, send
// `descriptor` at once: they are all released by one latch after every
// connection is up.
std::vector<Reply> Stampede(const DaemonProcess& daemon, const v1::KernelDescriptor& descriptor,
                            int clients) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < clients; ++i) {
    channels.push_back(OwnConnection(daemon));
    INFO("connection " << i);
    REQUIRE(channels.back()->WaitForConnected(std::chrono::system_clock::now() +
                                              std::chrono::seconds(60)));
  }
  v1::CompileRequest request;
  request.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  *request.add_kernels() = descriptor;
  std::vector<Reply> replies(static_cast<std::size_t>(clients));
  std::latch go(clients);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      auto stub = v1::CompileCache::NewStub(channels[i]);
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(5));
      go.arrive_and_wait();
      replies[i].status = stub->Compile(&context, request, &replies[i].response);
    });
  }
  for (std::thread& t : threads) t.join();
  return replies;
}

// Checks every reply is an artifact with the first one's bytes and key;
// returns how many of them say COMPILED.
int CompiledAmongSameArtifacts(const std::vector<Reply>& replies) {
  int compiled = 0;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    INFO("client " << i << ": " << replies[i].status.error_message());
    REQUIRE(replies[i].status.ok());
    REQUIRE(replies[i].response.results_size() == 1);
    const v1::CompileResult& r = replies[i].response.results(0);
    REQUIRE(r.has_artifact());
    const v1::Artifact& first = replies[0].response.results(0).artifact();
    CHECK(!r.artifact().payload().empty());
    CHECK(r.artifact().payload() == first.payload());
    CHECK(r.artifact().artifact_key() == first.artifact_key());
    compiled += r.status() == v1::CACHE_STATUS_COMPILED;
  }
  return compiled;
}

}  // namespace

TEST_CASE(
    "200 clients on separate connections asking at once for one missing kernel cause "
    "exactly one compile and get identical bytes",
    "[integration][coalescing]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string target = CudaBuilt() ? "cuda:sm_90" : "cpu:x86-64";
  const std::string file = CudaBuilt() ? "cuda/stencil2d.ll" : "cpu/stencil2d.ll";
  v1::KernelDescriptor d = Descriptor(file, target);
  d.set_fast_key("stampede");
  d.set_namespace_("coalescing");
  constexpr int kClients = 200;

  std::vector<Reply> replies = Stampede(daemon, d, kClients);
  CHECK(CompiledAmongSameArtifacts(replies) == 1);
  auto stats = daemon.Connect()->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->compiles() == 1);
  CHECK(stats->coalesced() + stats->hits() == kClients - 1);
  CHECK(stats->requests() == kClients);
  CHECK(stats->errors() == 0);
  CHECK(stats->store_errors() == 0);
  CHECK(stats->store_artifacts() == 1);
  CHECK(stats->store_aliases() == 1);  // 200 concurrent alias writes, counted once
  CHECK(daemon.Stop() == 0);           // under TSan, a race report makes this non-zero
}

TEST_CASE("16 clients asking at once for one PTX kernel or one CUDA C++ program cause one compile",
          "[integration][coalescing][ptx][cuda-cpp]") {
  if (!CudaBuilt()) {
    WARN("built without the CUDA Toolkit: skipping");
    return;
  }
  struct Kind {
    const char* file;
    v1::SourceKind kind;
    std::uint64_t codegen_runs;  // PTX is only linked; CUDA C++ runs NVRTC once
  };
  for (const Kind& k : {Kind{"ptx/scale_shift.ptx", v1::SOURCE_KIND_PTX, 0},
                        Kind{"cuda_cpp/half_axpy.cu", v1::SOURCE_KIND_CUDA, 1}}) {
    INFO(k.file);
    TempDir dir;
    DaemonProcess daemon(dir.path());
    daemon.Start();
    v1::KernelDescriptor d = Descriptor(k.file, "cuda:sm_90");
    d.set_kind(k.kind);
    constexpr int kClients = 16;
    std::vector<Reply> replies = Stampede(daemon, d, kClients);
    CHECK(CompiledAmongSameArtifacts(replies) == 1);
    auto stats = daemon.Connect()->Stats();
    REQUIRE(stats.ok());
    CHECK(stats->compiles() == 1);
    CHECK(stats->stage_misses() == k.codegen_runs);
    CHECK(stats->coalesced() + stats->hits() == kClients - 1);
  }
}

// LookupStream, the streamed form of Lookup that Client::Lookup uses for
// large batches: the same results in the same order as one-by-one lookups,
// split across messages of about 1 MiB, under the same batch limit.
#include <catch2/catch.hpp>
#include <grpcpp/grpcpp.h>

#include "qdcache/v1/qdcache.grpc.pb.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

constexpr std::size_t kTableBytes = 400 << 10;  // three hits make more than one message

v1::FastKeyQuery Query(const std::string& fast_key) {
  v1::FastKeyQuery q;
  q.set_fast_key(fast_key);
  q.set_namespace_("stream");
  q.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  return q;
}

// 20 queries: hits on three large kernels, misses and an invalid one.
v1::LookupRequest MixedRequest() {
  v1::LookupRequest request;
  const char* keys[] = {"k0", "k1", "absent", "k2", "k0", "", "k1", "k2", "nope", "k0"};
  for (int round = 0; round < 2; ++round) {
    for (const char* k : keys) *request.add_queries() = Query(k);
  }
  return request;
}

}  // namespace

TEST_CASE("a large lookup batch is streamed: same results in the same order as one by one",
          "[integration][lookup_stream]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.ConnectGrpcOnly();  // on the unix socket a client would take the lean transport
  for (int i = 0; i < 3; ++i) {
    v1::KernelDescriptor d;
    d.set_ir(PaddedCpuKernel(i, kTableBytes));
    d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
    d.set_fast_key("k" + std::to_string(i));
    d.set_namespace_("stream");
    REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  }
  const v1::LookupRequest request = MixedRequest();
  REQUIRE(request.queries_size() >= client::Client::kStreamedLookupMin);

  auto batch = client->Lookup(request);  // streamed
  REQUIRE(batch.ok());
  REQUIRE(batch->results_size() == request.queries_size());
  for (int i = 0; i < request.queries_size(); ++i) {
    v1::LookupRequest one;
    *one.add_queries() = request.queries(i);
    auto single = client->Lookup(one);  // unary
    REQUIRE(single.ok());
    INFO("query " << i << " '" << request.queries(i).fast_key() << "'");
    CHECK(batch->results(i).status() == single->results(0).status());
    CHECK(batch->results(i).artifact().payload() == single->results(0).artifact().payload());
    CHECK(batch->results(i).error().code() == single->results(0).error().code());
  }
  CHECK(batch->results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(batch->results(0).artifact().payload().size() > kTableBytes);
  CHECK(batch->results(2).status() == v1::CACHE_STATUS_MISS);
  CHECK(batch->results(5).status() == v1::CACHE_STATUS_ERROR);

  // The lean transport, which a client takes on the unix socket, answers
  // exactly the same (these payloads come in its memfd).
  auto lean = daemon.Connect()->Lookup(request);
  REQUIRE(lean.ok());
  REQUIRE(lean->results_size() == batch->results_size());
  for (int i = 0; i < batch->results_size(); ++i) {
    INFO("query " << i);
    CHECK(lean->results(i).SerializeAsString() == batch->results(i).SerializeAsString());
  }

  // On the wire: several messages, none much above 1 MiB plus one result.
  auto stub = v1::CompileCache::NewStub(
      grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::LookupRequest raw = request;
  raw.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  auto reader = stub->LookupStream(&context, raw);
  v1::LookupResponse message;
  int messages = 0, results = 0;
  while (reader->Read(&message)) {
    ++messages;
    results += message.results_size();
    CHECK(message.results_size() >= 1);
    CHECK(message.ByteSizeLong() < (1u << 20) + kTableBytes + (64u << 10));
  }
  REQUIRE(reader->Finish().ok());
  CHECK(results == request.queries_size());
  CHECK(messages > 1);
}

TEST_CASE("a streamed lookup batch over --max-batch is refused whole", "[integration][lookup_stream]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-batch", "16"});
  daemon.Start();
  v1::LookupRequest request;
  for (int i = 0; i < 17; ++i) *request.add_queries() = Query("k" + std::to_string(i));
  auto batch = daemon.ConnectGrpcOnly()->Lookup(request);
  REQUIRE_FALSE(batch.ok());
  CHECK(batch.status().code() == Code::kResourceExhausted);
  CHECK_THAT(batch.status().message(), Catch::Contains("--max-batch"));
}

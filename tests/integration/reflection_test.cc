// Server reflection as grpcurl uses it: list the services, fetch the schema
// of qdcache.v1.CompileCache, and call GetStats with messages built from the
// reflected descriptors alone (no generated qdcache code on this side).
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/dynamic_message.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <catch2/catch.hpp>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;
namespace pb = google::protobuf;
namespace reflection = grpc::reflection::v1alpha;

namespace {

std::shared_ptr<grpc::Channel> UnixChannel(const DaemonProcess& daemon) {
  return grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials());
}

// One request on a fresh reflection stream, and its one answer.
reflection::ServerReflectionResponse Ask(reflection::ServerReflection::Stub& stub,
                                         const reflection::ServerReflectionRequest& request) {
  grpc::ClientContext context;
  auto stream = stub.ServerReflectionInfo(&context);
  REQUIRE(stream->Write(request));
  REQUIRE(stream->WritesDone());
  reflection::ServerReflectionResponse response;
  REQUIRE(stream->Read(&response));
  grpc::Status status = stream->Finish();
  INFO(status.error_message());
  REQUIRE(status.ok());
  return response;
}

}  // namespace

TEST_CASE("server reflection lists the services and describes CompileCache well enough to call it",
          "[integration][reflection]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  // Something for GetStats to count.
  REQUIRE(CompileOne(*daemon.Connect(), Descriptor("cpu/saxpy.ll", "cpu:x86-64")).status() ==
          v1::CACHE_STATUS_COMPILED);

  std::shared_ptr<grpc::Channel> channel = UnixChannel(daemon);
  auto stub = reflection::ServerReflection::NewStub(channel);

  reflection::ServerReflectionRequest list;
  list.set_list_services("");
  reflection::ServerReflectionResponse listed = Ask(*stub, list);
  REQUIRE(listed.has_list_services_response());
  std::set<std::string> services;
  for (const auto& s : listed.list_services_response().service()) services.insert(s.name());
  CHECK(services.contains("qdcache.v1.CompileCache"));
  CHECK(services.contains("grpc.health.v1.Health"));

  reflection::ServerReflectionRequest symbol;
  symbol.set_file_containing_symbol("qdcache.v1.CompileCache");
  reflection::ServerReflectionResponse files = Ask(*stub, symbol);
  REQUIRE(files.has_file_descriptor_response());
  // The file and everything it imports, in any order: the database lets the
  // pool resolve them as needed.
  pb::SimpleDescriptorDatabase database;
  for (const std::string& bytes : files.file_descriptor_response().file_descriptor_proto()) {
    pb::FileDescriptorProto file;
    REQUIRE(file.ParseFromString(bytes));
    REQUIRE(database.Add(file));
  }
  pb::DescriptorPool pool(&database);
  const pb::ServiceDescriptor* service = pool.FindServiceByName("qdcache.v1.CompileCache");
  REQUIRE(service != nullptr);
  const pb::MethodDescriptor* get_stats = service->FindMethodByName("GetStats");
  REQUIRE(get_stats != nullptr);

  // GetStatsRequest{header: {protocol_version: PROTOCOL_VERSION_1}}, by name:
  // the field is a uint32 holding a value of the ProtocolVersion enum.
  const pb::EnumDescriptor* versions = pool.FindEnumTypeByName("qdcache.v1.ProtocolVersion");
  REQUIRE(versions != nullptr);
  const pb::EnumValueDescriptor* v1 = versions->FindValueByName("PROTOCOL_VERSION_1");
  REQUIRE(v1 != nullptr);
  pb::DynamicMessageFactory factory(&pool);
  std::unique_ptr<pb::Message> request(factory.GetPrototype(get_stats->input_type())->New());
  const pb::FieldDescriptor* header_field = get_stats->input_type()->FindFieldByName("header");
  REQUIRE(header_field != nullptr);
  pb::Message* header =
      request->GetReflection()->MutableMessage(request.get(), header_field, &factory);
  const pb::FieldDescriptor* version_field =
      header->GetDescriptor()->FindFieldByName("protocol_version");
  REQUIRE(version_field != nullptr);
  header->GetReflection()->SetUInt32(header, version_field,
                                     static_cast<std::uint32_t>(v1->number()));

  std::string request_bytes;
  REQUIRE(request->SerializeToString(&request_bytes));
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;
  grpc::GenericStub generic(channel);
  grpc::ClientContext context;
  std::promise<grpc::Status> done;
  generic.UnaryCall(&context, "/" + service->full_name() + "/" + get_stats->name(),
                    grpc::StubOptions(), &request_buffer, &response_buffer,
                    [&done](grpc::Status s) { done.set_value(std::move(s)); });
  grpc::Status status = done.get_future().get();
  INFO(status.error_message());
  REQUIRE(status.ok());

  std::vector<grpc::Slice> slices;
  REQUIRE(response_buffer.Dump(&slices).ok());
  std::string response_bytes;
  for (const grpc::Slice& s : slices)
    response_bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  std::unique_ptr<pb::Message> response(factory.GetPrototype(get_stats->output_type())->New());
  REQUIRE(response->ParseFromString(response_bytes));
  const pb::FieldDescriptor* stats_field = get_stats->output_type()->FindFieldByName("stats");
  REQUIRE(stats_field != nullptr);
  const pb::Message& stats = response->GetReflection()->GetMessage(*response, stats_field);
  const pb::FieldDescriptor* compiles = stats.GetDescriptor()->FindFieldByName("compiles");
  const pb::FieldDescriptor* version = stats.GetDescriptor()->FindFieldByName("version");
  REQUIRE(compiles != nullptr);
  REQUIRE(version != nullptr);
  CHECK(stats.GetReflection()->GetUInt64(stats, compiles) == 1);
  CHECK_FALSE(stats.GetReflection()->GetString(stats, version).empty());
}

TEST_CASE("open reflection streams are bounded, and CompileCache is still served meanwhile",
          "[integration][reflection]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto stub = reflection::ServerReflection::NewStub(UnixChannel(daemon));
  // Each stream, once answered, holds a daemon thread until it ends.
  struct OpenStream {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<reflection::ServerReflectionRequest,
                                             reflection::ServerReflectionResponse>>
        stream;
  };
  std::vector<std::unique_ptr<OpenStream>> open;
  reflection::ServerReflectionRequest list;
  list.set_list_services("");
  constexpr int kTries = 100;  // well past the daemon's bound (64 threads)
  std::optional<grpc::Status> refused;
  for (int i = 0; i < kTries && !refused; ++i) {
    auto s = std::make_unique<OpenStream>();
    s->stream = stub->ServerReflectionInfo(&s->context);
    reflection::ServerReflectionResponse response;
    if (s->stream->Write(list) && s->stream->Read(&response)) {
      open.push_back(std::move(s));
    } else {
      refused = s->stream->Finish();
    }
  }
  INFO(open.size() << " streams open");
  REQUIRE(refused.has_value());
  CHECK(refused->error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK(open.size() >= 32);

  // The callback services do not use those threads.
  auto client = daemon.Connect();
  CHECK(client->Ping().ok());
  CHECK(CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64")).status() ==
        v1::CACHE_STATUS_COMPILED);

  for (auto& s : open) {
    CHECK(s->stream->WritesDone());
    CHECK(s->stream->Finish().ok());
  }
  // The threads are back: a new stream is answered.
  CHECK(Ask(*stub, list).has_list_services_response());
}

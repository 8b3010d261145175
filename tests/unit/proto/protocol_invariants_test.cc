// The protocol keeps "clients never supply artifact bytes" (docs/protocol.md):
// no request message of the service can carry an Artifact, and the only
// bytes a request carries are IR, fast keys and the key Inspect reads. The
// one exception is Import, which needs role admin.
#include <google/protobuf/descriptor.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "auth/role.h"
#include "qdcache/v1/qdcache.pb.h"

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Every field reachable from `message`, each message type visited once.
void Walk(const Descriptor* message, std::set<const Descriptor*>& seen,
          std::set<std::string>& bytes_fields, std::set<std::string>& message_types) {
  if (!seen.insert(message).second) return;
  message_types.insert(message->full_name());
  for (int i = 0; i < message->field_count(); ++i) {
    const FieldDescriptor* f = message->field(i);
    if (f->type() == FieldDescriptor::TYPE_BYTES) bytes_fields.insert(f->full_name());
    if (f->type() == FieldDescriptor::TYPE_MESSAGE)
      Walk(f->message_type(), seen, bytes_fields, message_types);
  }
}

}  // namespace

TEST_CASE("no request of the service can carry artifact bytes", "[proto]") {
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      "qdcache.v1.CompileCache");
  REQUIRE(service != nullptr);
  REQUIRE(service->method_count() >= 8);
  std::set<const Descriptor*> seen;
  std::set<std::string> bytes_fields, message_types;
  for (int i = 0; i < service->method_count(); ++i) {
    INFO(service->method(i)->full_name());
    if (service->method(i)->name() == "Import") continue;  // the admin-only exception, below
    CHECK_FALSE(service->method(i)->client_streaming());
    Walk(service->method(i)->input_type(), seen, bytes_fields, message_types);
  }
  CHECK(message_types.count("qdcache.v1.Artifact") == 0);
  CHECK(message_types.count("qdcache.v1.CompileResult") == 0);
  // A new bytes field in a request must be reviewed against the invariant
  // before it is added here.
  const std::set<std::string> allowed = {
      "qdcache.v1.KernelDescriptor.ir",
      "qdcache.v1.KernelDescriptor.fast_key",
      "qdcache.v1.FastKeyQuery.fast_key",
      "qdcache.v1.InspectRequest.artifact_key",
      // A CUDA C++ header: source the daemon compiles and keys, like `ir`.
      "qdcache.v1.SourceFile.content",
      // Keys of stored artifacts to explain, as InspectRequest's.
      "qdcache.v1.ExplainStoredRequest.artifact_keys",
      // The client's digest of a file it read, kept with its own alias and
      // given back to it: never an artifact's bytes, nor in any key.
      "qdcache.v1.Dependency.digest",
  };
  CHECK(bytes_fields == allowed);
}

TEST_CASE("the walk sees artifacts where they are: in responses", "[proto]") {
  // Guards the test above against walking nothing.
  std::set<const Descriptor*> seen;
  std::set<std::string> bytes_fields, message_types;
  Walk(qdcache::v1::CompileResponse::descriptor(), seen, bytes_fields, message_types);
  CHECK(message_types.count("qdcache.v1.Artifact") == 1);
  CHECK(bytes_fields.count("qdcache.v1.Artifact.payload") == 1);
}

TEST_CASE("Import, the one request that carries artifact bytes, needs role admin", "[proto]") {
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      "qdcache.v1.CompileCache");
  REQUIRE(service != nullptr);
  const auto* import = service->FindMethodByName("Import");
  REQUIRE(import != nullptr);
  CHECK(import->client_streaming());
  CHECK(qdcache::auth::RequiredRole(qdcache::auth::Operation::kImport) == qdcache::auth::Role::kAdmin);
  CHECK(qdcache::auth::RequiredRole(qdcache::auth::Operation::kExportAllTenants) ==
        qdcache::auth::Role::kAdmin);
  CHECK(qdcache::auth::RequiredRole(qdcache::auth::Operation::kExport) == qdcache::auth::Role::kRead);
}

// Writes seed inputs for the request_decode fuzzer: serialized
// CompileRequests and LookupRequests around the given IR files, with a spread
// of targets, options, entry points, fast keys and key extras.
// Usage: qdcache_fuzz_request_seeds OUTDIR IR_FILE...
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "qdcache/v1/qdcache.pb.h"

namespace {

using namespace qdcache;

void Write(const std::string& path, const google::protobuf::Message& message) {
  std::ofstream out(path, std::ios::binary);
  message.SerializeToOstream(&out);
}

v1::Target Target(bool cuda) {
  v1::Target t;
  if (cuda) {
    t.mutable_cuda()->set_sm("sm_90");
  } else {
    t.mutable_cpu()->set_cpu("x86-64");
    t.mutable_cpu()->add_features("+avx2");
    t.mutable_cpu()->add_features("-sse4a");
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUTDIR IR_FILE...\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    const std::string ir((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const bool cuda : {false, true}) {
      v1::CompileRequest request;
      request.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
      request.mutable_header()->set_client("fuzz-seed");
      v1::KernelDescriptor* d = request.add_kernels();
      d->set_ir(ir);
      *d->mutable_target() = Target(cuda);
      d->mutable_options()->set_opt_level(2);
      d->mutable_options()->set_fast_math(true);
      d->mutable_options()->set_max_registers(64);
      d->add_entry_points("saxpy");
      d->set_fast_key("fast-key");
      d->set_namespace_("ns");
      (*d->mutable_key_extras())["FRONTEND_FLAG"] = "1";
      const std::string name = out + "/compile_" + std::to_string(i) + (cuda ? "_cuda" : "_cpu");
      Write(name, request);

      v1::LookupRequest lookup;
      lookup.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
      v1::FastKeyQuery* q = lookup.add_queries();
      q->set_fast_key("fast-key");
      q->set_namespace_("ns");
      *q->mutable_target() = Target(cuda);
      Write(out + "/lookup_" + std::to_string(i) + (cuda ? "_cuda" : "_cpu"), lookup);
    }
  }
  return 0;
}

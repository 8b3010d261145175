// libqdcache.so's Lookup messages without protobuf (lean/lookup_wire.h)
// against protobuf itself: the request it encodes is the bytes protobuf
// serializes, and what it reads of an answer is what protobuf parses, for
// well-formed answers, merged ones, and every truncation of one.
#include <catch2/catch.hpp>

#include "client/wire_target.h"
#include "common/target.h"
#include "lean/lookup_wire.h"
#include "qdcache/v1/qdcache.pb.h"

using namespace qdcache;

namespace {

std::string ProtobufRequest(const std::string& client, const std::vector<std::string>& keys, const std::string& ns,
                            const std::string& target, bool include_ptx) {
  v1::LookupRequest r;
  r.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  r.mutable_header()->set_client(client);
  Expected<v1::Target> wire = client::ParseWireTarget(target);
  REQUIRE(wire.ok());
  for (const std::string& key : keys) {
    v1::FastKeyQuery* q = r.add_queries();
    q->set_fast_key(key);
    q->set_namespace_(ns);
    *q->mutable_target() = *wire;
  }
  r.set_include_ptx(include_ptx);
  return r.SerializeAsString();
}

std::string Encoded(const std::string& client, const std::vector<std::string>& keys, const std::string& ns,
                    const std::string& target, bool include_ptx) {
  Expected<Target> parsed = ParseTarget(target);
  REQUIRE(parsed.ok());
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  return lean::EncodeLookupRequest(client, views, ns, *parsed, include_ptx);
}

// Every field the C ABI reads, of protobuf's parse and of ours, alike.
void CheckSame(const v1::LookupResponse& expected, const std::vector<lean::WireResult>& got) {
  REQUIRE(got.size() == static_cast<std::size_t>(expected.results_size()));
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("result " << i);
    const v1::CompileResult& e = expected.results(static_cast<int>(i));
    const lean::WireResult& g = got[i];
    CHECK(g.status == static_cast<int>(e.status()));
    REQUIRE(g.has_artifact == e.has_artifact());
    CHECK(g.kind == static_cast<int>(e.artifact().kind()));
    CHECK(g.artifact_key == e.artifact().artifact_key());
    CHECK(g.payload == e.artifact().payload());
    CHECK(g.ptx == e.artifact().ptx());
    CHECK(g.target == e.artifact().target());
    REQUIRE(g.has_error == e.has_error());
    CHECK(g.error_code == e.error().code());
    CHECK(g.error_message == e.error().message());
    REQUIRE(g.dependencies.size() == static_cast<std::size_t>(e.dependencies_size()));
    for (std::size_t d = 0; d < g.dependencies.size(); ++d) {
      CHECK(g.dependencies[d].name == e.dependencies(static_cast<int>(d)).name());
      CHECK(g.dependencies[d].digest == e.dependencies(static_cast<int>(d)).digest());
    }
  }
}

// A response with every kind of result and the fields around the ones read.
v1::LookupResponse Varied() {
  v1::LookupResponse r;
  v1::CompileResult* hit = r.add_results();
  hit->set_status(v1::CACHE_STATUS_ALIAS_HIT);
  v1::Artifact* a = hit->mutable_artifact();
  a->set_kind(v1::ARTIFACT_KIND_CUBIN);
  a->set_artifact_key(std::string(32, '\x9c'));
  a->set_payload_digest(std::string(32, '\x01'));
  a->set_ptx(std::string(300, 'p'));  // a length of two varint bytes
  a->set_target("cuda:sm_90");
  a->set_toolchain("abc123");
  a->add_entries()->set_name("saxpy");
  a->set_compile_log("log");
  a->set_created_unix_ms(1'700'000'000'000);
  v1::Dependency* d = hit->add_dependencies();
  d->set_name("kernels/saxpy.py");
  d->set_digest(std::string(32, '\x02'));
  hit->add_dependencies()->set_name("config.toml");
  r.add_results()->set_status(v1::CACHE_STATUS_MISS);
  v1::CompileResult* error = r.add_results();
  error->set_status(v1::CACHE_STATUS_ERROR);
  error->mutable_error()->set_code(3);
  error->mutable_error()->set_message("fast key too long: ünïcode");
  v1::CompileResult* negative = r.add_results();
  negative->set_status(v1::CACHE_STATUS_ERROR);
  negative->mutable_error()->set_code(-7);  // an int32 of ten varint bytes
  v1::CompileResult* conflict = r.add_results();
  conflict->set_status(v1::CACHE_STATUS_ALIAS_HIT);
  conflict->mutable_artifact()->set_kind(v1::ARTIFACT_KIND_SHARED_OBJECT);
  conflict->mutable_alias_conflict()->set_message("fast-key conflict");
  conflict->mutable_miss_reason();
  return r;
}

}  // namespace

TEST_CASE("a lean lookup request is the bytes protobuf serializes", "[lean][wire]") {
  const std::vector<std::string> same_length = {std::string(32, 'a'), std::string(32, '\0'), std::string(32, '\xff')};
  const std::vector<std::string> mixed = {"", "k", std::string(127, 'x'), std::string(128, 'y'), std::string(20000, 'z')};
  for (const char* target : {"cuda:sm_90", "cuda:sm_90a", "cpu:x86-64", "cpu:x86-64+avx2,+fma,-sse4a",
                                   "amdgpu:gfx90a", "amdgpu:gfx90a:sramecc+:xnack-"}) {
    for (const std::string& ns : {std::string(), std::string("quadrants"), std::string(200, 'n')}) {
      for (const auto* keys : {&same_length, &mixed}) {
        for (bool ptx : {false, true}) {
          for (const char* client : {"", "qdcache-c"}) {
            INFO(target << " ns " << ns.size() << " keys " << keys->size() << " ptx " << ptx << " client " << client);
            CHECK(Encoded(client, *keys, ns, target, ptx) == ProtobufRequest(client, *keys, ns, target, ptx));
          }
        }
      }
    }
  }
  CHECK(Encoded("c", {}, "ns", "cuda:sm_90", false) == ProtobufRequest("c", {}, "ns", "cuda:sm_90", false));
}

TEST_CASE("a lean lookup answer reads as protobuf parses it", "[lean][wire]") {
  const v1::LookupResponse varied = Varied();
  const std::string bytes = varied.SerializeAsString();
  Expected<std::vector<lean::WireResult>> got = lean::DecodeLookupResults(bytes);
  REQUIRE(got.ok());
  CheckSame(varied, *got);
  CHECK(got->at(0).raw.size() == varied.results(0).ByteSizeLong());

  SECTION("an empty answer has no results") {
    Expected<std::vector<lean::WireResult>> none = lean::DecodeLookupResults("");
    REQUIRE(none.ok());
    CHECK(none->empty());
  }
  SECTION("fields given twice: the last scalar, messages merged, the oneof's last member") {
    v1::CompileResult second;
    second.set_status(v1::CACHE_STATUS_HIT);
    second.mutable_artifact()->set_target("cpu:x86-64");  // merged into result 0's artifact
    v1::CompileResult to_error;
    to_error.mutable_error()->set_code(13);  // result 0's artifact is dropped for this
    for (const v1::CompileResult* extra : {&second, &to_error}) {
      // Result 0's bytes, then the extra fields in the same result.
      const std::string result0 = varied.results(0).SerializeAsString() + extra->SerializeAsString();
      v1::LookupResponse expected;
      std::string wire;
      wire.push_back(0x0a);
      std::size_t n = result0.size();
      while (n > 0x7f) {
        wire.push_back(static_cast<char>((n & 0x7f) | 0x80));
        n >>= 7;
      }
      wire.push_back(static_cast<char>(n));
      wire += result0;
      REQUIRE(expected.ParseFromString(wire));
      Expected<std::vector<lean::WireResult>> read = lean::DecodeLookupResults(wire);
      REQUIRE(read.ok());
      CheckSame(expected, *read);
      // Handed on, it is still the same result.
      v1::LookupResponse again;
      REQUIRE(again.ParseFromString(lean::ResultForParse((*read)[0], "", false)));
      CHECK(again.SerializeAsString() == expected.SerializeAsString());
    }
  }
  SECTION("every truncation decodes exactly when protobuf's parse does, to the same") {
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      INFO("cut at " << cut << " of " << bytes.size());
      v1::LookupResponse expected;
      const bool parses = expected.ParseFromString(bytes.substr(0, cut));
      Expected<std::vector<lean::WireResult>> read = lean::DecodeLookupResults(std::string_view(bytes).substr(0, cut));
      REQUIRE(read.ok() == parses);
      if (parses) CheckSame(expected, *read);
    }
  }
  SECTION("what is not a message is an error") {
    for (const std::string& bad : {std::string("\x0a\x05\x08", 3), std::string("\x00\x01", 2), std::string("\x0f", 1),
                                  std::string("\x0a\x02\x0b\x00", 4), std::string(11, '\xff')}) {
      Expected<std::vector<lean::WireResult>> read = lean::DecodeLookupResults(bad);
      REQUIRE_FALSE(read.ok());
      CHECK(read.status().code() == Code::kUnavailable);
    }
  }
}

TEST_CASE("a lean result handed on with its payload parses as the result with it", "[lean][wire]") {
  const v1::LookupResponse varied = Varied();
  const std::string bytes = varied.SerializeAsString();  // what the results view
  Expected<std::vector<lean::WireResult>> read = lean::DecodeLookupResults(bytes);
  REQUIRE(read.ok());
  const std::string payload(5000, '\x7f');
  v1::LookupResponse whole;
  REQUIRE(whole.ParseFromString(lean::ResultForParse((*read)[0], payload, false) +
                                lean::ResultForParse((*read)[1], "", false) +
                                lean::ResultForParse((*read)[4], "", true)));
  REQUIRE(whole.results_size() == 3);
  v1::CompileResult expected = varied.results(0);
  expected.mutable_artifact()->set_payload(payload);
  CHECK(whole.results(0).SerializeAsString() == expected.SerializeAsString());
  CHECK(whole.results(1).SerializeAsString() == varied.results(1).SerializeAsString());
  // Dropped: a miss without artifact or dependencies; the rest kept.
  const v1::CompileResult& dropped = whole.results(2);
  CHECK(dropped.status() == v1::CACHE_STATUS_MISS);
  CHECK_FALSE(dropped.has_artifact());
  CHECK(dropped.dependencies_size() == 0);
  CHECK(dropped.alias_conflict().message() == "fast-key conflict");
  CHECK(dropped.has_miss_reason());
}

TEST_CASE("a lean lookup request split around its client's name keeps every other byte", "[lean][wire]") {
  const std::vector<std::string> keys = {"k1", std::string(200, 'k')};
  const std::string a = ProtobufRequest("quadrants/1.2", keys, "ns", "cuda:sm_90", false);
  const std::string b = ProtobufRequest("a-test-runner", keys, "ns", "cuda:sm_90", false);
  std::string rest_a = "prefix:", rest_b = "prefix:";
  Expected<std::string_view> name_a = lean::AppendWithoutClientName(a, &rest_a);
  Expected<std::string_view> name_b = lean::AppendWithoutClientName(b, &rest_b);
  REQUIRE(name_a.ok());
  REQUIRE(name_b.ok());
  CHECK(*name_a == "quadrants/1.2");
  CHECK(*name_b == "a-test-runner");
  CHECK(rest_a == rest_b);  // the same lookup from two programs
  REQUIRE(rest_a.starts_with("prefix:"));  // appended
  // What is left is the request, less the name, as protobuf reads it.
  v1::LookupRequest parsed, expected;
  REQUIRE(parsed.ParseFromString(rest_a.substr(7)));
  REQUIRE(expected.ParseFromString(a));
  expected.mutable_header()->clear_client();
  CHECK(parsed.SerializeAsString() == expected.SerializeAsString());
  CHECK(parsed.header().protocol_version() == v1::PROTOCOL_VERSION_1);

  // Anything else that differs still does: the protocol version, the keys,
  // the namespace, the target, the PTX.
  v1::LookupRequest other_version;
  REQUIRE(other_version.ParseFromString(a));
  other_version.mutable_header()->set_protocol_version(static_cast<v1::ProtocolVersion>(2));
  for (const std::string& other :
       {other_version.SerializeAsString(), ProtobufRequest("quadrants/1.2", {"k1"}, "ns", "cuda:sm_90", false),
        ProtobufRequest("quadrants/1.2", keys, "other", "cuda:sm_90", false),
        ProtobufRequest("quadrants/1.2", keys, "ns", "cuda:sm_80", false),
        ProtobufRequest("quadrants/1.2", keys, "ns", "cuda:sm_90", true)}) {
    std::string rest = "prefix:";
    REQUIRE(lean::AppendWithoutClientName(other, &rest).ok());
    CHECK(rest != rest_a);
  }
}

TEST_CASE("a lean lookup request's client name is read as protobuf reads it, and broken bytes are refused",
          "[lean][wire]") {
  // Two headers (protobuf merges them: the later name wins), a name given
  // with another wire type (an unknown field to protobuf: kept), no header.
  std::string twice = ProtobufRequest("first", {"k"}, "ns", "cpu:x86-64", false);
  v1::LookupRequest second;
  second.mutable_header()->set_client("second");
  twice += second.SerializeAsString();
  std::string rest;
  Expected<std::string_view> name = lean::AppendWithoutClientName(twice, &rest);
  REQUIRE(name.ok());
  CHECK(*name == "second");
  v1::LookupRequest merged;
  REQUIRE(merged.ParseFromString(twice));
  CHECK(merged.header().client() == "second");
  v1::LookupRequest nameless;  // neither header keeps its name
  REQUIRE(nameless.ParseFromString(rest));
  CHECK(nameless.header().client().empty());
  CHECK(nameless.queries_size() == 1);

  const std::string odd_name = std::string("\x0a\x02\x10\x07", 4);  // header { field 2 as a varint }
  rest.clear();
  name = lean::AppendWithoutClientName(odd_name, &rest);
  REQUIRE(name.ok());
  CHECK(name->empty());
  CHECK(rest == odd_name);

  rest.clear();
  REQUIRE(lean::AppendWithoutClientName("", &rest).ok());
  CHECK(rest.empty());

  const std::string whole = ProtobufRequest("name", {"key"}, "ns", "cpu:x86-64", false);
  for (std::size_t cut = 1; cut < whole.size(); ++cut) {
    INFO("cut at " << cut);
    v1::LookupRequest r;
    if (r.ParseFromString(whole.substr(0, cut))) continue;  // a prefix that is itself a message
    std::string ignored;
    CHECK(lean::AppendWithoutClientName(whole.substr(0, cut), &ignored).status().code() == Code::kUnavailable);
  }
}

// The lean wire format both ways: what the daemon encodes, the C++ client
// decodes back into the response gRPC would have answered; and a reply
// that breaks the format is an error, never a misread answer.
#include <catch2/catch.hpp>

#include "lean/protocol.h"

using namespace qdcache;

namespace {

v1::LookupResponse Response(const std::vector<std::string>& payloads) {
  v1::LookupResponse r;
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    v1::CompileResult* result = r.add_results();
    if (payloads[i].empty()) {
      result->set_status(v1::CACHE_STATUS_MISS);
      continue;
    }
    result->set_status(v1::CACHE_STATUS_ALIAS_HIT);
    result->mutable_artifact()->set_artifact_key(std::string(32, static_cast<char>('a' + i)));
    result->mutable_artifact()->set_payload(payloads[i]);
  }
  return r;
}

// The wire form of `response`: body, and the blob inline after it or apart (a memfd's).
struct Wire {
  std::string body;
  std::string blob;
};

Wire Encode(v1::LookupResponse response, bool inline_blob) {
  const lean::LookupReply reply = lean::EncodeLookupReply(response);
  Wire w{reply.body, std::string(reply.blob_bytes, '\x55')};
  lean::CopyBlob(reply, w.blob.data());
  if (inline_blob) {
    w.body += w.blob;
    w.blob.clear();
  }
  return w;
}

// What the C++ client's Lookup makes of an answer: the views, copied in.
Expected<v1::LookupResponse> DecodeLookupReply(std::string_view body, std::optional<std::string_view> blob) {
  QDC_ASSIGN_OR_RETURN(lean::LookupAnswer answer, lean::DecodeLookupAnswer(body, blob));
  lean::InlinePayloads(answer.payloads, &answer.response);
  return std::move(answer.response);
}

Expected<v1::LookupResponse> Decode(const Wire& w, bool inline_blob) {
  return DecodeLookupReply(w.body, inline_blob ? std::nullopt : std::optional<std::string_view>(w.blob));
}

// Offset `i`'s table entry in `body` (8 bytes at 4 + proto + 16 i + 8 * field).
void PutTable(std::string& body, std::size_t i, int field, std::uint64_t value) {
  std::uint32_t proto = 0;
  for (int b = 0; b < 4; ++b) proto |= static_cast<std::uint32_t>(static_cast<unsigned char>(body[b])) << (8 * b);
  const std::size_t at = 4 + proto + 16 * i + 8 * static_cast<std::size_t>(field);
  for (int b = 0; b < 8; ++b) body[at + b] = static_cast<char>((value >> (8 * b)) & 0xff);
}

}  // namespace

TEST_CASE("a lookup answer decodes to the response it was encoded from, blob inline or apart", "[lean]") {
  const std::vector<std::string> payloads = {"\x7f" "ELF one", "", std::string(100000, 'x'), "z"};
  const v1::LookupResponse original = Response(payloads);
  for (const bool inline_blob : {true, false}) {
    INFO((inline_blob ? "inline" : "memfd"));
    const Wire wire = Encode(original, inline_blob);
    Expected<v1::LookupResponse> decoded = Decode(wire, inline_blob);
    REQUIRE(decoded.ok());
    CHECK(decoded->SerializeAsString() == original.SerializeAsString());
    // The views and the blob they are into.
    Expected<lean::LookupAnswer> views = lean::DecodeLookupAnswer(
        wire.body, inline_blob ? std::nullopt : std::optional<std::string_view>(wire.blob));
    REQUIRE(views.ok());
    REQUIRE(views->payloads.size() == payloads.size());
    for (std::size_t i = 0; i < payloads.size(); ++i) {
      CHECK(views->payloads[i] == payloads[i]);
      if (!payloads[i].empty()) {
        CHECK(views->payloads[i].data() >= views->blob.data());
        CHECK(views->payloads[i].data() + payloads[i].size() <= views->blob.data() + views->blob.size());
      }
    }
  }
  Expected<v1::LookupResponse> empty = Decode(Encode(v1::LookupResponse(), true), true);
  REQUIRE(empty.ok());
  CHECK(empty->results_size() == 0);
}

TEST_CASE("a lookup answer that breaks the format is UNAVAILABLE, never a misread answer", "[lean]") {
  Wire w = Encode(Response({"abc", "defgh"}), false);
  auto refused = [](const Expected<v1::LookupResponse>& r, const std::string& words) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kUnavailable);
    CHECK_THAT(r.status().message(), Catch::Contains(words));
  };
  SECTION("cut short") {
    refused(DecodeLookupReply(w.body.substr(0, 3), w.blob), "length prefix");
    refused(DecodeLookupReply(w.body.substr(0, 10), w.blob), "shorter than its LookupResponse");
    refused(DecodeLookupReply(w.body.substr(0, w.body.size() - 1), w.blob), "offset table");
    refused(DecodeLookupReply(w.body, std::string_view(w.blob).substr(0, w.blob.size() - 1)),
            "outside its blob");
  }
  SECTION("a payload beyond the blob, or overlapping the one before") {
    std::string beyond = w.body;
    PutTable(beyond, 1, 0, std::uint64_t{1} << 62);
    refused(DecodeLookupReply(beyond, w.blob), "payload 1 lies outside");
    std::string overlap = w.body;
    PutTable(overlap, 1, 0, 1);
    refused(DecodeLookupReply(overlap, w.blob), "payload 1 lies outside");
    std::string huge = w.body;
    PutTable(huge, 0, 1, ~std::uint64_t{0});
    refused(DecodeLookupReply(huge, w.blob), "payload 0 lies outside");
  }
  SECTION("a payload for a result without an artifact") {
    Wire miss = Encode(Response({""}), false);
    PutTable(miss.body, 0, 1, 1);
    refused(DecodeLookupReply(miss.body, "x"), "but no artifact");
  }
  SECTION("a payload given twice: in the table and in the artifact") {
    v1::LookupResponse twice = Response({"abc"});
    Wire wire = Encode(twice, false);
    v1::LookupResponse carried = Response({"abc"});  // its payload left in
    const std::string proto = carried.SerializeAsString();
    std::string body(4, '\0');
    for (int b = 0; b < 4; ++b) body[b] = static_cast<char>((proto.size() >> (8 * b)) & 0xff);
    body += proto + wire.body.substr(wire.body.size() - 16);  // the same table entry
    refused(DecodeLookupReply(body, wire.blob), "its payload twice");
  }
  SECTION("a response that is not a LookupResponse") {
    std::string body = w.body;
    body[4] = '\xff';  // not a valid tag
    refused(DecodeLookupReply(body, w.blob), "does not decode");
  }
}

TEST_CASE("reply headers: what the daemon encodes decodes, anything else is refused", "[lean]") {
  Expected<lean::ReplyHeader> ok = lean::DecodeReplyHeader(lean::EncodeReplyHeader(1234, Code::kOk, lean::kWithFd));
  REQUIRE(ok.ok());
  CHECK(ok->body_bytes == 1234);
  CHECK(ok->code == Code::kOk);
  CHECK(ok->flags == lean::kWithFd);
  Expected<lean::ReplyHeader> denied = lean::DecodeReplyHeader(lean::EncodeReplyHeader(5, Code::kPermissionDenied, 0));
  REQUIRE(denied.ok());
  CHECK(denied->code == Code::kPermissionDenied);

  std::string reserved = lean::EncodeReplyHeader(0, Code::kOk, 0);
  reserved[7] = 1;
  CHECK(lean::DecodeReplyHeader(reserved).status().code() == Code::kUnavailable);
  std::string flags = lean::EncodeReplyHeader(0, Code::kOk, 0);
  flags[5] = 2;
  CHECK(lean::DecodeReplyHeader(flags).status().code() == Code::kUnavailable);
  std::string code = lean::EncodeReplyHeader(0, Code::kOk, 0);
  code[4] = 17;
  CHECK(lean::DecodeReplyHeader(code).status().code() == Code::kUnavailable);
  CHECK(lean::DecodeReplyHeader("short").status().code() == Code::kUnavailable);
}

TEST_CASE("requests: each served method's body decodes as its request, other methods are UNIMPLEMENTED",
          "[lean]") {
  v1::CompileRequest compile;
  compile.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  compile.add_kernels()->set_ir("define void @k() { ret void }");
  const std::string body = compile.SerializeAsString();
  Expected<lean::RequestHeader> h = lean::DecodeRequestHeader(
      lean::EncodeRequestHeader(static_cast<std::uint32_t>(body.size()), lean::kCompile), 1u << 20);
  REQUIRE(h.ok());
  Expected<v1::CompileRequest> decoded = lean::DecodeCompile(*h, body);
  REQUIRE(decoded.ok());
  CHECK(decoded->SerializeAsString() == body);
  CHECK(lean::DecodeCompile(*h, body.substr(1)).status().code() == Code::kInvalidArgument);  // not its length
  CHECK(lean::DecodeCompile(lean::RequestHeader{4, lean::kCompile}, "\xff\xff\xff\xff").status().code() ==
        Code::kInvalidArgument);

  CHECK(lean::CheckMethod(lean::kLookup).ok());
  CHECK(lean::CheckMethod(lean::kCompile).ok());
  for (std::uint8_t other : {0, 3, 255}) {
    const Status s = lean::CheckMethod(other);
    CHECK(s.code() == Code::kUnimplemented);
    CHECK_THAT(std::string(s.message()), Catch::Contains("lean method " + std::to_string(other)));
    CHECK(lean::DecodeLookup(lean::RequestHeader{0, other}, "").status().code() == Code::kUnimplemented);
  }
}

TEST_CASE("a compile answer travels as a lookup answer: a CompileResponse is the same message", "[lean]") {
  v1::CompileResponse compiled;
  for (int i = 0; i < 3; ++i) {
    v1::CompileResult* r = compiled.add_results();
    r->set_status(i == 1 ? v1::CACHE_STATUS_ERROR : v1::CACHE_STATUS_COMPILED);
    if (i != 1) r->mutable_artifact()->set_payload(std::string(100 + i, static_cast<char>('a' + i)));
  }
  const std::string expected = compiled.SerializeAsString();
  v1::LookupResponse as_lookup;
  as_lookup.mutable_results()->Swap(compiled.mutable_results());  // what the daemon sends
  lean::LookupReply reply = lean::EncodeLookupReply(as_lookup);
  std::string blob(reply.blob_bytes, '\0');
  lean::CopyBlob(reply, blob.data());
  Expected<lean::LookupAnswer> answer = lean::DecodeLookupAnswer(reply.body, blob);
  REQUIRE(answer.ok());
  lean::InlinePayloads(answer->payloads, &answer->response);
  v1::CompileResponse back;  // what the client makes of it
  back.mutable_results()->Swap(answer->response.mutable_results());
  CHECK(back.SerializeAsString() == expected);
}

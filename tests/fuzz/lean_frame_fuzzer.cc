// libFuzzer target: arbitrary bytes as a lean-transport request
// (lean/protocol.h): the first 8 bytes as its header, the rest as its
// body, decoded as the lean server decodes them (DecodeRequestHeader, then
// DecodeLookup or DecodeCompile by the method). What
// decodes is answered by a response built from it (one result per query,
// the fast key as its payload, every third a miss), encoded as the server
// encodes it.
//
// Invariants: an error is the header's or the body's (never a crash); the
// encoded answer's table names every payload at a 64-byte aligned offset
// inside the blob, in order and without overlap, and the blob holds each
// payload's bytes there (CopyBlob); the client's decoder
// (DecodeLookupAnswer, InlinePayloads) gives every payload back. The same
// bytes read as a reply (DecodeReplyHeader, DecodeLookupAnswer) are an
// error or an answer. libqdcache.so's decoder without protobuf
// (lean/lookup_wire.h) reads whatever both it and protobuf decode as
// protobuf does, and the server's encoded answers in full; a Lookup body
// split around its client's name for the kept answers' key
// (AppendWithoutClientName) is, where protobuf parses it, the request
// less that name, and the name the one protobuf reads.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "lean/lookup_wire.h"
#include "lean/protocol.h"

namespace {

using namespace qdcache;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "lean_frame invariant violated: %s\n", what.c_str());
  std::abort();
}

std::uint64_t U64At(const std::string& s, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

// What the C++ client's Lookup makes of an answer: the views, copied in.
Expected<v1::LookupResponse> DecodeLookupReply(std::string_view body, std::optional<std::string_view> blob) {
  QDC_ASSIGN_OR_RETURN(lean::LookupAnswer answer, lean::DecodeLookupAnswer(body, blob));
  lean::InlinePayloads(answer.payloads, &answer.response);
  return std::move(answer.response);
}

// `bytes` as a LookupResponse, read by lean/lookup_wire.h and by protobuf:
// where both decode it, alike. `must_decode`: protobuf's encoding, which it must.
void CheckWireDecoder(std::string_view bytes, bool must_decode) {
  Expected<std::vector<lean::WireResult>> ours = lean::DecodeLookupResults(bytes);
  if (must_decode && !ours.ok()) Fail("libqdcache.so's decoder refuses an encoded answer");
  v1::LookupResponse parsed;
  if (!ours.ok() || !parsed.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return;
  if (ours->size() != static_cast<std::size_t>(parsed.results_size())) Fail("the decoders count other results");
  for (std::size_t i = 0; i < ours->size(); ++i) {
    const lean::WireResult& a = (*ours)[i];
    const v1::CompileResult& b = parsed.results(static_cast<int>(i));
    if (a.status != static_cast<int>(b.status()) || a.has_artifact != b.has_artifact() ||
        a.kind != static_cast<int>(b.artifact().kind()) || a.artifact_key != b.artifact().artifact_key() ||
        a.payload != b.artifact().payload() || a.ptx != b.artifact().ptx() || a.target != b.artifact().target() ||
        a.has_error != b.has_error() || a.error_code != b.error().code() || a.error_message != b.error().message() ||
        a.dependencies.size() != static_cast<std::size_t>(b.dependencies_size())) {
      Fail("libqdcache.so's decoder reads a result otherwise than protobuf");
    }
  }
}

// A Lookup body as the kept answers key it: where both AppendWithoutClientName
// and protobuf decode it, the rest parses as the request less its client name.
void CheckNameless(std::string_view body, const v1::LookupRequest& request) {
  std::string nameless;
  Expected<std::string_view> client = lean::AppendWithoutClientName(body, &nameless);
  if (!client.ok()) return;  // groups, which protobuf keeps as unknown fields: nothing kept
  if (*client != request.header().client()) Fail("the split reads another client name");
  v1::LookupRequest rest;
  if (!rest.ParseFromString(nameless)) Fail("the request less its client name does not parse");
  v1::LookupRequest expected = request;
  if (expected.has_header()) expected.mutable_header()->clear_client();
  if (rest.SerializeAsString() != expected.SerializeAsString()) Fail("the split changed more than the client name");
}

void CheckReply(const v1::LookupRequest& request) {
  v1::LookupResponse response;
  std::vector<std::string> expected;
  for (int i = 0; i < request.queries_size(); ++i) {
    v1::CompileResult* r = response.add_results();
    expected.push_back(i % 3 == 2 ? std::string() : request.queries(i).fast_key());
    if (i % 3 == 2) {
      r->set_status(v1::CACHE_STATUS_MISS);
    } else {
      r->set_status(v1::CACHE_STATUS_ALIAS_HIT);
      r->mutable_artifact()->set_payload(expected.back());
    }
  }
  const lean::LookupReply reply = lean::EncodeLookupReply(response);
  if (reply.payloads.size() != expected.size()) Fail("not one payload per result");
  std::string blob(reply.blob_bytes, '\x55');
  lean::CopyBlob(reply, blob.data());
  const std::uint64_t proto = U64At(reply.body.substr(0, 4) + std::string(4, '\0'), 0);
  v1::LookupResponse sent;
  if (!sent.ParseFromString(reply.body.substr(4, proto))) Fail("the encoded response does not parse");
  if (reply.body.size() != 4 + proto + 16 * expected.size()) Fail("the table is not one entry per result");
  CheckWireDecoder(std::string_view(reply.body).substr(4, proto), /*must_decode=*/true);
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (sent.results(static_cast<int>(i)).artifact().payload().size() != 0) Fail("a payload stayed in the proto");
    const std::uint64_t offset = U64At(reply.body, 4 + proto + 16 * i), size = U64At(reply.body, 12 + proto + 16 * i);
    if (size != expected[i].size()) Fail("a payload's size is wrong");
    if (size == 0) continue;
    if (offset % lean::kPayloadAlignment != 0 || offset < end || offset + size > blob.size()) {
      Fail("a payload's offset is unaligned, overlapping or outside the blob");
    }
    if (blob.compare(offset, size, expected[i]) != 0) Fail("the blob does not hold a payload's bytes");
    end = offset + size;
  }
  if (end != blob.size()) Fail("the blob is longer than its payloads");
  // The client's decoder gives back every result with its payload, blob
  // inline or apart.
  for (const bool inline_blob : {true, false}) {
    Expected<v1::LookupResponse> decoded =
        inline_blob ? DecodeLookupReply(reply.body + blob, std::nullopt) : DecodeLookupReply(reply.body, blob);
    if (!decoded.ok()) Fail("the client cannot decode the answer: " + decoded.status().ToString());
    if (decoded->results_size() != static_cast<int>(expected.size())) Fail("the client decodes another count");
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (decoded->results(static_cast<int>(i)).artifact().payload() != expected[i]) {
        Fail("the client decodes another payload");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Invalid UTF-8 in string fields makes protobuf log every refused parse.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string_view header = bytes.substr(0, lean::kHeaderBytes);
  const std::string_view body = size > lean::kHeaderBytes ? bytes.substr(lean::kHeaderBytes) : "";
  // The server reads exactly the header's length; inputs whose header says
  // otherwise are decoded against their true length, which must fail.
  // The same bytes as a reply, as the C++ client decodes one: an error or
  // an answer, never a crash.
  (void)lean::DecodeReplyHeader(header);
  (void)DecodeLookupReply(body, std::nullopt);
  CheckWireDecoder(body, /*must_decode=*/false);
  Expected<lean::RequestHeader> h = lean::DecodeRequestHeader(header, 1u << 20);
  if (!h.ok()) return 0;
  if (!lean::CheckMethod(h->method).ok()) return 0;
  if (h->method == lean::kCompile) {
    (void)lean::DecodeCompile(*h, body);  // answered by the engine, not here
    return 0;
  }
  Expected<v1::LookupRequest> request = lean::DecodeLookup(*h, body);
  if (!request.ok()) return 0;
  CheckNameless(body, *request);
  CheckReply(*request);
  return 0;
}

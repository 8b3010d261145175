// Frames between the daemon and its compile workers, over a real socketpair.
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "common/cancel_token.h"
#include "compiler/worker_protocol.h"

using namespace qdcache;
using namespace qdcache::compiler;

namespace {

struct Pair {
  Pair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) == 0); }
  ~Pair() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  void Close(int i) {
    ::close(fd[i]);
    fd[i] = -1;
  }
  int fd[2] = {-1, -1};
};

}  // namespace

TEST_CASE("frames carry messages of any size intact", "[compiler][worker]") {
  Pair p;
  std::string big(3 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131);
  // A writer thread: a 3 MiB frame does not fit the socket buffer at once.
  Status wrote_empty, wrote_big;  // checked after join: Catch is not thread-safe
  std::thread writer([&] {
    wrote_empty = WriteFrame(p.fd[0], "");
    wrote_big = WriteFrame(p.fd[0], big);
  });
  Expected<std::string> empty = ReadFrame(p.fd[1]);
  Expected<std::string> got = ReadFrame(p.fd[1]);
  writer.join();
  CHECK(wrote_empty.ok());
  CHECK(wrote_big.ok());
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  REQUIRE(got.ok());
  CHECK(*got == big);
}

TEST_CASE("a closed peer is UNAVAILABLE, also in the middle of a frame", "[compiler][worker]") {
  Pair p;
  const char partial[] = {10, 0, 0, 0, 0, 0, 0, 0, 'a', 'b'};  // announces 10 bytes, sends 2
  REQUIRE(::write(p.fd[0], partial, sizeof partial) == static_cast<ssize_t>(sizeof partial));
  p.Close(0);
  Expected<std::string> got = ReadFrame(p.fd[1]);
  CHECK(got.status().code() == Code::kUnavailable);
  CHECK(WriteFrame(p.fd[1], "x").code() == Code::kUnavailable);  // EPIPE, no SIGPIPE
}

TEST_CASE("an absurd frame length is refused without allocating it", "[compiler][worker]") {
  Pair p;
  const unsigned char header[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  REQUIRE(::write(p.fd[0], header, sizeof header) == static_cast<ssize_t>(sizeof header));
  CHECK(ReadFrame(p.fd[1]).status().code() == Code::kUnavailable);
}

TEST_CASE("waiting for a frame ends at the deadline or on cancellation", "[compiler][worker]") {
  Pair p;
  CallControl past;
  past.deadline = std::chrono::steady_clock::now();
  CHECK(ReadFrame(p.fd[1], past).status().code() == Code::kDeadlineExceeded);

  CancelToken token;
  CallControl cancellable;
  cancellable.cancel = &token;
  std::thread canceller([&] { token.Cancel(); });
  CHECK(ReadFrame(p.fd[1], cancellable).status().code() == Code::kCancelled);
  canceller.join();

  // A frame already there is read even with a deadline.
  CallControl generous;
  generous.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  REQUIRE(WriteFrame(p.fd[0], "ok").ok());
  Expected<std::string> got = ReadFrame(p.fd[1], generous);
  REQUIRE(got.ok());
  CHECK(*got == "ok");
}

TEST_CASE("compiler structs survive the wire", "[compiler][worker]") {
  CompileOutput out;
  out.kind = ArtifactKind::kSharedObject;
  out.payload = std::string("\x7f" "ELF\0\x01", 6);
  out.ptx = "ptx";
  out.entries.push_back({"k\xff", 32, 1024, 16, 256});
  out.log = "warning";
  out.timings = {0.1, 0.2, 0.3, 0.4};
  worker::v1::Output wire;
  ToWire(out, &wire);
  CompileOutput back = FromWire(wire);
  CHECK(back.kind == out.kind);
  CHECK(back.payload == out.payload);
  CHECK(back.ptx == out.ptx);
  REQUIRE(back.entries.size() == 1);
  CHECK(back.entries[0].name == "k\xff");
  CHECK(back.entries[0].registers == 32);
  CHECK(back.entries[0].shared_bytes == 1024);
  CHECK(back.entries[0].local_bytes == 16);
  CHECK(back.entries[0].max_threads_per_block == 256);
  CHECK(back.timings.link_seconds == 0.4);

  CompileOptions o;
  o.opt_level = 1;
  o.fast_math = true;
  o.fmad = false;
  o.debug = true;
  o.lineinfo = true;
  o.max_registers = 40;
  o.link_libdevice = true;
  worker::v1::Options wo;
  ToWire(o, &wo);
  CHECK(FromWire(wo) == o);

  Target t{TargetKind::kCpu, "", "skylake", {"-avx512f", "+fma"}};
  worker::v1::Target wt;
  ToWire(t, &wt);
  CHECK(FromWire(wt) == t);

  worker::v1::Response r;
  ToWire(InvalidArgument("3:7: bad"), &r);
  Status s = StatusFromWire(r);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() == "3:7: bad");
  r.set_code(99);
  CHECK(StatusFromWire(r).code() == Code::kInternal);
}

TEST_CASE("a frame over the reader's limit is refused before it is read", "[compiler][worker]") {
  Pair p;
  REQUIRE(WriteFrame(p.fd[0], std::string(100, 'x')).ok());
  CallControl control;
  Expected<std::string> got = ReadFrame(p.fd[1], control, /*max_bytes=*/99);
  CHECK(got.status().code() == Code::kResourceExhausted);
  CHECK_THAT(got.status().message(), Catch::Contains("100 bytes"));
}

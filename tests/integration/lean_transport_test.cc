// The lean transport (docs/protocol.md, "Lean transport") against a real
// daemon, spoken byte by byte as the document says: a Lookup or Compile
// answers as the gRPC method does, large answers come in a sealed memfd,
// every malformed frame gets its error (or the connection ends) and gRPC
// clients on the same socket never notice.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "client/lean_channel.h"
#include "lean/frame.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

constexpr char kHello[] = "QDCLEAN1";

std::string U32(std::uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// The little-endian integer of `bytes` bytes at `at`.
std::uint64_t LittleEndian(const std::string& s, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

std::uint64_t U64At(const std::string& s, std::size_t at) { return LittleEndian(s, at, 8); }

// The frame of a request: body length, method, three zero bytes, body.
std::string Request(std::uint8_t method, const std::string& body, char reserved = 0) {
  return U32(static_cast<std::uint32_t>(body.size())) + static_cast<char>(method) + reserved + std::string(2, '\0') +
         body;
}

struct Reply {
  int code = -1;
  int flags = 0;
  std::string body;
  int fd = -1;  // a passed memfd, owned by the caller
};

class LeanConnection {
 public:
  explicit LeanConnection(const std::string& socket_path, bool hello = true) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    timeval tv{30, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (hello) {
      Send(std::string(kHello, 8));
      REQUIRE(ReadExact(8) == std::string(kHello, 8));
    }
  }
  ~LeanConnection() { ::close(fd_); }

  void Send(const std::string& bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
  }
  // Exactly n bytes, or fewer when the daemon closed the connection first.
  std::string ReadExact(std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::recv(fd_, out.data() + got, n - got, 0);
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
  }
  // The next reply (its memfd received with the header), or nullopt at EOF.
  std::optional<Reply> Read() {
    char header[8];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    iovec iov{header, sizeof header};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) return std::nullopt;
    std::string head(header, static_cast<std::size_t>(n));
    if (head.size() < 8) head += ReadExact(8 - head.size());
    REQUIRE(head.size() == 8);
    Reply r;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&r.fd, CMSG_DATA(c), sizeof(int));
    }
    const auto size = static_cast<std::size_t>(LittleEndian(head, 0, 4));
    r.code = static_cast<unsigned char>(head[4]);
    r.flags = static_cast<unsigned char>(head[5]);
    CHECK(head.substr(6) == std::string(2, '\0'));
    r.body = ReadExact(size);
    REQUIRE(r.body.size() == size);
    return r;
  }
  // Waits (polling the socket, no sleeps) until at least `bytes` have come
  // and wait unread, or the daemon closed the connection; false if neither
  // happened within a minute.
  bool WaitUnread(int bytes) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (std::chrono::steady_clock::now() < give_up) {
      int unread = 0;
      if (::ioctl(fd_, FIONREAD, &unread) != 0) return false;
      if (unread >= bytes) return true;
      pollfd p{fd_, POLLIN, 0};
      if (unread == 0 && ::poll(&p, 1, 1000) > 0 && (p.revents & (POLLHUP | POLLERR)) != 0) return false;
    }
    return false;
  }
  // True once the daemon has closed the connection (EOF).
  bool Closed() {
    char c;
    return ::recv(fd_, &c, 1, 0) == 0;
  }

 private:
  int fd_ = -1;
};

v1::LookupRequest LookupOf(const std::vector<std::string>& keys) {
  v1::LookupRequest request;
  request.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  for (const std::string& key : keys) {
    v1::FastKeyQuery* q = request.add_queries();
    q->set_fast_key(key);
    q->set_namespace_("lean");
    q->mutable_target()->mutable_cpu()->set_cpu("x86-64");
  }
  return request;
}

// The answer's LookupResponse and each result's payload, from the blob that
// follows the offset table or the memfd.
struct Answer {
  v1::LookupResponse response;
  std::vector<std::string> payloads;
};

Answer Decode(const Reply& reply) {
  REQUIRE(reply.code == 0);
  const auto proto_size = static_cast<std::size_t>(LittleEndian(reply.body, 0, 4));
  Answer a;
  REQUIRE(a.response.ParseFromString(reply.body.substr(4, proto_size)));
  const std::size_t table = 4 + proto_size;
  const std::size_t n = static_cast<std::size_t>(a.response.results_size());
  std::string blob;
  if (reply.flags & 1) {
    REQUIRE(reply.fd >= 0);
    CHECK(reply.body.size() == table + 16 * n);  // nothing inline
    const int seals = ::fcntl(reply.fd, F_GET_SEALS);
    CHECK((seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) ==
          (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
    const off_t size = ::lseek(reply.fd, 0, SEEK_END);
    void* map = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, reply.fd, 0);
    REQUIRE(map != MAP_FAILED);
    blob.assign(static_cast<const char*>(map), static_cast<std::size_t>(size));
    ::munmap(map, static_cast<std::size_t>(size));
    CHECK(::mmap(nullptr, 4096, PROT_WRITE, MAP_SHARED, reply.fd, 0) == MAP_FAILED);  // sealed against writes
    ::close(reply.fd);
  } else {
    CHECK(reply.fd < 0);
    blob = reply.body.substr(table + 16 * n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t offset = U64At(reply.body, table + 16 * i), size = U64At(reply.body, table + 16 * i + 8);
    CHECK(offset % 64 == 0);
    REQUIRE(offset + size <= blob.size());
    a.payloads.push_back(blob.substr(offset, size));
  }
  return a;
}

// Sends one request of `method` and decodes its answer, which must be OK.
Answer Ask(LeanConnection& c, std::uint8_t method, const std::string& body) {
  c.Send(Request(method, body));
  std::optional<Reply> reply = c.Read();
  REQUIRE(reply);
  return Decode(*reply);
}

void CompileWarm(DaemonProcess& daemon, int n, std::size_t table_bytes) {
  auto client = daemon.Connect();
  for (int i = 0; i < n; ++i) {
    v1::KernelDescriptor d;
    d.set_ir(PaddedCpuKernel(7000 + i, table_bytes));
    d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
    d.set_fast_key("lean-" + std::to_string(i));
    d.set_namespace_("lean");
    REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  }
}

// A listening unix socket at `path` (a daemon stand-in), owned by the caller.
int ListenAt(const std::string& path, int backlog) {
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, backlog) == 0);
  return listener;
}

// A daemon with --max-batch 4 refuses `over_batch` (5 items) and
// `unversioned` (no protocol version) of `method` as the service does, and
// the connection goes on.
void CheckServiceRefusals(LeanConnection& c, std::uint8_t method, const std::string& over_batch,
                          const std::string& unversioned) {
  c.Send(Request(method, over_batch));
  std::optional<Reply> r = c.Read();
  REQUIRE(r);
  CHECK(r->code == static_cast<int>(Code::kResourceExhausted));
  CHECK_THAT(r->body, Catch::Contains("--max-batch"));
  c.Send(Request(method, unversioned));
  r = c.Read();
  REQUIRE(r);
  CHECK(r->code == static_cast<int>(Code::kFailedPrecondition));
}

v1::CompileRequest CompileOf(int seed, const std::string& fast_key, std::size_t table_bytes = 1000) {
  v1::CompileRequest request;
  request.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  v1::KernelDescriptor* d = request.add_kernels();
  d->set_ir(PaddedCpuKernel(seed, table_bytes));
  d->mutable_target()->mutable_cpu()->set_cpu("x86-64");
  d->set_fast_key(fast_key);
  d->set_namespace_("lean");
  return request;
}

// A Compile of one CPU kernel that takes seconds to compile.
v1::CompileRequest SlowCompile() {
  v1::CompileRequest request;
  request.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  *request.add_kernels() = SlowCpuKernel(20000);
  return request;
}

// Whether the daemon comes to count a compile in flight: a condition asked
// of it until it holds (a slow kernel takes seconds; each ask, microseconds).
bool CompileInFlight(const DaemonProcess& daemon) {
  for (int i = 0; i < 1'000'000; ++i) {
    if (StatsOf(daemon).in_flight() > 0) return true;
  }
  return false;
}

// Result `lean` with its payload put back is gRPC's `expected` to the byte.
void CheckSameResult(v1::CompileResult lean, const std::string& payload, const v1::CompileResult& expected) {
  CHECK(lean.artifact().payload().empty());
  if (lean.has_artifact()) lean.mutable_artifact()->set_payload(payload);
  CHECK(lean.SerializeAsString() == expected.SerializeAsString());
}

void CheckSameAsGrpc(DaemonProcess& daemon, const v1::LookupRequest& request, const Answer& lean) {
  auto client = daemon.ConnectGrpcOnly();
  auto grpc_answer = client->Lookup(request);
  REQUIRE(grpc_answer.ok());
  REQUIRE(grpc_answer->results_size() == lean.response.results_size());
  for (int i = 0; i < grpc_answer->results_size(); ++i) {
    v1::CompileResult expected = grpc_answer->results(i);
    const std::string payload = expected.artifact().payload();
    if (expected.has_artifact()) expected.mutable_artifact()->clear_payload();
    CHECK(lean.response.results(i).SerializeAsString() == expected.SerializeAsString());
    CHECK(lean.payloads[static_cast<std::size_t>(i)] == payload);
  }
}

}  // namespace

TEST_CASE("a lean Lookup answers as gRPC's, large answers in a sealed memfd", "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CompileWarm(daemon, 12, 40 << 10);  // ~40 KiB each: all twelve pass the 256 KiB memfd threshold

  LeanConnection lean(daemon.socket_path());
  const v1::LookupRequest small = LookupOf({"lean-0", "absent", "lean-1"});
  lean.Send(Request(1, small.SerializeAsString()));
  std::optional<Reply> inline_reply = lean.Read();
  REQUIRE(inline_reply);
  CHECK(inline_reply->flags == 0);
  const Answer a = Decode(*inline_reply);
  CHECK(a.response.results(1).status() == v1::CACHE_STATUS_MISS);
  CHECK(a.payloads[1].empty());
  CHECK(a.payloads[0].substr(0, 4) == "\x7f" "ELF");
  CheckSameAsGrpc(daemon, small, a);

  std::vector<std::string> keys;
  for (int i = 0; i < 12; ++i) keys.push_back("lean-" + std::to_string(i));
  const v1::LookupRequest large = LookupOf(keys);
  lean.Send(Request(1, large.SerializeAsString()));  // the same connection, again
  std::optional<Reply> memfd_reply = lean.Read();
  REQUIRE(memfd_reply);
  CHECK(memfd_reply->flags == lean::kWithFd);
  CheckSameAsGrpc(daemon, large, Decode(*memfd_reply));
}

TEST_CASE("a lean Compile answers as gRPC's, per-item errors in results, refusals the service's",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-batch", "4"});
  daemon.Start();
  const v1::CompileRequest request = CompileOf(8100, "lean-compiled");
  LeanConnection c(daemon.socket_path());
  const Answer compiled = Ask(c, 2, request.SerializeAsString());
  REQUIRE(compiled.response.results_size() == 1);
  CHECK(compiled.response.results(0).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(compiled.payloads[0].substr(0, 4) == "\x7f" "ELF");

  // Asked again on the same connection: the hit gRPC answers too, to the byte.
  const Answer hit = Ask(c, 2, request.SerializeAsString());
  auto grpc = daemon.ConnectGrpcOnly();
  auto expected = grpc->Compile(request);
  REQUIRE(expected.ok());
  REQUIRE(expected->results_size() == 1);
  CHECK(expected->results(0).status() == v1::CACHE_STATUS_HIT);
  REQUIRE(hit.response.results_size() == 1);
  CheckSameResult(hit.response.results(0), hit.payloads[0], expected->results(0));
  CHECK(hit.payloads[0] == compiled.payloads[0]);

  SECTION("an item that fails is an error result, the call OK, as over gRPC") {
    v1::CompileRequest bad = request;
    bad.mutable_kernels(0)->set_ir("this is not IR");
    bad.mutable_kernels(0)->clear_fast_key();
    const Answer a = Ask(c, 2, bad.SerializeAsString());
    REQUIRE(a.response.results_size() == 1);
    CHECK(a.response.results(0).status() == v1::CACHE_STATUS_ERROR);
    CHECK(a.response.results(0).error().code() == static_cast<int>(Code::kInvalidArgument));
    auto over_grpc = grpc->Compile(bad);
    REQUIRE(over_grpc.ok());
    CheckSameResult(a.response.results(0), "", over_grpc->results(0));
  }
  SECTION("the batch limit and the protocol version are the service's refusals; the connection goes on") {
    v1::CompileRequest five = request;
    for (int i = 0; i < 4; ++i) *five.add_kernels() = request.kernels(0);
    v1::CompileRequest unversioned = request;
    unversioned.clear_header();
    CheckServiceRefusals(c, 2, five.SerializeAsString(), unversioned.SerializeAsString());
  }
  SECTION("a body that is not a CompileRequest is INVALID_ARGUMENT; the connection goes on") {
    c.Send(Request(2, std::string("\xff\xff\xff\xff", 4)));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->code == static_cast<int>(Code::kInvalidArgument));
    CHECK_THAT(r->body, Catch::Contains("CompileRequest"));
  }
  CHECK(Ask(c, 2, request.SerializeAsString()).response.results(0).status() == v1::CACHE_STATUS_HIT);
}

TEST_CASE("lean Compiles sent ahead of their answers are answered in order, and a large answer arrives whole",
          "[integration][lean]") {
  // The thread that compiles a call's last item sends its answer when the
  // socket takes it at once, and hands it to the connection's thread when
  // not: neither may reorder answers or lose a byte.
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  LeanConnection c(daemon.socket_path());
  auto grpc = daemon.ConnectGrpcOnly();
  // `answer`, the lean answer to `request`, is what gRPC answers it now (a hit).
  auto check_answers = [&](const v1::CompileRequest& request, const Answer& answer) {
    REQUIRE(answer.response.results_size() == 1);
    CHECK(answer.response.results(0).status() == v1::CACHE_STATUS_COMPILED);
    auto expected = grpc->Compile(request);
    REQUIRE(expected.ok());
    REQUIRE(expected->results_size() == 1);
    CHECK(expected->results(0).status() == v1::CACHE_STATUS_HIT);
    CHECK(answer.payloads[0] == expected->results(0).artifact().payload());
  };

  SECTION("two requests in one write: two answers, in order, and the connection goes on") {
    const v1::CompileRequest a = CompileOf(8200, "ahead-a"), b = CompileOf(8201, "ahead-b");
    c.Send(Request(2, a.SerializeAsString()) + Request(2, b.SerializeAsString()));
    std::optional<Reply> first = c.Read();
    REQUIRE(first);
    std::optional<Reply> second = c.Read();
    REQUIRE(second);
    check_answers(a, Decode(*first));
    check_answers(b, Decode(*second));
    CHECK(Ask(c, 2, a.SerializeAsString()).response.results(0).status() == v1::CACHE_STATUS_HIT);
  }
  SECTION("an inline answer larger than the socket holds, read only once the socket is full") {
    // ~230 KiB: under the 256 KiB memfd threshold, over the 208 KiB a unix
    // socket holds by default, so the first write of it cannot be whole.
    const v1::CompileRequest big = CompileOf(8300, "large-inline", 230 << 10);
    c.Send(Request(2, big.SerializeAsString()));
    REQUIRE(c.WaitUnread(128 << 10));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->flags == 0);
    const Answer a = Decode(*r);
    CHECK(a.payloads[0].size() > (200u << 10));
    check_answers(big, a);
    CHECK(Ask(c, 2, big.SerializeAsString()).response.results(0).status() == v1::CACHE_STATUS_HIT);
  }
  SECTION("an answer of 256 KiB or more comes in a sealed memfd") {
    const v1::CompileRequest huge = CompileOf(8400, "memfd", 300 << 10);
    c.Send(Request(2, huge.SerializeAsString()));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->flags == lean::kWithFd);
    const Answer a = Decode(*r);
    CHECK(a.payloads[0].size() >= (256u << 10));
    check_answers(huge, a);
  }
}

TEST_CASE("malformed lean frames get their error or end the connection, and the daemon serves on",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-message-bytes", "1M", "--max-batch", "4"});
  daemon.Start();
  CompileWarm(daemon, 1, 1000);
  const std::string good = Request(1, LookupOf({"lean-0"}).SerializeAsString());

  SECTION("a wrong hello is not answered: the connection ends") {
    LeanConnection c(daemon.socket_path(), false);
    c.Send("QDCLEAN9");
    CHECK(c.Closed());
  }
  SECTION("a method it does not serve is UNIMPLEMENTED, and the connection goes on") {
    LeanConnection c(daemon.socket_path());
    c.Send(Request(9, "whatever"));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->code == static_cast<int>(Code::kUnimplemented));
    CHECK_THAT(r->body, Catch::Contains("lean method 9"));
    c.Send(good);
    std::optional<Reply> ok = c.Read();
    REQUIRE(ok);
    CHECK(Decode(*ok).response.results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  }
  SECTION("a body that is not a LookupRequest is INVALID_ARGUMENT, and the connection goes on") {
    LeanConnection c(daemon.socket_path());
    c.Send(Request(1, std::string("\xff\xff\xff\xff", 4)));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->code == static_cast<int>(Code::kInvalidArgument));
    c.Send(good);
    REQUIRE(c.Read());
  }
  SECTION("a request the service refuses gets the service's code (batch limit, protocol version)") {
    LeanConnection c(daemon.socket_path());
    v1::LookupRequest unversioned = LookupOf({"lean-0"});
    unversioned.clear_header();
    CheckServiceRefusals(c, 1, LookupOf({"a", "b", "c", "d", "e"}).SerializeAsString(),
                         unversioned.SerializeAsString());
  }
  SECTION("reserved bytes set: INVALID_ARGUMENT, then the connection ends") {
    LeanConnection c(daemon.socket_path());
    c.Send(Request(1, "", 1));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->code == static_cast<int>(Code::kInvalidArgument));
    CHECK(c.Closed());
  }
  SECTION("a body longer than --max-message-bytes: RESOURCE_EXHAUSTED, then the connection ends") {
    LeanConnection c(daemon.socket_path());
    c.Send(U32(2u << 20) + std::string(1, '\x01') + std::string(3, '\0'));
    std::optional<Reply> r = c.Read();
    REQUIRE(r);
    CHECK(r->code == static_cast<int>(Code::kResourceExhausted));
    CHECK(c.Closed());
  }
  SECTION("a peer that hangs up mid-request or before saying anything") {
    { LeanConnection c(daemon.socket_path(), false); }
    {
      LeanConnection c(daemon.socket_path());
      c.Send(good.substr(0, good.size() - 3));
    }
  }
  // Whatever the section did, both transports still serve.
  LeanConnection after(daemon.socket_path());
  after.Send(good);
  REQUIRE(after.Read());
  auto client = daemon.Connect();
  REQUIRE(client->Ping().ok());
}

TEST_CASE("lean Lookups and Compiles count in the request metrics as the gRPC methods, other methods not at all",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--metrics-listen", "127.0.0.1:0"});
  daemon.Start();
  LeanConnection c(daemon.socket_path());
  for (int i = 0; i < 3; ++i) {
    c.Send(Request(1, LookupOf({"absent"}).SerializeAsString()));
    REQUIRE(c.Read());
  }
  v1::CompileRequest nothing;  // no kernels: answered at once
  nothing.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  c.Send(Request(2, nothing.SerializeAsString()));
  REQUIRE(c.Read());
  c.Send(Request(7, ""));
  REQUIRE(c.Read());
  const RunResult scrape = Run({FindOnPath("python3"), "-c",
                                "import sys, urllib.request\n"
                                "print(urllib.request.urlopen('http://' + sys.argv[1] + '/metrics').read().decode())",
                                daemon.MetricsAddress()});
  REQUIRE(scrape.exit_code == 0);
  // The Lookup series with code OK: its labels in any order, its value 3.
  std::istringstream lines(scrape.out);
  std::string line, lookups, compiles;
  while (std::getline(lines, line)) {
    if (line.rfind("qdcache_grpc_requests_total{", 0) != 0 || line.find("code=\"OK\"") == std::string::npos) continue;
    if (line.find("method=\"Lookup\"") != std::string::npos) lookups = line.substr(line.rfind(' ') + 1);
    if (line.find("method=\"Compile\"") != std::string::npos) compiles = line.substr(line.rfind(' ') + 1);
  }
  CHECK(lookups == "3");
  CHECK(compiles == "1");
  CHECK(scrape.out.find("method=\"other\"") == std::string::npos);  // method 7 was not counted
}

TEST_CASE("the C++ client's lean channel answers as gRPC, and leaves to gRPC what it cannot carry",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-batch", "8", "--max-message-bytes", "1M"});
  daemon.Start();
  CompileWarm(daemon, 3, 120 << 10);  // with a miss: two hits, 240 KiB; all three pass the memfd threshold
  const std::string target = "unix:" + daemon.socket_path();
  client::LeanChannel channel(daemon.socket_path(), target, std::chrono::seconds(30));
  auto grpc = daemon.ConnectGrpcOnly();

  for (const v1::LookupRequest& request :
       {LookupOf({"lean-0", "absent", "lean-1"}), LookupOf({"lean-0", "lean-1", "lean-2"}), LookupOf({""})}) {
    std::optional<Expected<client::LookupAnswer>> lean = channel.Lookup(request);
    REQUIRE(lean.has_value());  // carried, not left to gRPC
    REQUIRE(lean->ok());
    const client::LookupAnswer& answer = **lean;
    auto expected = grpc->Lookup(request);
    REQUIRE(expected.ok());
    REQUIRE(answer.response.results_size() == expected->results_size());
    REQUIRE(answer.payloads.size() == static_cast<std::size_t>(expected->results_size()));
    CHECK(answer.keep != nullptr);  // the payloads are views into what it holds
    for (int i = 0; i < expected->results_size(); ++i) {
      // The payload travelled apart; with it put back, the result is gRPC's to the byte.
      v1::CompileResult result = answer.response.results(i);
      CHECK(result.artifact().payload().empty());
      if (!answer.payload(i).empty()) {  // at the 64-byte boundary its offset promises, inline or mapped
        CHECK(reinterpret_cast<std::uintptr_t>(answer.payload(i).data()) % 64 == 0);
      }
      if (result.has_artifact()) result.mutable_artifact()->set_payload(std::string(answer.payload(i)));
      CHECK(result.SerializeAsString() == expected->results(i).SerializeAsString());
    }
  }

  SECTION("the daemon's refusal is the call's error, worded as gRPC's; the channel goes on") {
    const std::vector<std::string> nine(9, "lean-0");
    std::optional<Expected<client::LookupAnswer>> refused = channel.Lookup(LookupOf(nine));
    REQUIRE(refused.has_value());
    CHECK(refused->status().code() == Code::kResourceExhausted);
    CHECK(refused->status().message() == grpc->Lookup(LookupOf(nine)).status().message());
    std::optional<Expected<client::LookupAnswer>> after = channel.Lookup(LookupOf({"lean-0"}));
    REQUIRE(after.has_value());
    CHECK((*after)->response.results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  }
  SECTION("a request over --max-message-bytes is the daemon's RESOURCE_EXHAUSTED, read though it closed early") {
    std::optional<Expected<client::LookupAnswer>> refused = channel.Lookup(LookupOf({std::string(3 << 20, 'k')}));
    REQUIRE(refused.has_value());
    CHECK(refused->status().code() == Code::kResourceExhausted);
    CHECK_THAT(refused->status().message(), Catch::Contains("--max-message-bytes"));
    CHECK(grpc->Lookup(LookupOf({std::string(3 << 20, 'k')})).status().code() == Code::kResourceExhausted);
    std::optional<Expected<client::LookupAnswer>> after = channel.Lookup(LookupOf({"lean-1"}));
    REQUIRE(after.has_value());
    CHECK((*after)->response.results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  }
  SECTION("an answer over the client's max-message-bytes is refused, as gRPC refuses it") {
    client::LeanChannel small(daemon.socket_path(), target, std::chrono::seconds(30), 200);
    std::optional<Expected<client::LookupAnswer>> refused = small.Lookup(LookupOf({"lean-0", "lean-1", "lean-2"}));
    REQUIRE(refused.has_value());
    CHECK(refused->status().code() == Code::kResourceExhausted);
    CHECK_THAT(refused->status().message(), Catch::Contains("max-message-bytes"));
    std::optional<Expected<client::LookupAnswer>> after = small.Lookup(LookupOf({"absent"}));
    REQUIRE(after.has_value());
    CHECK((*after)->response.results(0).status() == v1::CACHE_STATUS_MISS);
  }
  SECTION("an idle connection the daemon closed (a restart) is replaced, the request not lost") {
    REQUIRE(daemon.Stop() == 0);
    daemon.Start();
    std::optional<Expected<client::LookupAnswer>> again = channel.Lookup(LookupOf({"lean-2"}));
    REQUIRE(again.has_value());
    REQUIRE(again->ok());
    CHECK((*again)->response.results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  }
  SECTION("nobody at the socket: left to gRPC (which names it), and tried again next time") {
    const std::string nowhere = dir.path() + "/nobody.sock";
    client::LeanChannel absent(nowhere, "unix:" + nowhere, std::chrono::seconds(30));
    CHECK_FALSE(absent.Lookup(LookupOf({"lean-0"})).has_value());
    CHECK(absent.enabled());
  }
  SECTION("a server that does not answer the hello (an older daemon): left to gRPC, and off for a while") {
    const std::string path = dir.path() + "/old.sock";
    const int listener = ListenAt(path, 1);
    std::thread old_daemon([&] {
      const int conn = ::accept(listener, nullptr, nullptr);
      char hello[8];
      (void)::recv(conn, hello, sizeof hello, MSG_WAITALL);
      ::close(conn);  // what a gRPC server does with bytes that are not HTTP/2
    });
    client::LeanChannel older(path, "unix:" + path, std::chrono::seconds(30));
    CHECK_FALSE(older.Lookup(LookupOf({"lean-0"})).has_value());
    old_daemon.join();
    ::close(listener);
    CHECK_FALSE(older.enabled());
  }
}

TEST_CASE("the C++ client's lean channel compiles as gRPC does, and leaves Compile to gRPC where the daemon serves only Lookup",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  client::LeanChannel channel(daemon.socket_path(), "unix:" + daemon.socket_path(), std::chrono::seconds(30));
  const v1::CompileRequest request = CompileOf(8200, "lean-channel");
  std::optional<Expected<v1::CompileResponse>> compiled = channel.Compile(request, std::nullopt);
  REQUIRE(compiled.has_value());
  REQUIRE(compiled->ok());
  REQUIRE((*compiled)->results_size() == 1);
  CHECK((*compiled)->results(0).status() == v1::CACHE_STATUS_COMPILED);
  std::optional<Expected<v1::CompileResponse>> hit = channel.Compile(request, std::chrono::seconds(30));
  REQUIRE(hit.has_value());
  REQUIRE(hit->ok());
  auto expected = daemon.ConnectGrpcOnly()->Compile(request);
  REQUIRE(expected.ok());
  CHECK((*hit)->SerializeAsString() == expected->SerializeAsString());  // payload included
  CHECK((*hit)->results(0).artifact().payload() == (*compiled)->results(0).artifact().payload());

  // A daemon from before lean Compile: the hello, then UNIMPLEMENTED for method 2.
  const std::string path = dir.path() + "/older.sock";
  const int listener = ListenAt(path, 1);
  int requests = 0;
  std::thread older([&] {
    const int conn = ::accept(listener, nullptr, nullptr);
    char buffer[8];
    if (::recv(conn, buffer, 8, MSG_WAITALL) == 8) (void)::send(conn, kHello, 8, MSG_NOSIGNAL);
    // Each request: its header, its body, then UNIMPLEMENTED; until the client hangs up.
    while (::recv(conn, buffer, 8, MSG_WAITALL) == 8) {
      ++requests;
      std::string body(LittleEndian(std::string(buffer, 8), 0, 4), '\0');
      if (!body.empty() && ::recv(conn, body.data(), body.size(), MSG_WAITALL) <= 0) break;
      const std::string message = "lean method 2 is not served (1: Lookup); use gRPC for the others";
      const std::string reply = U32(static_cast<std::uint32_t>(message.size())) +
                                static_cast<char>(Code::kUnimplemented) + std::string(3, '\0') + message;
      (void)::send(conn, reply.data(), reply.size(), MSG_NOSIGNAL);
    }
    ::close(conn);
  });
  {
    client::LeanChannel to_older(path, "unix:" + path, std::chrono::seconds(30));
    CHECK_FALSE(to_older.Compile(request, std::nullopt).has_value());  // left to gRPC
    CHECK_FALSE(to_older.Compile(request, std::nullopt).has_value());  // at once: nothing sent
    CHECK(to_older.enabled());  // its Lookups still go the lean way
  }
  older.join();
  ::close(listener);
  CHECK(requests == 1);
}

TEST_CASE("a daemon told to stop answers the lean Compile in flight first, as gRPC drains its calls",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1"});
  daemon.Start();
  LeanConnection c(daemon.socket_path());
  c.Send(Request(2, SlowCompile().SerializeAsString()));
  REQUIRE(CompileInFlight(daemon));  // stopped only once the daemon counts the compile
  CHECK(daemon.Stop() == 0);
  // Written before the daemon exited; still in the socket.
  std::optional<Reply> r = c.Read();
  REQUIRE(r);
  const Answer a = Decode(*r);
  REQUIRE(a.response.results_size() == 1);
  CHECK(a.response.results(0).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(a.payloads[0].substr(0, 4) == "\x7f" "ELF");
}

TEST_CASE("a lean client that sends a request ahead and then hangs up still releases its compile",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1"});
  daemon.Start();
  {
    LeanConnection c(daemon.socket_path());
    // The second request waits unread behind the first one's answer.
    c.Send(Request(2, SlowCompile().SerializeAsString()) + Request(2, CompileOf(8500, "behind").SerializeAsString()));
    REQUIRE(CompileInFlight(daemon));
  }  // hung up
  // Asked of the daemon until it holds (the compile alone would take seconds).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  v1::Stats s = StatsOf(daemon);
  while (s.cancelled() == 0 && std::chrono::steady_clock::now() < give_up) s = StatsOf(daemon);
  CHECK(s.cancelled() == 1);
  CHECK(s.compiles() == 0);
  // The single compile worker is free again: the next compile is answered.
  LeanConnection again(daemon.socket_path());
  CHECK(Ask(again, 2, CompileOf(8501, "after").SerializeAsString()).response.results(0).status() ==
        v1::CACHE_STATUS_COMPILED);
  CHECK(daemon.Stop() == 0);
}

TEST_CASE("a client sends at most 4 Compiles at once over the lean transport, the others over gRPC",
          "[integration][lean]") {
  TempDir dir;
  // A daemon stand-in that takes Compiles and answers none until released.
  const std::string path = dir.path() + "/held.sock";
  const int listener = ListenAt(path, 8);
  const int kMax = client::LeanChannel::kMaxCompiles;
  std::mutex mu;
  std::condition_variable changed;
  int held = 0;
  bool release = false;
  std::thread daemon([&] {
    std::vector<int> connections;
    for (int i = 0; i < kMax; ++i) {
      const int conn = ::accept(listener, nullptr, nullptr);
      char header[8];
      if (::recv(conn, header, 8, MSG_WAITALL) == 8) (void)::send(conn, kHello, 8, MSG_NOSIGNAL);
      if (::recv(conn, header, 8, MSG_WAITALL) == 8) {
        std::string body(LittleEndian(std::string(header, 8), 0, 4), '\0');
        if (!body.empty()) (void)::recv(conn, body.data(), body.size(), MSG_WAITALL);
      }
      connections.push_back(conn);
      std::lock_guard lock(mu);
      ++held;
      changed.notify_all();
    }
    std::unique_lock lock(mu);
    changed.wait(lock, [&] { return release; });
    for (int conn : connections) ::close(conn);  // unanswered: the calls fail
  });
  client::LeanChannel channel(path, "unix:" + path, std::chrono::seconds(30));
  const v1::CompileRequest request = CompileOf(8300, "held");
  std::vector<std::optional<Expected<v1::CompileResponse>>> results(kMax);
  std::vector<std::thread> callers;
  for (int i = 0; i < kMax; ++i) {
    callers.emplace_back([&, i] { results[i] = channel.Compile(request, std::nullopt); });
  }
  {
    std::unique_lock lock(mu);
    changed.wait(lock, [&] { return held == kMax; });
  }
  // One more while those are under way: left to gRPC, without a connection.
  CHECK_FALSE(channel.Compile(request, std::nullopt).has_value());
  pollfd pending{listener, POLLIN, 0};
  CHECK(::poll(&pending, 1, 0) == 0);
  {
    std::lock_guard lock(mu);
    release = true;
    changed.notify_all();
  }
  daemon.join();
  for (std::thread& t : callers) t.join();
  for (const auto& r : results) {
    REQUIRE(r.has_value());  // they had gone out: their failure is theirs, never a second send
    CHECK(r->status().code() == Code::kUnavailable);
  }
  ::close(listener);
}

namespace {

std::uint64_t AliasHitsReplayed(DaemonProcess& daemon) {
  auto stats = daemon.ConnectGrpcOnly()->Stats();
  REQUIRE(stats.ok());
  return stats->alias_hits_replayed();
}

// The raw reply and, for a memfd answer, the memfd's bytes.
struct MemoRawAnswer {
  Reply reply;
  std::string blob;
};

MemoRawAnswer AskRawLookup(LeanConnection& c, const v1::LookupRequest& request) {
  c.Send(Request(1, request.SerializeAsString()));
  std::optional<Reply> reply = c.Read();
  REQUIRE(reply);
  REQUIRE(reply->code == 0);
  MemoRawAnswer raw{*reply, {}};
  if (reply->fd >= 0) {
    const off_t size = ::lseek(reply->fd, 0, SEEK_END);
    raw.blob.resize(static_cast<std::size_t>(size));
    REQUIRE(::pread(reply->fd, raw.blob.data(), raw.blob.size(), 0) == size);
    ::close(reply->fd);
    raw.reply.fd = -1;
  }
  return raw;
}

}  // namespace

TEST_CASE("a lean Lookup asked again is answered as before until what it read changes, and afresh after",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CompileWarm(daemon, 12, 40 << 10);  // memfd answers
  std::vector<std::string> keys;
  for (int i = 0; i < 12; ++i) keys.push_back("lean-" + std::to_string(i));
  const v1::LookupRequest large = LookupOf(keys);
  const v1::LookupRequest small = LookupOf({"lean-0", "lean-1"});  // inline
  LeanConnection lean(daemon.socket_path());

  const MemoRawAnswer first = AskRawLookup(lean, large);
  CHECK(AliasHitsReplayed(daemon) == 0);
  const MemoRawAnswer again = AskRawLookup(lean, large);
  CHECK(AliasHitsReplayed(daemon) == 12);
  CHECK(again.reply.flags == first.reply.flags);
  CHECK(again.reply.body == first.reply.body);
  CHECK(again.blob == first.blob);
  {
    LeanConnection other(daemon.socket_path());  // another process of the same user
    const MemoRawAnswer third = AskRawLookup(other, large);
    CHECK(third.blob == first.blob);
    CHECK(AliasHitsReplayed(daemon) == 24);
  }
  lean.Send(Request(1, large.SerializeAsString()));
  std::optional<Reply> decoded = lean.Read();
  REQUIRE(decoded);
  CheckSameAsGrpc(daemon, large, Decode(*decoded));  // gRPC's answer, the sealed memfd checked
  CHECK(AliasHitsReplayed(daemon) == 36);

  AskRawLookup(lean, small);
  const MemoRawAnswer small_again = AskRawLookup(lean, small);
  CHECK(small_again.reply.flags == 0);
  CHECK(AliasHitsReplayed(daemon) == 38);

  // Counted as the hits they are.
  auto stats = daemon.ConnectGrpcOnly()->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->alias_hits() >= 48 + 4);

  // A new kernel compiled (a new artifact and alias) changes no kept answer.
  v1::KernelDescriptor added;
  added.set_ir(PaddedCpuKernel(8000, 1000));
  added.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  added.set_fast_key("lean-new");
  added.set_namespace_("lean");
  REQUIRE(CompileOne(*daemon.Connect(), added).status() == v1::CACHE_STATUS_COMPILED);
  AskRawLookup(lean, small);
  CHECK(AliasHitsReplayed(daemon) == 40);

  SECTION("an answer with a miss or an error is made afresh every time") {
    const v1::LookupRequest with_miss = LookupOf({"lean-0", "absent"});
    AskRawLookup(lean, with_miss);
    AskRawLookup(lean, with_miss);
    v1::LookupRequest with_error = LookupOf({"lean-0", "lean-1"});
    with_error.mutable_queries(1)->mutable_target()->mutable_cpu()->set_cpu("no-such-cpu!");
    AskRawLookup(lean, with_error);
    AskRawLookup(lean, with_error);
    CHECK(AliasHitsReplayed(daemon) == 40);
  }
  SECTION("an alias bound to another artifact is answered afresh") {
    v1::KernelDescriptor d;
    d.set_ir(PaddedCpuKernel(9000, 1000));
    d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
    d.set_fast_key("lean-1");
    d.set_namespace_("lean");
    const v1::CompileResult rebound = CompileOne(*daemon.Connect(), d);
    REQUIRE(rebound.status() == v1::CACHE_STATUS_COMPILED);
    lean.Send(Request(1, small.SerializeAsString()));
    std::optional<Reply> reply = lean.Read();
    REQUIRE(reply);
    const Answer a = Decode(*reply);
    CHECK(a.response.results(1).artifact().artifact_key() == rebound.artifact().artifact_key());
    CheckSameAsGrpc(daemon, small, a);
    CHECK(AliasHitsReplayed(daemon) == 40);
    AskRawLookup(lean, small);  // kept again, under the new generation
    CHECK(AliasHitsReplayed(daemon) == 42);
  }
  SECTION("evicted artifacts are misses, not answered from before") {
    v1::EvictRequest evict;
    evict.mutable_header()->set_protocol_version(v1::PROTOCOL_VERSION_1);
    evict.set_everything(true);
    REQUIRE(daemon.ConnectGrpcOnly()->Evict(evict).ok());
    lean.Send(Request(1, large.SerializeAsString()));
    std::optional<Reply> reply = lean.Read();
    REQUIRE(reply);
    const Answer a = Decode(*reply);
    for (const v1::CompileResult& r : a.response.results()) CHECK(r.status() == v1::CACHE_STATUS_MISS);
    CHECK(AliasHitsReplayed(daemon) == 40);
  }
}

TEST_CASE("a lean Lookup kept for one program is answered as before to another of the user's, not to another protocol",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CompileWarm(daemon, 3, 40 << 10);
  LeanConnection lean(daemon.socket_path());
  v1::LookupRequest first_program = LookupOf({"lean-0", "lean-1", "lean-2"});
  first_program.mutable_header()->set_client("first-program/1.0");
  const MemoRawAnswer first = AskRawLookup(lean, first_program);
  CHECK(AliasHitsReplayed(daemon) == 0);

  // The client's name labels the log only: the same lookup from a program
  // that names itself otherwise is the answer kept.
  v1::LookupRequest second_program = first_program;
  second_program.mutable_header()->set_client("a-much-longer-name-of-another-program/2.0");
  const MemoRawAnswer second = AskRawLookup(lean, second_program);
  CHECK(AliasHitsReplayed(daemon) == 3);
  CHECK(second.reply.body == first.reply.body);
  CHECK(second.blob == first.blob);

  // A protocol version the daemon does not speak is refused, as over gRPC,
  // not answered from what was kept for version 1.
  v1::LookupRequest other_protocol = first_program;
  other_protocol.mutable_header()->set_protocol_version(static_cast<v1::ProtocolVersion>(2));
  lean.Send(Request(1, other_protocol.SerializeAsString()));
  std::optional<Reply> refused = lean.Read();
  REQUIRE(refused);
  CHECK(refused->code == static_cast<int>(Code::kFailedPrecondition));
  CHECK(AliasHitsReplayed(daemon) == 3);
}

TEST_CASE("a daemon with --answer-cache=0 makes every lean Lookup answer afresh", "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--answer-cache=0"});
  daemon.Start();
  CompileWarm(daemon, 2, 1000);
  LeanConnection lean(daemon.socket_path());
  const v1::LookupRequest request = LookupOf({"lean-0", "lean-1"});
  const MemoRawAnswer first = AskRawLookup(lean, request);
  const MemoRawAnswer again = AskRawLookup(lean, request);
  CHECK(again.reply.body == first.reply.body);
  CHECK(AliasHitsReplayed(daemon) == 0);
}

TEST_CASE("a lean Lookup after each rebinding of its alias answers the new artifact, however often it was kept",
          "[integration][lean]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CompileWarm(daemon, 3, 1000);
  auto client = daemon.Connect();
  LeanConnection lean(daemon.socket_path());
  const v1::LookupRequest request = LookupOf({"lean-0", "lean-1", "lean-2"});
  std::uint64_t kept = 0;
  for (int round = 0; round < 12; ++round) {
    v1::KernelDescriptor d;
    d.set_ir(PaddedCpuKernel(20000 + round, 1000));
    d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
    d.set_fast_key("lean-" + std::to_string(round % 3));
    d.set_namespace_("lean");
    const v1::CompileResult rebound = CompileOne(*client, d);
    REQUIRE(rebound.status() == v1::CACHE_STATUS_COMPILED);
    for (int ask = 0; ask < 3; ++ask) {  // the first is made afresh, the others kept
      lean.Send(Request(1, request.SerializeAsString()));
      std::optional<Reply> reply = lean.Read();
      REQUIRE(reply);
      const Answer a = Decode(*reply);
      CHECK(a.response.results(round % 3).artifact().artifact_key() == rebound.artifact().artifact_key());
    }
    kept += 2 * 3;
    CHECK(AliasHitsReplayed(daemon) == kept);
  }
}

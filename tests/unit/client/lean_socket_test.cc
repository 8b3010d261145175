// The client's side of the lean transport (client/lean_socket.h) against a
// peer that speaks its framing and then misbehaves as each case needs: no
// answer, a hang-up, or a late answer. The daemon's side is tested in
// tests/integration/lean_transport_test.cc.
#include "client/lean_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lean/frame.h"
#include "tests/support/temp_dir.h"

using namespace qdcache;
using namespace qdcache::client;
using namespace std::chrono_literals;

namespace {

bool ReadAll(int fd, char* data, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, data + got, size - got);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// One connection's daemon side: takes the hello and a request of
// `request_bytes`, then does `then`. Runs on a thread of its own (no
// assertions there: what it saw is checked after Join).
class Peer {
 public:
  enum class Then {
    kSilent,  // answers nothing; ends when the client closes the connection (or after 10 s)
    kHangUp,  // closes the connection
    kAnswer,  // writes each of `replies` (whole frames) after a request of its own
  };

  Peer(const std::string& path, std::size_t request_bytes, Then then, std::vector<std::string> replies = {})
      : listener_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    bound_ = listener_ >= 0 &&
             ::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
             ::listen(listener_, 1) == 0;
    if (bound_) thread_ = std::thread([=, this] { Serve(request_bytes, then, replies); });
  }
  ~Peer() {
    Join();
    if (listener_ >= 0) ::close(listener_);
  }

  [[nodiscard]] bool bound() const { return bound_; }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  // What it read of the request (after Join).
  [[nodiscard]] const std::string& request() const { return request_; }
  // Whether the client closed the connection it left unanswered (after Join).
  [[nodiscard]] bool saw_close() const { return saw_close_; }

 private:
  void Serve(std::size_t request_bytes, Then then, const std::vector<std::string>& replies) {
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    char hello[lean::kHello.size()];
    std::string request(request_bytes, '\0');
    if (ReadAll(fd, hello, sizeof hello) && WriteAll(fd, lean::kHello) &&
        ReadAll(fd, request.data(), request.size())) {
      request_ = request;
      if (then == Then::kSilent) {
        // Bounded, so that a client that kept the connection fails the
        // case instead of hanging it (the LeanSocket outlives Join).
        pollfd p{fd, POLLIN, 0};
        char byte;
        saw_close_ = ::poll(&p, 1, 10'000) == 1 && ::read(fd, &byte, 1) == 0;
      } else if (then == Then::kAnswer) {
        for (std::size_t i = 0; i < replies.size(); ++i) {
          if (!WriteAll(fd, replies[i])) break;
          if (i + 1 < replies.size() && !ReadAll(fd, request.data(), request.size())) break;
        }
      }
    }
    ::close(fd);
  }

  int listener_;
  bool bound_ = false;
  std::thread thread_;
  std::string request_;
  bool saw_close_ = false;
};

std::string Frame(const std::string& body) {
  return lean::EncodeRequestHeader(static_cast<std::uint32_t>(body.size()), lean::kLookup) + body;
}

// An OK answer of `body`, framed.
std::string Answer(const std::string& body) {
  return lean::EncodeReplyHeader(static_cast<std::uint32_t>(body.size()), Code::kOk, 0) + body;
}

}  // namespace

TEST_CASE(
    "a lean call whose answer does not come within its wait ends DEADLINE_EXCEEDED and drops the "
    "connection",
    "[lean]") {
  testing::TempDir dir;
  const std::string frame = Frame("request body");
  Peer peer(dir / "sock", frame.size(), Peer::Then::kSilent);
  REQUIRE(peer.bound());
  LeanSocket socket(dir / "sock", "unix:" + (dir / "sock"), 10s);

  bool decoded = false;
  std::optional<Status> answer = socket.Call(frame, 50ms, [&](LeanSocket::Reply&) {
    decoded = true;
    return Status::Ok();
  });
  REQUIRE(answer.has_value());
  CHECK(answer->code() == Code::kDeadlineExceeded);
  CHECK_THAT(answer->message(), Catch::Contains("no answer within 50 ms"));
  CHECK_FALSE(decoded);
  peer.Join();
  CHECK(peer.request() == frame);
  CHECK(peer.saw_close());  // a connection whose answer may still come is not kept
}

TEST_CASE("a lean call whose daemon hangs up before answering ends UNAVAILABLE", "[lean]") {
  testing::TempDir dir;
  const std::string frame = Frame("request body");
  Peer peer(dir / "sock", frame.size(), Peer::Then::kHangUp);
  REQUIRE(peer.bound());
  LeanSocket socket(dir / "sock", "unix:" + (dir / "sock"), 10s);

  std::optional<Status> answer =
      socket.Call(frame, std::nullopt, [](LeanSocket::Reply&) { return Status::Ok(); });
  REQUIRE(answer.has_value());
  CHECK(answer->code() == Code::kUnavailable);
  CHECK_THAT(answer->message(), Catch::Contains("the daemon closed the connection"));
}

TEST_CASE("a lean call waiting without a limit of its own hands its answer's body to the decoder",
          "[lean]") {
  testing::TempDir dir;
  const std::string frame = Frame("request body");
  const std::string body = "answer body";
  Peer peer(dir / "sock", frame.size(), Peer::Then::kAnswer, {Answer(body)});
  REQUIRE(peer.bound());
  LeanSocket socket(dir / "sock", "unix:" + (dir / "sock"), 10s);

  std::string seen;
  std::optional<Status> answer = socket.Call(frame, std::nullopt, [&](LeanSocket::Reply& reply) {
    seen = reply.body;
    return Status::Ok();
  });
  REQUIRE(answer.has_value());
  CHECK(answer->ok());
  CHECK(seen == body);
}

TEST_CASE("an inline blob is aligned where the answer was read, its payloads kept, whatever the body before it",
          "[lean]") {
  testing::TempDir dir;
  const std::string frame = Frame("request body");
  for (std::size_t before : {0, 1, 17, 63, 64, 100}) {
    CAPTURE(before);
    std::string blob(300, '\0');
    for (std::size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>(i * 7 + before);
    const std::string path = dir / ("sock" + std::to_string(before));
    Peer peer(path, frame.size(), Peer::Then::kAnswer, {Answer(std::string(before, 'h') + blob)});
    REQUIRE(peer.bound());
    LeanSocket socket(path, "unix:" + path, 10s);

    std::vector<std::string_view> payloads;
    std::shared_ptr<LeanSocket::Held> kept;  // what the payloads view, kept as an answer keeps it
    std::string head;
    Status refused;
    std::optional<Status> answer = socket.Call(frame, std::nullopt, [&](LeanSocket::Reply& reply) {
      kept = reply.held;
      const std::string_view tail = reply.body.substr(before);
      // Not the tail: refused, nothing moved.
      refused = reply.AlignInline(reply.body.substr(before, 10), payloads);
      payloads = {tail.substr(0, 64), tail.substr(64, 0), tail.substr(128, 172)};
      QDC_RETURN_IF_ERROR(reply.AlignInline(tail, payloads));
      head = std::string(reply.body.substr(0, before));
      return Status::Ok();
    });
    REQUIRE(answer.has_value());
    REQUIRE(answer->ok());
    CHECK(refused.code() == Code::kUnavailable);
    CHECK(head == std::string(before, 'h'));
    REQUIRE(payloads.size() == 3);
    CHECK(reinterpret_cast<std::uintptr_t>(payloads[0].data()) % lean::kPayloadAlignment == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(payloads[2].data()) % lean::kPayloadAlignment == 0);
    CHECK(payloads[0] == std::string_view(blob).substr(0, 64));
    CHECK(payloads[1].empty());
    CHECK(payloads[2] == std::string_view(blob).substr(128, 172));
  }
}

TEST_CASE("answers on one connection are read whole whatever their sizes, an answer shaped like the last one's "
          "aligned where it was read",
          "[lean]") {
  testing::TempDir dir;
  const std::string frame = Frame("request body");
  // Bodies of this shape: `before` bytes, then a blob to align.
  auto body = [](std::size_t before, std::size_t blob, char fill) {
    return std::string(before, 'h') + std::string(blob, fill);
  };
  const std::vector<std::string> bodies = {
      body(40, 200, 'a'),   // the first: nothing guessed
      body(40, 200, 'b'),   // the same shape: read with its header, the blob in place
      body(3, 50, 'c'),     // smaller
      body(90, 5000, 'd'),  // larger than guessed
      body(90, 5000, 'e'),  // the same shape again
      "",                   // empty
      body(7, 1, 'f'),
      body(10, 100000, 'g'),  // large
      body(5, 20, 'h'),       // far smaller than guessed: room of its own size
  };
  std::vector<std::string> replies;
  for (const std::string& b : bodies) replies.push_back(Answer(b));
  Peer peer(dir / "sock", frame.size(), Peer::Then::kAnswer, replies);
  REQUIRE(peer.bound());
  LeanSocket socket(dir / "sock", "unix:" + (dir / "sock"), 10s);

  const std::size_t before[] = {40, 40, 3, 90, 90, 0, 7, 10, 5};
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    CAPTURE(i);
    std::string seen;
    bool in_place = false;
    std::vector<std::string_view> payloads;
    std::shared_ptr<LeanSocket::Held> kept;
    std::optional<Status> answer = socket.Call(frame, std::nullopt, [&](LeanSocket::Reply& reply) {
      kept = reply.held;
      seen = reply.body;
      const std::string_view tail = reply.body.substr(before[i]);
      payloads = {tail};
      QDC_RETURN_IF_ERROR(reply.AlignInline(tail, payloads));
      in_place = payloads[0].data() == tail.data();
      return Status::Ok();
    });
    REQUIRE(answer.has_value());
    REQUIRE(answer->ok());
    CHECK(seen == bodies[i]);
    REQUIRE(payloads.size() == 1);
    CHECK(payloads[0] == std::string_view(bodies[i]).substr(before[i]));
    if (!payloads[0].empty()) {
      CHECK(reinterpret_cast<std::uintptr_t>(payloads[0].data()) % lean::kPayloadAlignment == 0);
    }
    if (i == 1 || i == 4) CHECK(in_place);
  }
}

TEST_CASE("a daemon that sends more than its answer is refused UNAVAILABLE", "[lean]") {
  testing::TempDir dir;
  const std::string frame = Frame("request body");
  // The first answer makes the connection expect 100 bytes with the next header.
  Peer peer(dir / "sock", frame.size(), Peer::Then::kAnswer,
            {Answer(std::string(100, 'a')), Answer(std::string(10, 'b')) + std::string(20, 'x')});
  REQUIRE(peer.bound());
  LeanSocket socket(dir / "sock", "unix:" + (dir / "sock"), 10s);

  auto keep = [](LeanSocket::Reply&) { return Status::Ok(); };
  std::optional<Status> first = socket.Call(frame, std::nullopt, keep);
  REQUIRE(first.has_value());
  REQUIRE(first->ok());
  std::optional<Status> second = socket.Call(frame, std::nullopt, keep);
  REQUIRE(second.has_value());
  CHECK(second->code() == Code::kUnavailable);
  CHECK_THAT(second->message(), Catch::Contains("more than its answer"));
}

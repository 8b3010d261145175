// LeanAnswerMemo: kept answers are found only under their exact key and
// generation, a stale one is dropped, and the byte budget evicts the least
// recently used.
#include "daemon/lean_answer_memo.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "qdcache/v1/qdcache.pb.h"

using qdcache::daemon::LeanAnswer;
using qdcache::daemon::LeanAnswerMemo;
using qdcache::daemon::LeanReplay;

namespace memo_test {

// The key of a Lookup of the one fast key `fast_key` from `client`.
std::string Key(std::uint32_t uid, const std::string& fast_key, const std::string& client = "memo-test") {
  qdcache::v1::LookupRequest request;
  request.mutable_header()->set_protocol_version(qdcache::v1::PROTOCOL_VERSION_1);
  request.mutable_header()->set_client(client);
  request.add_queries()->set_fast_key(fast_key);
  const std::string body = request.SerializeAsString();
  std::string_view name;  // a view into body
  std::optional<std::string> key = LeanAnswerMemo::KeyOf(uid, body, &name);
  REQUIRE(key.has_value());
  CHECK(name == client);
  return *key;
}

std::shared_ptr<LeanAnswer> AnswerOf(std::size_t rest_bytes, const std::string& tag = "a") {
  auto answer = std::make_shared<LeanAnswer>();
  answer->header = "HEADER" + tag;
  answer->rest = std::string(rest_bytes, 'x');
  auto replay = std::make_shared<LeanReplay>();
  replay->artifact_keys = {"key-" + tag};
  replay->compile_micros = {7};
  answer->replay = replay;
  return answer;
}

}  // namespace memo_test

using memo_test::AnswerOf;
using memo_test::Key;

TEST_CASE("a kept answer is found under its uid, request (whoever names itself in it) and generation only", "[daemon][lean]") {
  LeanAnswerMemo memo(1 << 20);
  const std::string key = Key(1000, "request");
  memo.Put(key, 5, AnswerOf(100));
  REQUIRE(memo.size() == 1);

  std::shared_ptr<const LeanAnswer> found = memo.Find(key, 5);
  REQUIRE(found != nullptr);
  CHECK(found->replay->artifact_keys == std::vector<std::string>{"key-a"});
  // Another user, another request: not this answer.
  CHECK(memo.Find(Key(1001, "request"), 5) == nullptr);
  CHECK(memo.Find(Key(1000, "request2"), 5) == nullptr);
  CHECK(memo.Find(Key(1000, "reques"), 5) == nullptr);
  // The same request from a program that names itself otherwise: this answer.
  CHECK(memo.Find(Key(1000, "request", "another-program/2.0"), 5) == found);
  // Bytes that are not a message have no key.
  std::string_view name;
  CHECK_FALSE(LeanAnswerMemo::KeyOf(1000, std::string("\x0a\x05" "ab", 4), &name).has_value());
  CHECK(memo.size() == 1);

  // The store changed: the answer is dropped, not served.
  CHECK(memo.Find(key, 6) == nullptr);
  CHECK(memo.size() == 0);
  CHECK(memo.bytes() == 0);
  CHECK(memo.Find(key, 5) == nullptr);
}

TEST_CASE("the memo keeps to its budget, least recently used out first, and replaces an answer under the same key",
          "[daemon][lean]") {
  LeanAnswerMemo memo(10'000);
  const std::string a = Key(1, "a");
  const std::string b = Key(1, "b");
  const std::string c = Key(1, "c");
  memo.Put(a, 1, AnswerOf(4'000, "a"));
  memo.Put(b, 1, AnswerOf(4'000, "b"));
  CHECK(memo.size() == 2);
  REQUIRE(memo.Find(a, 1) != nullptr);  // a is now the more recently used
  memo.Put(c, 1, AnswerOf(4'000, "c"));
  CHECK(memo.size() == 2);
  CHECK(memo.Find(b, 1) == nullptr);
  CHECK(memo.Find(a, 1) != nullptr);
  CHECK(memo.Find(c, 1) != nullptr);
  CHECK(memo.bytes() <= 10'000);

  memo.Put(a, 1, AnswerOf(100, "a2"));
  CHECK(memo.size() == 2);
  REQUIRE(memo.Find(a, 1) != nullptr);
  CHECK(memo.Find(a, 1)->replay->artifact_keys == std::vector<std::string>{"key-a2"});

  // Larger than the whole budget: not kept, and nothing else is pushed out.
  memo.Put(b, 1, AnswerOf(20'000, "big"));
  CHECK(memo.Find(b, 1) == nullptr);
  CHECK(memo.size() == 2);
  CHECK(memo.MayKeep(100));
  CHECK_FALSE(memo.MayKeep(10'000));

  // A newer generation drops everything kept; an answer made before it is
  // not kept.
  memo.Put(b, 2, AnswerOf(100, "b2"));
  CHECK(memo.size() == 1);
  CHECK(memo.Find(c, 2) == nullptr);
  memo.Put(c, 1, AnswerOf(100, "c1"));
  CHECK(memo.size() == 1);
  CHECK(memo.Find(b, 2) != nullptr);
}

TEST_CASE("the memo holds at most kMaxMemfds memfds, the least recently used given up first", "[daemon][lean]") {
  LeanAnswerMemo memo(1 << 30);
  std::vector<int> fds;
  for (std::size_t i = 0; i <= LeanAnswerMemo::kMaxMemfds; ++i) {
    auto answer = AnswerOf(10, std::to_string(i));
    answer->memfd = ::memfd_create("memo-cap", MFD_CLOEXEC);
    REQUIRE(answer->memfd >= 0);
    fds.push_back(answer->memfd);
    memo.Put(Key(1, std::to_string(i)), 1, std::move(answer));
    memo.Put(Key(1, "inline" + std::to_string(i)), 1, AnswerOf(10, "inline"));
  }
  CHECK(memo.size() == 2 * (LeanAnswerMemo::kMaxMemfds + 1) - 1);
  CHECK(memo.Find(Key(1, "0"), 1) == nullptr);
  CHECK(::fcntl(fds[0], F_GETFD) == -1);
  CHECK(memo.Find(Key(1, "1"), 1) != nullptr);
  CHECK(memo.Find(Key(1, "inline0"), 1) != nullptr);
}

TEST_CASE("a kept answer's memfd stays open while the answer is being sent, and is closed once dropped",
          "[daemon][lean]") {
  LeanAnswerMemo memo(1 << 20);
  const std::string key = Key(1, "m");
  auto answer = AnswerOf(10);
  answer->memfd = ::memfd_create("memo-test", MFD_CLOEXEC);
  REQUIRE(answer->memfd >= 0);
  const int fd = answer->memfd;
  memo.Put(key, 1, std::move(answer));
  std::shared_ptr<const LeanAnswer> sending = memo.Find(key, 1);
  REQUIRE(sending != nullptr);
  CHECK(memo.Find(key, 2) == nullptr);  // dropped from the memo ...
  struct stat st {};
  CHECK(::fstat(fd, &st) == 0);         // ... but the sender still holds it
  sending.reset();
  CHECK(::fcntl(fd, F_GETFD) == -1);    // closed with the last holder
}

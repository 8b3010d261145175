// The C ABI (qdcache.h) as a C caller sees it, against a real daemon:
// handles, lengths, status codes and the per-thread message, batches,
// lookups, results, stats JSON, the CPU loader, and misuse (NULLs, bad
// indexes, unknown names) answered with codes rather than crashes.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "qdcache/qdcache.h"
#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

namespace {

using qdcache::testing::DaemonProcess;
using qdcache::testing::ReadFileOrDie;
using qdcache::testing::TempDir;

std::string Data(const std::string& relative) { return ReadFileOrDie(std::string(QDCACHE_TEST_DATA) + "/" + relative); }

// A connected client (owned) for a daemon.
struct Connection {
  // lean: the "lean" option's value (nullptr: left to the default).
  explicit Connection(const DaemonProcess& daemon, const char* lean = nullptr) {
    qdcache_options* options = nullptr;
    REQUIRE(qdcache_options_create(&options) == QDCACHE_OK);
    REQUIRE(qdcache_options_set(options, "socket", daemon.socket_path().c_str()) == QDCACHE_OK);
    REQUIRE(qdcache_options_set(options, "spawn", "0") == QDCACHE_OK);
    if (lean != nullptr) REQUIRE(qdcache_options_set(options, "lean", lean) == QDCACHE_OK);
    REQUIRE(qdcache_connect(options, &client) == QDCACHE_OK);
    qdcache_options_free(options);
  }
  ~Connection() { qdcache_client_free(client); }
  qdcache_client* client = nullptr;
};

// Compiles one kernel; the results are the caller's.
qdcache_results* CompileOne(qdcache_client* client, const std::string& ir, const char* target,
                            const char* fast_key = nullptr, const char* ns = nullptr) {
  qdcache_request* request = nullptr;
  REQUIRE(qdcache_request_create(&request) == QDCACHE_OK);
  size_t index = 99;
  REQUIRE(qdcache_request_add_kernel(request, ir.data(), ir.size(), target, &index) == QDCACHE_OK);
  CHECK(index == 0);
  if (fast_key != nullptr) {
    REQUIRE(qdcache_request_set_fast_key(request, 0, fast_key, std::strlen(fast_key)) == QDCACHE_OK);
    REQUIRE(qdcache_request_set(request, 0, "namespace", ns) == QDCACHE_OK);
  }
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_compile(client, request, &results) == QDCACHE_OK);
  CHECK(qdcache_request_count(request) == 0);  // moved into the call
  qdcache_request_free(request);
  return results;
}

// One batch: saxpy, "not IR", saxpy again (asking for entry point
// `third_entry` when not null).
qdcache_results* CompileGoodBadGood(qdcache_client* client, const char* third_entry) {
  const std::string good = Data("cpu/saxpy.ll");
  qdcache_request* request = nullptr;
  REQUIRE(qdcache_request_create(&request) == QDCACHE_OK);
  REQUIRE(qdcache_request_add_kernel(request, good.data(), good.size(), "cpu:x86-64", nullptr) == QDCACHE_OK);
  REQUIRE(qdcache_request_add_kernel(request, "not IR", 6, "cpu:x86-64", nullptr) == QDCACHE_OK);
  REQUIRE(qdcache_request_add_kernel(request, good.data(), good.size(), "cpu:x86-64", nullptr) == QDCACHE_OK);
  if (third_entry != nullptr) REQUIRE(qdcache_request_add_entry(request, 2, third_entry) == QDCACHE_OK);
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_compile(client, request, &results) == QDCACHE_OK);
  qdcache_request_free(request);
  return results;
}

}  // namespace

TEST_CASE("the version query and status names", "[capi]") {
  CHECK(qdcache_abi_version() == QDCACHE_ABI_VERSION);
  CHECK(qdcache_abi_version() >> 16 == 1);
  CHECK(std::string(qdcache_version()).find('.') != std::string::npos);
  CHECK(std::string(qdcache_status_name(QDCACHE_INVALID_ARGUMENT)) == "INVALID_ARGUMENT");
  CHECK(std::string(qdcache_status_name(QDCACHE_UNAUTHENTICATED)) == "UNAUTHENTICATED");
  CHECK(std::string(qdcache_status_name(99)) == "UNKNOWN");
  CHECK(std::string(qdcache_status_name(-1)) == "UNKNOWN");
  CHECK(std::string(qdcache_cache_status_name(QDCACHE_CACHE_STAGE_HIT)) == "stage_hit");
}

TEST_CASE("every compile option of the catalogue is listed and settable by its names", "[capi]") {
  qdcache_request* request = nullptr;
  REQUIRE(qdcache_request_create(&request) == QDCACHE_OK);
  REQUIRE(qdcache_request_add_kernel(request, "x", 1, "cuda:sm_90", nullptr) == QDCACHE_OK);
  std::vector<std::string> names;
  for (size_t i = 0; qdcache_compile_option_name(i) != nullptr; ++i) names.emplace_back(qdcache_compile_option_name(i));
  CHECK(names == std::vector<std::string>{"opt_level", "fast_math", "fmad", "debug", "lineinfo", "max_registers",
                                          "link_libdevice", "suppress_debug_info", "cuda_std",
                                          "extra_device_vectorization", "default_device", "relocatable_device_code",
                                          "link_cudadevrt", "link_device_libs", "code_object_version",
                                          "wavefront_size"});
  // Counts that take some values only: a C++ standard, a code object version, a wavefront size.
  const std::map<std::string, std::string> value = {
      {"cuda_std", "17"}, {"code_object_version", "5"}, {"wavefront_size", "64"}};
  for (const std::string& name : names) {
    INFO(name);
    CHECK(qdcache_request_set(request, 0, name.c_str(), value.contains(name) ? value.at(name).c_str() : "1") ==
          QDCACHE_OK);
    std::string dashed = name;
    for (char& c : dashed) c = c == '_' ? '-' : c;
    CHECK(qdcache_request_set(request, 0, dashed.c_str(), "0") == QDCACHE_OK);
  }
  CHECK(qdcache_request_set(request, 0, "max_registers", "256") == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()).find("0..255") != std::string::npos);
  CHECK(qdcache_request_set(request, 0, "cuda_std", "12") == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()).find("0, 11, 14, 17 or 20") != std::string::npos);
  CHECK(qdcache_request_set(request, 0, "wavefront_size", "48") == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()).find("0, 32 or 64") != std::string::npos);
  CHECK(qdcache_request_set(request, 0, "maxregisters", "1") == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()).find("known: opt_level") != std::string::npos);
  qdcache_request_free(request);
}

TEST_CASE("misuse is answered with codes and messages, per thread", "[capi]") {
  CHECK(qdcache_options_create(nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()) == "out is NULL");

  qdcache_options* options = nullptr;
  REQUIRE(qdcache_options_create(&options) == QDCACHE_OK);
  CHECK(std::string(qdcache_last_error()).empty());
  CHECK(qdcache_options_set(options, "no-such-option", "1") == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()) == "option no-such-option: unknown option");
  CHECK(qdcache_options_set(options, "timeout", "soon") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_options_set(options, "spawn", "perhaps") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_options_set(options, "max-message-bytes", "1") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_options_set(options, nullptr, "1") == QDCACHE_INVALID_ARGUMENT);

  // The message belongs to the thread that made the failing call.
  std::string other_thread_message = "unset";
  std::thread([&] {
    CHECK(qdcache_options_set(options, "timeout", "0s") == QDCACHE_INVALID_ARGUMENT);
    other_thread_message = qdcache_last_error();
  }).join();
  CHECK(other_thread_message == "option timeout: must be positive");
  CHECK(std::string(qdcache_last_error()).find("option timeout") == std::string::npos);
  qdcache_options_free(options);

  qdcache_request* request = nullptr;
  REQUIRE(qdcache_request_create(&request) == QDCACHE_OK);
  CHECK(qdcache_request_add_kernel(request, "x", 1, "gpu:sm_90", nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()).find("gpu:sm_90") != std::string::npos);
  CHECK(qdcache_request_add_kernel(request, nullptr, 5, "cpu:x86-64", nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_count(request) == 0);
  CHECK(qdcache_request_set(request, 0, "opt", "2") == QDCACHE_OUT_OF_RANGE);
  REQUIRE(qdcache_request_add_kernel(request, "x", 1, "cpu:x86-64", nullptr) == QDCACHE_OK);
  CHECK(qdcache_request_set(request, 0, "opt", "4") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_set(request, 0, "opt", "2") == QDCACHE_OK);
  CHECK(qdcache_request_set(request, 0, "fast-math", "maybe") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_set(request, 0, "colour", "blue") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_add_entry(request, 1, "k") == QDCACHE_OUT_OF_RANGE);
  CHECK(qdcache_request_add_key_extra(request, 0, "frontend", nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_add_key_extra(request, 0, "frontend", "\xff\xfe") == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()).find("UTF-8") != std::string::npos);
  CHECK(qdcache_request_set(request, 0, "namespace", "\xc3") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_add_entry(request, 0, "\x80") == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_request_count(request) == 1);
  qdcache_request_free(request);

  CHECK(qdcache_results_count(nullptr) == 0);
  CHECK(qdcache_result_cache_status(nullptr, 0) == 0);
  CHECK(std::string(qdcache_result_key(nullptr, 0)).empty());
  const void* payload = nullptr;
  size_t size = 0;
  CHECK(qdcache_result_artifact(nullptr, 0, nullptr, &payload, &size) == QDCACHE_INVALID_ARGUMENT);
  qdcache_cpu_module* module = nullptr;
  CHECK(qdcache_cpu_load("\x7f" "ELF", 4, "bad", &module) == QDCACHE_INVALID_ARGUMENT);
  CHECK(module == nullptr);
  // Freeing NULL is a no-op, as free(NULL) is.
  qdcache_client_free(nullptr);
  qdcache_results_free(nullptr);
  qdcache_cpu_module_free(nullptr);
  qdcache_string_free(nullptr);
}

TEST_CASE("compile, load and run a CPU kernel through the C ABI", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection c(daemon);
  REQUIRE(qdcache_ping(c.client) == QDCACHE_OK);

  const std::string ir = Data("cpu/saxpy.ll");
  qdcache_results* first = CompileOne(c.client, ir, "cpu:x86-64", "saxpy-1", "capi");
  REQUIRE(qdcache_results_count(first) == 1);
  CHECK(qdcache_result_cache_status(first, 0) == QDCACHE_CACHE_COMPILED);
  const char* message = "unset";
  CHECK(qdcache_result_error(first, 0, &message) == QDCACHE_OK);
  CHECK(std::string(message).empty());
  int kind = 0;
  const void* payload = nullptr;
  size_t size = 0;
  REQUIRE(qdcache_result_artifact(first, 0, &kind, &payload, &size) == QDCACHE_OK);
  CHECK(kind == QDCACHE_ARTIFACT_SHARED_OBJECT);
  REQUIRE(size > 4);
  CHECK(std::memcmp(payload, "\x7f" "ELF", 4) == 0);
  const std::string key = qdcache_result_key(first, 0);
  CHECK(key.size() == 64);
  CHECK(std::string(qdcache_result_target(first, 0)) == "cpu:x86-64");
  const void* no_payload = &kind;
  size_t no_size = 1;
  CHECK(qdcache_result_artifact(first, 1, nullptr, &no_payload, &no_size) == QDCACHE_OUT_OF_RANGE);
  CHECK((no_payload == nullptr && no_size == 0));  // outputs are cleared on failure
  char* json = nullptr;
  REQUIRE(qdcache_result_json(first, 0, &json) == QDCACHE_OK);
  nlohmann::json metadata = nlohmann::json::parse(json);
  qdcache_string_free(json);
  CHECK(metadata["status"] == "compiled");
  CHECK(metadata["artifact"]["artifact_key"] == key);
  CHECK(metadata["artifact"]["payload_size"] == size);
  CHECK(!metadata["artifact"].contains("payload"));

  qdcache_cpu_module* module = nullptr;
  REQUIRE(qdcache_cpu_load(payload, size, "saxpy", &module) == QDCACHE_OK);
  qdcache_results_free(first);  // the module has its own copy
  void* address = nullptr;
  CHECK(qdcache_cpu_symbol(module, "nope", &address) == QDCACHE_NOT_FOUND);
  REQUIRE(qdcache_cpu_symbol(module, "saxpy", &address) == QDCACHE_OK);
  auto* saxpy = reinterpret_cast<void (*)(long, float, const float*, float*)>(address);
  std::vector<float> x{1, 2, 3}, y{10, 20, 30};
  saxpy(3, 2.0f, x.data(), y.data());
  CHECK(y == std::vector<float>{12, 24, 36});
  qdcache_cpu_module_free(module);

  // The same kernel again: a hit; by its fast key alone: an alias hit.
  qdcache_results* again = CompileOne(c.client, ir, "cpu:x86-64");
  CHECK(qdcache_result_cache_status(again, 0) == QDCACHE_CACHE_HIT);
  qdcache_results_free(again);
  const void* keys[] = {"saxpy-1", "unknown"};
  const size_t sizes[] = {7, 7};
  qdcache_results* found = nullptr;
  REQUIRE(qdcache_lookup(c.client, "capi", "cpu:x86-64", keys, sizes, 2, 0, &found) == QDCACHE_OK);
  REQUIRE(qdcache_results_count(found) == 2);
  CHECK(qdcache_result_cache_status(found, 0) == QDCACHE_CACHE_ALIAS_HIT);
  CHECK(std::string(qdcache_result_key(found, 0)) == key);
  CHECK(qdcache_result_cache_status(found, 1) == QDCACHE_CACHE_MISS);
  CHECK(qdcache_result_artifact(found, 1, nullptr, &no_payload, &no_size) == QDCACHE_NOT_FOUND);
  qdcache_results_free(found);

  char* stats = nullptr;
  REQUIRE(qdcache_stats_json(c.client, 0, &stats) == QDCACHE_OK);
  nlohmann::json s = nlohmann::json::parse(stats);
  qdcache_string_free(stats);
  CHECK(s["compiles"] == 1);
  CHECK(s["hits"] == 1);
  CHECK(s["alias_hits"] == 1);
  CHECK(s["misses"] == 1);
  CHECK(s["toolchain"].get<std::string>().size() == 64);
}

TEST_CASE("a failing item is reported in its result, the others are served", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection c(daemon);
  qdcache_results* results = CompileGoodBadGood(c.client, "missing_kernel");
  REQUIRE(qdcache_results_count(results) == 3);
  const char* message = nullptr;
  CHECK(qdcache_result_error(results, 0, &message) == QDCACHE_OK);
  CHECK(qdcache_result_error(results, 1, &message) == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(message).find("IR") != std::string::npos);
  CHECK(std::string(qdcache_last_error()) == message);  // the item's message is the last error too
  CHECK(qdcache_result_cache_status(results, 1) == QDCACHE_CACHE_ERROR);
  CHECK(qdcache_result_error(results, 2, &message) != QDCACHE_OK);
  CHECK(std::string(message).find("missing_kernel") != std::string::npos);
  qdcache_results_free(results);
}

TEST_CASE("ABI 1.7: every item at once says what the per-item calls say", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection c(daemon);
  qdcache_results* results = CompileGoodBadGood(c.client, nullptr);
  REQUIRE(qdcache_results_count(results) == 3);

  // A caller compiled against a later ABI passes a longer struct: its stride
  // is honoured and the fields this library does not know are left alone.
  struct Longer {
    qdcache_item item;
    std::uint64_t later_field;
  };
  std::vector<Longer> items(3, Longer{{}, 0x5555});
  REQUIRE(qdcache_results_items(results, 0, 3, &items[0].item, sizeof(Longer)) == QDCACHE_OK);
  for (size_t i = 0; i < 3; ++i) {
    INFO("item " << i);
    const qdcache_item& item = items[i].item;
    CHECK(items[i].later_field == 0x5555);
    CHECK(item.cache_status == qdcache_result_cache_status(results, i));
    CHECK(item.error_code == qdcache_result_error(results, i, nullptr));
    int kind = 0;
    const void* payload = nullptr;
    size_t size = 0;
    (void)qdcache_result_artifact(results, i, &kind, &payload, &size);
    CHECK(item.kind == kind);
    CHECK(item.payload == payload);  // the same bytes, not a copy
    CHECK(item.payload_size == size);
  }
  // Items 0 and 2 are one kernel: one compiles, the other joins it (which
  // one leads is the engine's race to settle).
  CHECK(std::multiset<int>{items[0].item.cache_status, items[2].item.cache_status} ==
        std::multiset<int>{QDCACHE_CACHE_COMPILED, QDCACHE_CACHE_COALESCED});
  CHECK(items[0].item.kind == QDCACHE_ARTIFACT_SHARED_OBJECT);
  CHECK(items[1].item.error_code == QDCACHE_INVALID_ARGUMENT);
  CHECK((items[1].item.payload == nullptr && items[1].item.payload_size == 0 && items[1].item.kind == 0));

  // A window; then the misuses, which write nothing.
  qdcache_item one{};
  REQUIRE(qdcache_results_items(results, 2, 1, &one, sizeof(one)) == QDCACHE_OK);
  CHECK(one.payload == items[2].item.payload);
  qdcache_item untouched{};
  untouched.kind = 99;
  CHECK(qdcache_results_items(results, 2, 2, &untouched, sizeof(untouched)) == QDCACHE_OUT_OF_RANGE);
  CHECK(std::string(qdcache_last_error()).find("pass the end of results of 3") != std::string::npos);
  CHECK(qdcache_results_items(results, SIZE_MAX, 2, &untouched, sizeof(untouched)) == QDCACHE_OUT_OF_RANGE);
  CHECK(untouched.kind == 99);
  CHECK(qdcache_results_items(results, 0, 1, &untouched, sizeof(untouched) - 1) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_results_items(results, 0, 1, nullptr, sizeof(untouched)) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_results_items(nullptr, 0, 1, &untouched, sizeof(untouched)) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_results_items(results, 3, 0, nullptr, sizeof(untouched)) == QDCACHE_OK);  // nothing asked
  CHECK(untouched.kind == 99);
  qdcache_results_free(results);
}

TEST_CASE("ABI 1.8: lookups over the lean transport answer what gRPC answers", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection lean(daemon, "1"), grpc(daemon, "0");
  const std::string saxpy = Data("cpu/saxpy.ll");
  qdcache_results_free(CompileOne(lean.client, saxpy, "cpu:x86-64", "k0", "abi18"));
  const char* keys[] = {"k0", "absent", "", "k0"};
  const void* key_data[4];
  size_t key_sizes[4];
  for (int i = 0; i < 4; ++i) {
    key_data[i] = keys[i];
    key_sizes[i] = std::strlen(keys[i]);
  }
  qdcache_results* answers[2] = {};
  qdcache_client* clients[2] = {lean.client, grpc.client};
  for (int c = 0; c < 2; ++c) {
    REQUIRE(qdcache_lookup(clients[c], "abi18", "cpu:x86-64", key_data, key_sizes, 4, 0, &answers[c]) == QDCACHE_OK);
    REQUIRE(qdcache_results_count(answers[c]) == 4);
  }
  for (size_t i = 0; i < 4; ++i) {
    INFO("item " << i);
    qdcache_item a{}, b{};
    REQUIRE(qdcache_results_items(answers[0], i, 1, &a, sizeof a) == QDCACHE_OK);
    REQUIRE(qdcache_results_items(answers[1], i, 1, &b, sizeof b) == QDCACHE_OK);
    CHECK(a.cache_status == b.cache_status);
    CHECK(a.kind == b.kind);
    CHECK(a.error_code == b.error_code);
    REQUIRE(a.payload_size == b.payload_size);
    if (a.payload_size > 0) CHECK(std::memcmp(a.payload, b.payload, a.payload_size) == 0);
    CHECK(std::string(qdcache_result_key(answers[0], i)) == qdcache_result_key(answers[1], i));
    CHECK(std::string(qdcache_result_target(answers[0], i)) == qdcache_result_target(answers[1], i));
    const char* messages[2] = {};
    CHECK(qdcache_result_error(answers[0], i, &messages[0]) == qdcache_result_error(answers[1], i, &messages[1]));
    CHECK(std::string(messages[0]) == messages[1]);
    CHECK(qdcache_result_dependency_count(answers[0], i) == qdcache_result_dependency_count(answers[1], i));
  }
  // Everything else a result holds, as JSON (libqdcache.so hands the lean
  // answer to the full library for it): the same.
  for (size_t i = 0; i < 4; ++i) {
    INFO("item " << i);
    char* json[2] = {};
    REQUIRE(qdcache_result_json(answers[0], i, &json[0]) == QDCACHE_OK);
    REQUIRE(qdcache_result_json(answers[1], i, &json[1]) == QDCACHE_OK);
    CHECK(nlohmann::json::parse(json[0]) == nlohmann::json::parse(json[1]));
    for (char* j : json) qdcache_string_free(j);
  }
  qdcache_item hit{};
  REQUIRE(qdcache_results_items(answers[0], 0, 1, &hit, sizeof hit) == QDCACHE_OK);
  CHECK(hit.cache_status == QDCACHE_CACHE_ALIAS_HIT);
  CHECK(hit.payload_size > 0);
  for (qdcache_results* r : answers) qdcache_results_free(r);

  qdcache_options* options = nullptr;
  REQUIRE(qdcache_options_create(&options) == QDCACHE_OK);
  CHECK(qdcache_options_set(options, "lean", "perhaps") == QDCACHE_INVALID_ARGUMENT);
  qdcache_options_free(options);
}

TEST_CASE("one client handle serves many threads", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection c(daemon);
  const std::string ir = Data("cpu/saxpy.ll");
  std::vector<std::string> keys(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      qdcache_request* request = nullptr;
      size_t index = 0;
      std::string extra = std::to_string(t % 2);
      if (qdcache_request_create(&request) != QDCACHE_OK) return;
      qdcache_results* results = nullptr;
      if (qdcache_request_add_kernel(request, ir.data(), ir.size(), "cpu:x86-64", &index) == QDCACHE_OK &&
          qdcache_request_add_key_extra(request, index, "variant", extra.c_str()) == QDCACHE_OK &&
          qdcache_compile(c.client, request, &results) == QDCACHE_OK) {
        keys[t] = qdcache_result_key(results, 0);
      }
      qdcache_results_free(results);
      qdcache_request_free(request);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 8; ++t) {
    CHECK(keys[t].size() == 64);
    CHECK(keys[t] == keys[t % 2]);
  }
  CHECK(keys[0] != keys[1]);
}

TEST_CASE("no daemon: calls fail UNAVAILABLE with the socket named", "[capi]") {
  TempDir dir;
  qdcache_options* options = nullptr;
  REQUIRE(qdcache_options_create(&options) == QDCACHE_OK);
  const std::string socket = dir / "none.sock";
  REQUIRE(qdcache_options_set(options, "socket", socket.c_str()) == QDCACHE_OK);
  REQUIRE(qdcache_options_set(options, "spawn", "0") == QDCACHE_OK);
  REQUIRE(qdcache_options_set(options, "timeout", "5s") == QDCACHE_OK);
  qdcache_client* client = nullptr;
  REQUIRE(qdcache_connect(options, &client) == QDCACHE_OK);
  qdcache_options_free(options);
  CHECK(qdcache_ping(client) == QDCACHE_UNAVAILABLE);
  char* stats = nullptr;
  CHECK(qdcache_stats_json(client, 0, &stats) == QDCACHE_UNAVAILABLE);
  CHECK(stats == nullptr);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains("none.sock"));
  qdcache_client_free(client);
}

TEST_CASE("ABI 1.4: a hex fast-key option, commands and explain as JSON, the daemon's version", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection c(daemon);
  const std::string ir = Data("cpu/saxpy.ll");
  qdcache_request* request = nullptr;
  REQUIRE(qdcache_request_create(&request) == QDCACHE_OK);
  size_t index = 0;
  REQUIRE(qdcache_request_add_kernel(request, ir.data(), ir.size(), "cpu:x86-64", &index) == QDCACHE_OK);
  // Text that is not hex is refused and leaves the kernel without a fast key.
  CHECK(qdcache_request_set(request, index, "fast-key", "c0ffee0") == QDCACHE_INVALID_ARGUMENT);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains("not an even-length hex string"));
  REQUIRE(qdcache_request_set(request, index, "fast-key", "C0FFEE01") == QDCACHE_OK);
  REQUIRE(qdcache_request_set(request, index, "namespace", "n") == QDCACHE_OK);
  // Explain leaves the request as it was.
  char* explained = nullptr;
  REQUIRE(qdcache_explain_json(c.client, request, &explained) == QDCACHE_OK);
  const nlohmann::json explanation = nlohmann::json::parse(explained);
  qdcache_string_free(explained);
  // ... which the compile of the same request shows: the same key below.
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_compile(c.client, request, &results) == QDCACHE_OK);
  qdcache_request_free(request);
  const std::string key = qdcache_result_key(results, 0);
  CHECK(explanation["explanations"][0]["artifact_key"] == key);
  char* metadata = nullptr;
  REQUIRE(qdcache_result_json(results, 0, &metadata) == QDCACHE_OK);
  CHECK_FALSE(nlohmann::json::parse(metadata)["artifact"]["entries"][0].contains("registers"));  // unknown: absent
  qdcache_string_free(metadata);
  qdcache_results_free(results);
  // The alias is under the key's bytes.
  const char raw[] = "\xc0\xff\xee\x01";
  const void* keys[] = {raw};
  const size_t sizes[] = {4};
  REQUIRE(qdcache_lookup(c.client, "n", "cpu:x86-64", keys, sizes, 1, 0, &results) == QDCACHE_OK);
  CHECK(std::string(qdcache_result_key(results, 0)) == key);
  qdcache_results_free(results);
  // Commands answer what the CLI's --json prints.
  char* json = nullptr;
  REQUIRE(qdcache_command_json(c.client, "ls", "{\"aliases\": true}", &json) == QDCACHE_OK);
  const nlohmann::json aliases = nlohmann::json::parse(json);
  qdcache_string_free(json);
  REQUIRE(aliases["aliases"].size() == 1);
  CHECK(aliases["aliases"][0]["fast_key"] == "c0ffee01");
  REQUIRE(qdcache_command_json(c.client, "inspect", ("{\"key\": \"" + key.substr(0, 10) + "\"}").c_str(), &json) ==
          QDCACHE_OK);
  CHECK(nlohmann::json::parse(json)["artifact_key"] == key);
  qdcache_string_free(json);
  CHECK(qdcache_command_json(c.client, "lss", nullptr, &json) == QDCACHE_INVALID_ARGUMENT);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains("unknown command \"lss\""));
  CHECK(json == nullptr);
  CHECK(qdcache_command_json(c.client, "ls", "{\"limt\": 1}", &json) == QDCACHE_INVALID_ARGUMENT);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains("unknown argument \"limt\""));
  CHECK(qdcache_command_json(c.client, "ls", "{\"limit\": \"one\"}", &json) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_command_json(c.client, "ls", "not json", &json) == QDCACHE_INVALID_ARGUMENT);
  char* version = nullptr;
  REQUIRE(qdcache_daemon_version(c.client, &version) == QDCACHE_OK);
  CHECK(std::string(version) == qdcache_version());
  qdcache_string_free(version);
}

TEST_CASE("dependencies through the C ABI: declared, returned by lookups, checked against files",
          "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Connection c(daemon);
  const std::string file = dir.path() + "/kernel.py";
  qdcache::testing::WriteFileOrDie(file, "BLOCK = 128\n");
  unsigned char digest[32];
  REQUIRE(qdcache_file_sha256(file.c_str(), digest) == QDCACHE_OK);
  CHECK(qdcache_file_sha256((dir.path() + "/missing").c_str(), digest) == QDCACHE_NOT_FOUND);

  qdcache_request* request = nullptr;
  REQUIRE(qdcache_request_create(&request) == QDCACHE_OK);
  const std::string ir = "define i64 @block() {\n  ret i64 128\n}\n";
  REQUIRE(qdcache_request_add_kernel(request, ir.data(), ir.size(), "cpu:x86-64", nullptr) == QDCACHE_OK);
  REQUIRE(qdcache_request_set_fast_key(request, 0, "fk", 2) == QDCACHE_OK);
  REQUIRE(qdcache_request_set(request, 0, "alias-policy", "strict") == QDCACHE_OK);
  CHECK(qdcache_request_set(request, 0, "alias-policy", "lenient") == QDCACHE_INVALID_ARGUMENT);
  REQUIRE(qdcache_request_add_dependency(request, 0, file.c_str(), digest, sizeof digest) == QDCACHE_OK);
  qdcache_results* compiled = nullptr;
  REQUIRE(qdcache_compile(c.client, request, &compiled) == QDCACHE_OK);
  REQUIRE(qdcache_result_cache_status(compiled, 0) == QDCACHE_CACHE_COMPILED);
  qdcache_results_free(compiled);
  qdcache_request_free(request);

  auto lookup = [&] {
    const void* keys[] = {"fk"};
    const size_t sizes[] = {2};
    qdcache_results* out = nullptr;
    REQUIRE(qdcache_lookup(c.client, "", "cpu:x86-64", keys, sizes, 1, 0, &out) == QDCACHE_OK);
    return out;
  };
  qdcache_results* hit = lookup();
  REQUIRE(qdcache_result_dependency_count(hit, 0) == 1);
  const char* name = nullptr;
  const void* stored = nullptr;
  size_t size = 0;
  REQUIRE(qdcache_result_dependency(hit, 0, 0, &name, &stored, &size) == QDCACHE_OK);
  CHECK(std::string(name) == file);
  CHECK(std::string(static_cast<const char*>(stored), size) == std::string(reinterpret_cast<char*>(digest), 32));
  CHECK(qdcache_result_dependency(hit, 0, 1, &name, &stored, &size) == QDCACHE_OUT_OF_RANGE);
  size_t stale = 99;
  REQUIRE(qdcache_results_check_dependencies(hit, qdcache_dependency_file_unchanged, nullptr, &stale) == QDCACHE_OK);
  CHECK(stale == 0);
  CHECK(qdcache_result_cache_status(hit, 0) == QDCACHE_CACHE_ALIAS_HIT);
  qdcache_results_free(hit);

  qdcache::testing::WriteFileOrDie(file, "BLOCK = 256\n");
  qdcache_results* changed = lookup();
  REQUIRE(qdcache_results_check_dependencies(changed, qdcache_dependency_file_unchanged, nullptr, &stale) ==
          QDCACHE_OK);
  CHECK(stale == 1);
  CHECK(qdcache_result_cache_status(changed, 0) == QDCACHE_CACHE_MISS);
  CHECK(std::string(qdcache_result_key(changed, 0)).empty());
  qdcache_results_free(changed);
}

// The HIP launcher (ABI 1.6) as far as this machine goes: with no AMD GPU
// (or no runtime) every call says so, and misuse is answered before that.
TEST_CASE("ABI 1.6: HIP calls answer misuse with codes and say why there is no AMD GPU", "[capi]") {
  CHECK(QDCACHE_ABI_VERSION_MINOR >= 6);
  CHECK(QDCACHE_ARTIFACT_HSA_CODE_OBJECT == 3);
  qdcache_hip_module* module = nullptr;
  CHECK(qdcache_hip_load(nullptr, 4, 0, &module) == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(qdcache_last_error()) == "image is NULL");
  CHECK(qdcache_hip_load("\x7f" "ELF", 4, 0, nullptr) == QDCACHE_INVALID_ARGUMENT);
  const uint32_t dims[3] = {1, 1, 1};
  CHECK(qdcache_hip_launch(nullptr, "k", dims, dims, 0, nullptr, nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_hip_device_count(nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_hip_buffer_create(64, 0, nullptr) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_hip_buffer_write(nullptr, "x", 1) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_hip_buffer_read(nullptr, nullptr, 0) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_hip_buffer_address(nullptr) == 0);
  qdcache_hip_module_free(nullptr);
  qdcache_hip_buffer_free(nullptr);

  const qdcache_status available = qdcache_hip_available();
  const std::string why = qdcache_last_error();
  if (available == QDCACHE_OK) {
    WARN("an AMD GPU is present: the calls below need none");
    int count = 0;
    CHECK(qdcache_hip_device_count(&count) == QDCACHE_OK);
    CHECK(count > 0);
    return;
  }
  CHECK(available == QDCACHE_UNAVAILABLE);
  INFO(why);
  CHECK((why.find("no AMD GPU") != std::string::npos || why.find("no HIP runtime") != std::string::npos));
  // Whatever the bytes (here a truncated ELF header), the runtime comes first, as for CUDA.
  module = reinterpret_cast<qdcache_hip_module*>(&module);
  CHECK(qdcache_hip_load("\x7f" "ELF\x02\x01\x01", 7, 0, &module) == QDCACHE_UNAVAILABLE);
  CHECK(module == nullptr);  // cleared on failure
  CHECK(std::string(qdcache_last_error()) == why);
  qdcache_hip_buffer* buffer = nullptr;
  CHECK(qdcache_hip_buffer_create(64, 0, &buffer) == QDCACHE_UNAVAILABLE);
  CHECK(buffer == nullptr);
  CHECK(qdcache_hip_synchronize(0) == QDCACHE_UNAVAILABLE);
}

// Child side of the next case: $QDCACHE_HIP_LIBRARY names a library that
// does not exist.
TEST_CASE("HIP missing-runtime child (run by the case below only)", "[.capi_hip_missing_child]") {
  const char* library = std::getenv("QDCACHE_HIP_LIBRARY");
  REQUIRE(library != nullptr);
  CHECK(qdcache_hip_available() == QDCACHE_UNAVAILABLE);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains(library));
  int count = -1;
  CHECK(qdcache_hip_device_count(&count) == QDCACHE_UNAVAILABLE);
  CHECK(count == 0);
  qdcache_hip_module* module = nullptr;
  CHECK(qdcache_hip_load("not an ELF", 10, 0, &module) == QDCACHE_UNAVAILABLE);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains(library));
  qdcache_hip_buffer* buffer = nullptr;
  CHECK(qdcache_hip_buffer_create(64, 0, &buffer) == QDCACHE_UNAVAILABLE);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains(library));
}

TEST_CASE("ABI 1.6: a missing HIP runtime is UNAVAILABLE naming the library", "[capi]") {
  // The runtime is chosen once per process: a child (this binary on the
  // hidden case above) gets the variable.
  TempDir dir;
  const std::string missing = dir / "no-rocm/libamdhip64.so";
  const qdcache::testing::RunResult child =
      qdcache::testing::Run({"/proc/self/exe", "[.capi_hip_missing_child]"}, {"QDCACHE_HIP_LIBRARY=" + missing});
  INFO(child.out << child.err);
  CHECK(child.exit_code == 0);
}

namespace {

// Whether a shared object whose path contains `name` is mapped in this process.
bool Mapped(const std::string& name) {
  return ReadFileOrDie("/proc/self/maps").find(name) != std::string::npos;
}

}  // namespace

TEST_CASE("a warm start through libqdcache.so loads neither gRPC nor the full library", "[capi][integration]") {
  // Each test case runs in a process of its own (ctest): nothing here has
  // loaded libqdcache-full.so yet. The kernel is compiled by the CLI.
  REQUIRE_FALSE(Mapped("libqdcache-full"));
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ll = std::string(QDCACHE_TEST_DATA) + "/cpu/saxpy.ll";
  const qdcache::testing::RunResult compiled =
      qdcache::testing::Run({QDCACHE_CLI_BINARY, "--socket", daemon.socket_path(), "compile", "--target",
                             "cpu:x86-64", "--fast-key", "c0ffee01", "--namespace", "warm", ll});
  INFO(compiled.out << compiled.err);
  REQUIRE(compiled.exit_code == 0);

  Connection c(daemon);
  const unsigned char key[] = {0xc0, 0xff, 0xee, 0x01};
  const void* keys[] = {key, "absent"};
  const size_t sizes[] = {sizeof key, 6};
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_lookup(c.client, "warm", "cpu:x86-64", keys, sizes, 2, 0, &results) == QDCACHE_OK);
  qdcache_item items[2] = {};
  REQUIRE(qdcache_results_items(results, 0, 2, items, sizeof items[0]) == QDCACHE_OK);
  CHECK(items[0].cache_status == QDCACHE_CACHE_ALIAS_HIT);
  CHECK(items[0].kind == QDCACHE_ARTIFACT_SHARED_OBJECT);
  CHECK(reinterpret_cast<std::uintptr_t>(items[0].payload) % 64 == 0);
  CHECK(items[1].cache_status == QDCACHE_CACHE_MISS);
  const std::string key_hex = qdcache_result_key(results, 0);
  CHECK(key_hex.size() == 64);
  CHECK(std::string(qdcache_result_target(results, 0)) == "cpu:x86-64");
  CHECK(std::string(qdcache_result_key(results, 1)).empty());
  const char* message = nullptr;
  CHECK(qdcache_result_error(results, 1, &message) == QDCACHE_OK);
  CHECK(std::string(message).empty());
  CHECK(qdcache_result_dependency_count(results, 0) == 0);
  // The artifact runs from its view into the daemon's memfd.
  qdcache_cpu_module* module = nullptr;
  REQUIRE(qdcache_cpu_load(items[0].payload, items[0].payload_size, "saxpy", &module) == QDCACHE_OK);
  void* saxpy = nullptr;
  CHECK(qdcache_cpu_symbol(module, "saxpy", &saxpy) == QDCACHE_OK);
  CHECK(saxpy != nullptr);
  qdcache_cpu_module_free(module);
  CHECK_FALSE(Mapped("libqdcache-full"));
  // Nor does libqdcache.so itself need gRPC, protobuf or abseil (this test
  // program may map them: the sanitized build's links gRPC for its support code).
  const qdcache::testing::RunResult dynamic = qdcache::testing::Run({qdcache::testing::FindOnPath("readelf"), "-d", QDCACHE_C_LIBRARY});
  REQUIRE(dynamic.exit_code == 0);
  CHECK_THAT(dynamic.out, Catch::Contains("(NEEDED)") && Catch::Contains("libc.so"));
  for (const char* heavy : {"grpc", "protobuf", "absl", "libqdcache-full"}) CHECK_THAT(dynamic.out, !Catch::Contains(heavy));

  // What only the full library reads: loaded for it, answering about the same item.
  char* json = nullptr;
  REQUIRE(qdcache_result_json(results, 0, &json) == QDCACHE_OK);
  CHECK(Mapped("libqdcache-full"));
  const nlohmann::json item = nlohmann::json::parse(json);
  qdcache_string_free(json);
  CHECK(item["status"] == "alias_hit");
  CHECK(item["artifact"]["artifact_key"] == key_hex);
  CHECK(item["artifact"]["payload_size"] == items[0].payload_size);
  // Read from the full library now, the same as before.
  CHECK(std::string(qdcache_result_key(results, 0)) == key_hex);
  const void* payload = nullptr;
  size_t payload_size = 0;
  REQUIRE(qdcache_result_artifact(results, 0, nullptr, &payload, &payload_size) == QDCACHE_OK);
  REQUIRE(payload_size == items[0].payload_size);
  CHECK(std::memcmp(payload, items[0].payload, payload_size) == 0);
  qdcache_results_free(results);
}

TEST_CASE("libqdcache.so without its full library (run by the case below only)", "[.capi_no_full_child]") {
  const char* socket = std::getenv("QDCACHE_SOCKET");
  REQUIRE(socket != nullptr);
  CHECK(qdcache_abi_version() == QDCACHE_ABI_VERSION);
  qdcache_client* client = nullptr;
  REQUIRE(qdcache_connect(nullptr, &client) == QDCACHE_OK);
  // A lookup is served without it...
  const void* keys[] = {"k"};
  const size_t sizes[] = {1};
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_lookup(client, "ns", "cpu:x86-64", keys, sizes, 1, 0, &results) == QDCACHE_OK);
  CHECK(qdcache_result_cache_status(results, 0) == QDCACHE_CACHE_MISS);
  qdcache_results_free(results);
  // ...and what needs it says what is missing, each time.
  for (int i = 0; i < 2; ++i) {
    CHECK(qdcache_ping(client) == QDCACHE_FAILED_PRECONDITION);
    CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains("qdcache/libqdcache-full.so.1") &&
                                                      Catch::Contains("cannot be loaded"));
  }
  qdcache_request* request = nullptr;
  CHECK(qdcache_request_create(&request) == QDCACHE_FAILED_PRECONDITION);
  CHECK(request == nullptr);
  CHECK(qdcache_compile_option_name(0) == nullptr);
  qdcache_client_free(client);
}

TEST_CASE("libqdcache.so without its full library looks up, and says what else is missing", "[capi][integration]") {
  // A copy of libqdcache.so.1 alone in a folder, found first by a child (this binary).
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string lonely = dir / "lonely";
  REQUIRE(qdcache::testing::Run({"/bin/mkdir", lonely}).exit_code == 0);
  REQUIRE(qdcache::testing::Run({"/bin/cp", "-L", QDCACHE_C_LIBRARY, lonely + "/libqdcache.so.1"}).exit_code == 0);
  const qdcache::testing::RunResult child = qdcache::testing::Run(
      {"/proc/self/exe", "[.capi_no_full_child]"},
      {"LD_LIBRARY_PATH=" + lonely, "QDCACHE_SOCKET=" + daemon.socket_path(), "QDCACHE_ADDR", "QDCACHE_AUTOSPAWN=0"});
  INFO(child.out << child.err);
  CHECK(child.exit_code == 0);
}

TEST_CASE("a client compiles where it looks up whatever the environment says later", "[capi][integration]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  // This process's environment, restored for the cases after this one
  // (when they share the process).
  struct Restore {
    std::optional<std::string> socket, addr;
    static std::optional<std::string> Get(const char* name) {
      const char* v = std::getenv(name);
      return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
    }
    static void Put(const char* name, const std::optional<std::string>& v) {
      if (v) ::setenv(name, v->c_str(), 1); else ::unsetenv(name);
    }
    ~Restore() {
      Put("QDCACHE_SOCKET", socket);
      Put("QDCACHE_ADDR", addr);
    }
  } restore{Restore::Get("QDCACHE_SOCKET"), Restore::Get("QDCACHE_ADDR")};
  REQUIRE(::setenv("QDCACHE_SOCKET", daemon.socket_path().c_str(), 1) == 0);
  ::unsetenv("QDCACHE_ADDR");
  qdcache_client* client = nullptr;
  REQUIRE(qdcache_connect(nullptr, &client) == QDCACHE_OK);
  // Resolved at connect, for the lookups and for the full library's client
  // made later: a socket named afterwards is not it.
  const std::string elsewhere = dir / "elsewhere.sock";
  REQUIRE(::setenv("QDCACHE_SOCKET", elsewhere.c_str(), 1) == 0);
  CHECK(qdcache_ping(client) == QDCACHE_OK);
  qdcache_results_free(CompileOne(client, Data("cpu/saxpy.ll"), "cpu:x86-64", "k", "pinned"));
  const void* keys[] = {"k"};
  const size_t sizes[] = {1};
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_lookup(client, "pinned", "cpu:x86-64", keys, sizes, 1, 0, &results) == QDCACHE_OK);
  CHECK(qdcache_result_cache_status(results, 0) == QDCACHE_CACHE_ALIAS_HIT);
  qdcache_results_free(results);
  qdcache_client_free(client);
}

TEST_CASE("ABI 1.7: results read from bytes without the full library", "[capi]") {
  qdcache_results* results = nullptr;
  REQUIRE(qdcache_results_parse("", 0, &results) == QDCACHE_OK);
  CHECK(qdcache_results_count(results) == 0);
  qdcache_results_free(results);
  // A hit whose artifact carries no payload (a lean answer's), then an error.
  const std::string key(32, '\x9c');
  std::string artifact = std::string("\x08\x02\x12\x20", 4) + key + "\x32\x0a" + "cpu:x86-64";
  std::string hit = std::string("\x08\x04\x12", 3) + static_cast<char>(artifact.size()) + artifact;
  std::string error = std::string("\x08\x07\x1a\x07\x08\x03\x12\x03", 8) + "bad";
  std::string bytes = std::string("\x0a", 1) + static_cast<char>(hit.size()) + hit + "\x0a" +
                      static_cast<char>(error.size()) + error;
  REQUIRE(qdcache_results_parse(bytes.data(), bytes.size(), &results) == QDCACHE_OK);
  REQUIRE(qdcache_results_count(results) == 2);
  CHECK(qdcache_result_cache_status(results, 0) == QDCACHE_CACHE_ALIAS_HIT);
  std::string key_hex;
  for (int i = 0; i < 32; ++i) key_hex += "9c";
  CHECK(std::string(qdcache_result_key(results, 0)) == key_hex);
  CHECK(std::string(qdcache_result_target(results, 0)) == "cpu:x86-64");
  int kind = 0;
  const void* payload = nullptr;
  size_t size = 1;
  CHECK(qdcache_result_artifact(results, 0, &kind, &payload, &size) == QDCACHE_OK);
  CHECK(kind == QDCACHE_ARTIFACT_SHARED_OBJECT);
  CHECK(size == 0);
  const char* message = nullptr;
  CHECK(qdcache_result_error(results, 1, &message) == QDCACHE_INVALID_ARGUMENT);
  CHECK(std::string(message) == "bad");
  qdcache_results_free(results);
  CHECK_FALSE(Mapped("libqdcache-full"));

  CHECK(qdcache_results_parse("\x0f", 1, &results) == QDCACHE_INVALID_ARGUMENT);
  CHECK(results == nullptr);
  CHECK_THAT(std::string(qdcache_last_error()), Catch::Contains("not a serialized qdcache.v1.LookupResponse"));
  CHECK(qdcache_results_parse(nullptr, 3, &results) == QDCACHE_INVALID_ARGUMENT);
  CHECK(qdcache_results_parse("", 0, nullptr) == QDCACHE_INVALID_ARGUMENT);
}

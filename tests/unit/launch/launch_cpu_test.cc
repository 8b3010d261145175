// CpuModule: shared objects loaded from memory, and clear refusals of bytes
// that are not a loadable shared object for this machine.
#include "client/launch_cpu.h"

#include <elf.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/subprocess.h"

#ifndef QDCACHE_LAUNCH_FIXTURE
#error "QDCACHE_LAUNCH_FIXTURE must name the fixture shared object"
#endif
#ifndef QDCACHE_LAUNCH_FIXTURE_UNDEFINED
#error "QDCACHE_LAUNCH_FIXTURE_UNDEFINED must name the broken fixture shared object"
#endif

namespace qdcache::client {
namespace {

const std::string& FixtureBytes() {
  static const std::string bytes = testing::ReadFileOrDie(QDCACHE_LAUNCH_FIXTURE);
  return bytes;
}

CpuModule LoadOrFail(std::string_view bytes, std::string_view name) {
  auto module = CpuModule::Load(bytes, name);
  INFO(module.status().ToString());
  REQUIRE(module.ok());
  return std::move(module).value();
}

template <typename Fn>
Fn SymbolOrFail(const CpuModule& module, std::string_view name) {
  auto symbol = module.Symbol(name);
  INFO(symbol.status().ToString());
  REQUIRE(symbol.ok());
  return reinterpret_cast<Fn>(*symbol);
}

std::size_t OpenFdCount() {
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd");
       it != std::filesystem::directory_iterator(); ++it) {
    ++n;
  }
  return n;
}

std::string Maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_CASE("a shared object loads from memory and its functions run", "[launch][cpu]") {
  CpuModule module = LoadOrFail(FixtureBytes(), "fixture");
  auto add = SymbolOrFail<int (*)(int, int)>(module, "qdcache_fixture_add");
  CHECK(add(2, 3) == 5);
  CHECK(module.name() == "fixture");
}

TEST_CASE("loading maps an in-memory file and leaves no descriptor open", "[launch][cpu]") {
  const std::size_t fds_before = OpenFdCount();
  CpuModule module = LoadOrFail(FixtureBytes(), "maps-check");
  CHECK(OpenFdCount() == fds_before);
  CHECK(Maps().find("memfd:qdcache:maps-check") != std::string::npos);
}

TEST_CASE("two loads of the same bytes are independent instances", "[launch][cpu]") {
  // The second load reuses the first one's closed descriptor number; it must
  // still get its own copy, not the module already loaded under that path.
  CpuModule first = LoadOrFail(FixtureBytes(), "first");
  auto next_first = SymbolOrFail<int (*)()>(first, "qdcache_fixture_next");
  CHECK(next_first() == 1);
  CHECK(next_first() == 2);

  CpuModule second = LoadOrFail(FixtureBytes(), "second");
  auto next_second = SymbolOrFail<int (*)()>(second, "qdcache_fixture_next");
  CHECK(next_second() == 1);
  CHECK(next_first() == 3);

  CpuModule third = LoadOrFail(FixtureBytes(), "third");
  CHECK(SymbolOrFail<int (*)()>(third, "qdcache_fixture_next")() == 1);
}

TEST_CASE("a missing symbol is NotFound with the loader's text", "[launch][cpu]") {
  CpuModule module = LoadOrFail(FixtureBytes(), "fixture");
  auto symbol = module.Symbol("qdcache_no_such_symbol");
  REQUIRE_FALSE(symbol.ok());
  CHECK(symbol.status().code() == Code::kNotFound);
  CHECK(symbol.status().message().find("qdcache_no_such_symbol") != std::string::npos);
}

TEST_CASE("a module moved from no longer resolves symbols, and the moved-to one does",
          "[launch][cpu]") {
  CpuModule a = LoadOrFail(FixtureBytes(), "movable");
  CpuModule b = std::move(a);
  CHECK(a.Symbol("qdcache_fixture_add").status().code() == Code::kFailedPrecondition);  // NOLINT
  CHECK(b.Symbol("qdcache_fixture_add").ok());
  CpuModule c = LoadOrFail(FixtureBytes(), "other");
  c = std::move(b);
  CHECK(c.name() == "movable");
  CHECK(SymbolOrFail<int (*)(int, int)>(c, "qdcache_fixture_add")(4, 5) == 9);
}

TEST_CASE("an unresolvable dependency fails with dlerror text", "[launch][cpu]") {
  const std::string bytes = testing::ReadFileOrDie(QDCACHE_LAUNCH_FIXTURE_UNDEFINED);
  auto module = CpuModule::Load(bytes, "broken");
  REQUIRE_FALSE(module.ok());
  CHECK(module.status().code() == Code::kFailedPrecondition);
  CHECK(module.status().message().find("qdcache_fixture_symbol_that_exists_nowhere") !=
        std::string::npos);
}

TEST_CASE("bytes that are not an ELF shared object are refused before dlopen", "[launch][cpu]") {
  auto expect_refused = [](std::string_view bytes, std::string_view why) {
    auto module = CpuModule::Load(bytes, "bad");
    REQUIRE_FALSE(module.ok());
    INFO(module.status().ToString());
    CHECK(module.status().code() == Code::kInvalidArgument);
    CHECK(module.status().message().find("not a loadable ELF shared object") != std::string::npos);
    CHECK(module.status().message().find(why) != std::string::npos);
  };

  SECTION("empty") { expect_refused("", "ELF magic"); }
  SECTION("text") { expect_refused("this is not an ELF file at all, just text", "ELF magic"); }
  SECTION("truncated to the header") {
    expect_refused(std::string_view(FixtureBytes()).substr(0, sizeof(Elf64_Ehdr)), "truncated");
  }
  SECTION("truncated to half") {
    expect_refused(std::string_view(FixtureBytes()).substr(0, FixtureBytes().size() / 2),
                   "truncated");
  }
  SECTION("truncated inside the ELF header") {
    expect_refused(std::string_view(FixtureBytes()).substr(0, 20), "truncated ELF header");
  }
  SECTION("an executable, not a shared object") {
    std::string bytes = FixtureBytes();
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    eh.e_type = ET_EXEC;
    std::memcpy(bytes.data(), &eh, sizeof eh);
    expect_refused(bytes, "ET_DYN");
  }
  SECTION("another machine") {
    std::string bytes = FixtureBytes();
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    eh.e_machine = EM_AARCH64 == eh.e_machine ? EM_X86_64 : EM_AARCH64;
    std::memcpy(bytes.data(), &eh, sizeof eh);
    expect_refused(bytes, "machine");
  }
  SECTION("32-bit") {
    std::string bytes = FixtureBytes();
    bytes[EI_CLASS] = ELFCLASS32;
    expect_refused(bytes, "64-bit");
  }
}

}  // namespace
}  // namespace qdcache::client

// The layers of the tree (docs/architecture.md) as the includes show them:
// the engine is transport-free (nothing of gRPC, the remote tier, auth or the
// daemon); the store, the compiler interface and the backends know no gRPC
// and no daemon; the client knows only the protocol and common vocabulary.
// Links are checked by the build itself: test_engine links qdcache_engine
// alone, whose closure holds no gRPC library, so a gRPC call in the engine
// does not link.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// "path:line: #include ..." for every include in `folder` matching `banned`.
std::vector<std::string> IncludesMatching(const std::string& folder, const std::regex& banned) {
  std::vector<std::string> found;
  const fs::path root = fs::path(QDCACHE_SOURCE_DIR) / folder;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    std::ifstream in(entry.path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      if (line.rfind("#include", 0) == 0 && std::regex_search(line, banned)) {
        found.push_back(entry.path().lexically_relative(QDCACHE_SOURCE_DIR).string() + ":" +
                        std::to_string(number) + ": " + line);
      }
    }
  }
  return found;
}

}  // namespace

TEST_CASE("the engine includes nothing of gRPC, the remote tier, auth or the daemon", "[engine][layering]") {
  const std::regex banned(R"(<grpc|grpc\.pb\.h|"remote/|"auth/|"daemon/|"metrics/|"backends/)");
  CHECK(IncludesMatching("engine", banned) == std::vector<std::string>{});
}

TEST_CASE("the store, the compiler and the backends include nothing of gRPC or the daemon", "[engine][layering]") {
  const std::regex banned(R"(<grpc|grpc\.pb\.h|"daemon/|"engine/|"remote/|"auth/|"client/)");
  for (const char* folder : {"store", "compiler", "backends"}) {
    INFO(folder);
    CHECK(IncludesMatching(folder, banned) == std::vector<std::string>{});
  }
  // The compiler interface needs no LLVM either.
  CHECK(IncludesMatching("compiler", std::regex(R"("llvm/|"backends/)")) == std::vector<std::string>{});
}

TEST_CASE("the client library knows only the protocol and common vocabulary", "[engine][layering]") {
  const std::regex banned(R"("daemon/|"engine/|"store/|"compiler/|"backends/|"remote/|"auth/)");
  CHECK(IncludesMatching("client", banned) == std::vector<std::string>{});
}

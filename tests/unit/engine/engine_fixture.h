// An Engine over a real RocksDB store in a temporary directory and a test
// compiler of the caller's choosing (scripted, counting...).
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <latch>
#include <memory>
#include <string>

#include "engine/engine.h"

namespace qdcache::engine::testing {

template <typename TestCompiler>
struct EngineFixture {
  // `configure` may change the engine's config before it is built.
  explicit EngineFixture(const std::function<void(EngineConfig&)>& configure = {}) {
    dir = std::filesystem::temp_directory_path() /
          ("qdcache-engine-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    auto s = store::ArtifactStore::Open({dir.string()});
    REQUIRE(s.ok());
    store = std::move(s).value();
    EngineConfig config;
    config.workers = 2;
    config.daemon_version = "test";
    if (configure) configure(config);
    engine = std::make_unique<Engine>(compiler, *store, config);
  }
  ~EngineFixture() {
    engine.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }

  // Compile() on this thread, waiting for the answer.
  v1::CompileResult CompileSync(const v1::KernelDescriptor& d, const Peer& peer = {}) {
    v1::CompileResult out;
    std::latch done(1);
    engine->Compile(d, peer, false, nullptr, [&](v1::CompileResult r) {
      out = std::move(r);
      done.count_down();
    });
    done.wait();
    return out;
  }

  static inline int counter = 0;
  std::filesystem::path dir;
  TestCompiler compiler;
  std::unique_ptr<store::ArtifactStore> store;
  std::unique_ptr<Engine> engine;
};

}  // namespace qdcache::engine::testing

// A scratch directory for the common/ tests, removed with everything in it.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace qdcache::testing {

struct ScratchDir {
  ScratchDir() {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/qdcache-common-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  // Creates `name` holding `text` with `mode`; returns its path.
  std::string File(const std::string& name, const std::string& text, mode_t mode = 0600) const {
    const std::string p = path + "/" + name;
    std::ofstream(p) << text;
    ::chmod(p.c_str(), mode);
    return p;
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

}  // namespace qdcache::testing

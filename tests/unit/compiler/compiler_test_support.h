// Shared helpers for the compiler tests: test data, one compiler per process,
// ELF header peeking, and loading a compiled shared object from memory.
#pragma once

#include <elf.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client/launch_cpu.h"
#include "backends/in_process_compiler.h"
#include "compiler/compiler.h"

namespace qdcache::compiler::testing {

inline std::string ReadTestData(const std::string& relative) {
  std::ifstream in(std::string(QDCACHE_TEST_DATA) + "/" + relative, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline Compiler& TheCompiler() {
  static const std::unique_ptr<Compiler> compiler = MakeInProcessCompiler();
  return *compiler;
}

inline bool CudaAvailable() { return TheCompiler().toolchain().cuda_available; }

inline Target Cuda(const std::string& sm) {
  Target t;
  t.kind = TargetKind::kCuda;
  t.sm = sm;
  return t;
}

inline Target Cpu(const std::string& cpu, std::vector<std::string> features = {}) {
  Target t;
  t.kind = TargetKind::kCpu;
  t.cpu = cpu;
  t.features = std::move(features);
  return t;
}

inline CompileInput Input(std::string_view ir, Target target, CompileOptions options = {},
                          std::vector<std::string> entries = {}) {
  CompileInput input;
  input.ir = ir;
  input.target = std::move(target);
  input.options = options;
  input.entry_points = std::move(entries);
  return input;
}

// What compiling `ir` for `target` answers, without the artifact.
inline Status CompileStatus(std::string_view ir, Target target, std::vector<std::string> entries = {},
                            CompileOptions options = {}) {
  return TheCompiler().Compile(Input(ir, std::move(target), options, std::move(entries))).status();
}

// The 64-bit ELF header of `bytes`, or false when it is not one.
inline bool ReadElfHeader(const std::string& bytes, Elf64_Ehdr* header) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return false;
  std::memcpy(header, bytes.data(), sizeof(Elf64_Ehdr));
  return header->e_ident[EI_CLASS] == ELFCLASS64;
}

// What a shared object's dynamic section says it needs and provides.
struct DynamicSection {
  std::vector<std::string> needed;     // DT_NEEDED libraries
  std::vector<std::string> undefined;  // undefined dynamic symbols (imports)
  std::vector<std::string> defined;    // defined dynamic symbols (exports)
};

// Read with <elf.h> alone (no LLVM): section headers, .dynsym, .dynamic.
inline DynamicSection ReadDynamicSection(const std::string& bytes) {
  DynamicSection out;
  Elf64_Ehdr header;
  if (!ReadElfHeader(bytes, &header) || header.e_shoff + header.e_shnum * sizeof(Elf64_Shdr) > bytes.size()) {
    return out;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  std::memcpy(sections.data(), bytes.data() + header.e_shoff, header.e_shnum * sizeof(Elf64_Shdr));
  auto string_at = [&](const Elf64_Shdr& table, std::uint64_t offset) {
    return std::string(bytes.c_str() + table.sh_offset + offset);
  };
  for (const Elf64_Shdr& section : sections) {
    const Elf64_Shdr& strings = sections.at(section.sh_link);
    if (section.sh_type == SHT_DYNSYM) {
      for (std::uint64_t at = sizeof(Elf64_Sym); at + sizeof(Elf64_Sym) <= section.sh_size; at += sizeof(Elf64_Sym)) {
        Elf64_Sym symbol;
        std::memcpy(&symbol, bytes.data() + section.sh_offset + at, sizeof symbol);
        (symbol.st_shndx == SHN_UNDEF ? out.undefined : out.defined).push_back(string_at(strings, symbol.st_name));
      }
    } else if (section.sh_type == SHT_DYNAMIC) {
      for (std::uint64_t at = 0; at + sizeof(Elf64_Dyn) <= section.sh_size; at += sizeof(Elf64_Dyn)) {
        Elf64_Dyn entry;
        std::memcpy(&entry, bytes.data() + section.sh_offset + at, sizeof entry);
        if (entry.d_tag == DT_NEEDED) out.needed.push_back(string_at(strings, entry.d_un.d_val));
      }
    }
  }
  return out;
}

// A compiled shared object loaded from memory by the client's launcher.
class LoadedLibrary {
 public:
  explicit LoadedLibrary(const std::string& bytes) {
    auto module = client::CpuModule::Load(bytes, "qdcache-test-kernel");
    if (module.ok()) {
      module_.emplace(std::move(module).value());
    } else {
      error_ = module.status().ToString();
    }
  }
  [[nodiscard]] bool ok() const { return module_.has_value(); }
  [[nodiscard]] const std::string& error() const { return error_; }
  template <typename Fn>
  Fn* Get(const char* name) const {
    auto symbol = module_->Symbol(name);
    return symbol.ok() ? reinterpret_cast<Fn*>(*symbol) : nullptr;
  }

 private:
  std::optional<client::CpuModule> module_;
  std::string error_;
};

// Bitcode assembled by the older LLVM 14 `llvm-as-14` (found on PATH) from
// tests/data/<relative>, or std::nullopt when that tool is not installed.
inline std::optional<std::string> AssembleWithLlvm14(const std::string& relative) {
  if (std::system("command -v llvm-as-14 >/dev/null 2>&1") != 0) return std::nullopt;
  char dir_template[] = "/tmp/qdcache-test-XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) return std::nullopt;
  const std::string dir = dir_template;
  const std::string command = "llvm-as-14 '" + std::string(QDCACHE_TEST_DATA) + "/" + relative +
                              "' -o '" + dir + "/out.bc'";
  std::optional<std::string> bitcode;
  if (std::system(command.c_str()) == 0) {
    std::ifstream in(dir + "/out.bc", std::ios::binary);
    bitcode.emplace((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove_all(dir);
  return bitcode;
}

}  // namespace qdcache::compiler::testing

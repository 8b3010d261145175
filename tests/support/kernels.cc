#include "tests/support/kernels.h"

#include <elf.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "client/wire_target.h"
#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

namespace qdcache::testing {

v1::KernelDescriptor Descriptor(const std::string& relative, const std::string& target) {
  v1::KernelDescriptor d;
  d.set_ir(ReadFileOrDie(TestData(relative)));
  auto t = client::ParseWireTarget(target);
  if (!t.ok()) throw std::runtime_error(t.status().ToString());
  *d.mutable_target() = *t;
  return d;
}

v1::CompileResult CompileOne(client::Client& client, const v1::KernelDescriptor& descriptor) {
  v1::CompileRequest request;
  *request.add_kernels() = descriptor;
  auto response = client.Compile(std::move(request));
  if (!response.ok()) throw std::runtime_error(response.status().ToString());
  if (response->results_size() != 1) throw std::runtime_error("expected one result");
  return response->results(0);
}

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string PaddedCpuKernel(std::uint64_t index, std::size_t table_bytes) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string ir = "target triple = \"x86_64-unknown-linux-gnu\"\n\n@table = internal constant [" +
                   std::to_string(table_bytes) + " x i8] c\"";
  ir.reserve(ir.size() + table_bytes * 3 + 512);
  std::uint64_t state = SplitMix64(index);
  for (std::size_t i = 0; i < table_bytes; ++i) {
    if (i % 8 == 0) state = SplitMix64(state);
    const auto byte = static_cast<unsigned>((state >> (8 * (i % 8))) & 0xff);
    ir += '\\';
    ir += kHex[byte >> 4];
    ir += kHex[byte & 15];
  }
  const std::string name = "bench_k" + std::to_string(index);
  ir += "\"\n\ndefine i8 @" + name + "(i64 %i) {\n"
        "entry:\n"
        "  %p = getelementptr inbounds [" + std::to_string(table_bytes) + " x i8], ptr @table, i64 0, i64 %i\n"
        "  %v = load i8, ptr %p, align 1\n"
        "  ret i8 %v\n"
        "}\n";
  return ir;
}

v1::KernelDescriptor SlowCpuKernel(int n, const std::string& name) {
  std::ostringstream ir;
  ir << "define void @" << name << "(ptr %p, float %x) {\nentry:\n  %v0 = fadd float %x, 1.0\n";
  const char* ops[] = {"fadd", "fmul", "fsub"};
  for (int i = 1; i < n; ++i) {
    ir << "  %v" << i << " = " << ops[i % 3] << " float %v" << i - 1 << ", %v0\n";
  }
  ir << "  store float %v" << n - 1 << ", ptr %p\n  ret void\n}\n";
  v1::KernelDescriptor d;
  d.set_ir(ir.str());
  *d.mutable_target() = *client::ParseWireTarget("cpu:x86-64");
  return d;
}

bool CudaBuilt() {
#ifdef QDCACHE_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

namespace {

bool ReadHeader(const std::string& elf, Elf64_Ehdr* h) {
  if (elf.size() < sizeof(Elf64_Ehdr)) return false;
  std::memcpy(h, elf.data(), sizeof *h);
  return std::memcmp(h->e_ident, ELFMAG, SELFMAG) == 0 && h->e_ident[EI_CLASS] == ELFCLASS64;
}

}  // namespace

int CubinSm(const std::string& elf) {
  Elf64_Ehdr h;
  constexpr int kEmCuda = 190;
  if (!ReadHeader(elf, &h) || h.e_machine != kEmCuda) return -1;
  // CUDA ELF ABI version 7 keeps the SM in the low byte of e_flags; version 8
  // (CUDA 12.8 and later) moved it to bits 8..15.
  if (h.e_ident[EI_ABIVERSION] >= 8) return static_cast<int>((h.e_flags >> 8) & 0xff);
  return static_cast<int>(h.e_flags & 0xff);
}

std::map<std::string, std::string> ElfSections(const std::string& elf, std::string_view prefix) {
  Elf64_Ehdr h;
  if (!ReadHeader(elf, &h)) throw std::runtime_error("not a 64-bit ELF file");
  auto header = [&](std::size_t i) {
    const std::size_t at = h.e_shoff + i * sizeof(Elf64_Shdr);
    if (h.e_shentsize != sizeof(Elf64_Shdr) || at + sizeof(Elf64_Shdr) > elf.size()) {
      throw std::runtime_error("ELF section header " + std::to_string(i) + " is outside the file");
    }
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + at, sizeof s);
    return s;
  };
  auto bytes = [&](std::uint64_t offset, std::uint64_t size) {
    if (offset > elf.size() || size > elf.size() - offset) throw std::runtime_error("ELF section outside the file");
    return elf.substr(offset, size);
  };
  const Elf64_Shdr names = header(h.e_shstrndx);
  const std::string table = bytes(names.sh_offset, names.sh_size);
  std::map<std::string, std::string> out;
  for (std::size_t i = 1; i < h.e_shnum; ++i) {
    const Elf64_Shdr s = header(i);
    if (s.sh_name >= table.size()) throw std::runtime_error("ELF section name outside its table");
    const std::string name = table.c_str() + s.sh_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    out[name] = s.sh_type == SHT_NOBITS ? std::string() : bytes(s.sh_offset, s.sh_size);
  }
  return out;
}

bool IsX86SharedObject(const std::string& elf) {
  Elf64_Ehdr h;
  return ReadHeader(elf, &h) && h.e_machine == EM_X86_64 && h.e_type == ET_DYN;
}

std::vector<ElfSymbolInfo> ElfSymbols(const std::string& elf) {
  Elf64_Ehdr h;
  if (!ReadHeader(elf, &h)) throw std::runtime_error("not a 64-bit ELF file");
  auto section = [&](std::size_t i) {
    const std::size_t at = h.e_shoff + i * sizeof(Elf64_Shdr);
    if (h.e_shentsize != sizeof(Elf64_Shdr) || i >= h.e_shnum || at + sizeof(Elf64_Shdr) > elf.size()) {
      throw std::runtime_error("ELF section header " + std::to_string(i) + " is outside the file");
    }
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + at, sizeof s);
    if (s.sh_type != SHT_NOBITS && (s.sh_offset > elf.size() || s.sh_size > elf.size() - s.sh_offset)) {
      throw std::runtime_error("ELF section outside the file");
    }
    return s;
  };
  std::vector<ElfSymbolInfo> out;
  for (std::size_t i = 1; i < h.e_shnum; ++i) {
    const Elf64_Shdr table = section(i);
    if (table.sh_type != SHT_SYMTAB && table.sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr strings = section(table.sh_link);
    for (std::size_t at = sizeof(Elf64_Sym); at + sizeof(Elf64_Sym) <= table.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, elf.data() + table.sh_offset + at, sizeof sym);
      if (sym.st_name == 0 || sym.st_name >= strings.sh_size) continue;
      out.push_back({std::string(elf.c_str() + strings.sh_offset + sym.st_name), sym.st_shndx == SHN_UNDEF,
                     table.sh_type == SHT_DYNSYM});
    }
  }
  return out;
}

std::optional<std::uint32_t> AmdgpuCodeObjectFlags(const std::string& elf) {
  Elf64_Ehdr h;
  if (!ReadHeader(elf, &h) || h.e_machine != EM_AMDGPU || h.e_type != ET_DYN) return std::nullopt;
  return h.e_flags;
}

}  // namespace qdcache::testing

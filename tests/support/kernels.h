// Building requests from tests/data and inspecting the artifacts that come back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/client.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::testing {

// Descriptor for tests/data/<relative> compiled for `target` ("cuda:sm_90").
v1::KernelDescriptor Descriptor(const std::string& relative, const std::string& target);

// Sends one descriptor; throws if the call itself fails.
v1::CompileResult CompileOne(client::Client& client, const v1::KernelDescriptor& descriptor);

// True when the daemon was built with the CUDA Toolkit (nvJitLink).
bool CudaBuilt();

// A CPU kernel `name` with one basic block of `n` dependent float
// operations: LLVM 19's X86 instruction scheduler takes seconds on it (about
// 7 s for 20,000 and 25 s for 40,000 on a 2-core CI machine), a compile that
// is slow for real, for time-limit and cancellation tests.
v1::KernelDescriptor SlowCpuKernel(int n, const std::string& name = "slow");

// Deterministic pseudo-random 64-bit values (splitmix64's mixing step).
std::uint64_t SplitMix64(std::uint64_t x);

// An x86-64 kernel `bench_k<index>` returning a byte of a private constant
// table of `table_bytes` pseudo-random bytes seeded by `index`: its shared
// object is table_bytes plus the ELF's own ~2 KiB, and no two indexes give
// the same one. For artifacts of a chosen size (benchmarks, large batches).
std::string PaddedCpuKernel(std::uint64_t index, std::size_t table_bytes);

// The SM number a CUDA ELF (cubin) is built for (90 for sm_90), or -1 if the
// bytes are not a CUDA ELF.
int CubinSm(const std::string& elf);

// The sections of a 64-bit ELF file (a cubin, say) whose names start with
// `prefix` (".text."), by name, with their bytes. Throws on bytes that are
// not such a file.
std::map<std::string, std::string> ElfSections(const std::string& elf, std::string_view prefix);

// True for a 64-bit little-endian x86-64 ELF shared object.
bool IsX86SharedObject(const std::string& elf);

struct ElfSymbolInfo {
  std::string name;
  bool undefined = false;
  bool dynamic = false;  // from .dynsym rather than .symtab
};
// The named symbols of a 64-bit ELF file's .symtab and .dynsym. Throws on
// bytes that are not such a file.
std::vector<ElfSymbolInfo> ElfSymbols(const std::string& elf);

// For an AMDGPU HSA code object (a 64-bit ELF shared object, EM_AMDGPU): its
// e_flags (the processor is e_flags & 0xff, EF_AMDGPU_MACH); else nullopt.
std::optional<std::uint32_t> AmdgpuCodeObjectFlags(const std::string& elf);

}  // namespace qdcache::testing

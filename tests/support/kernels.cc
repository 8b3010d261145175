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

bool IsX86SharedObject(const std::string& elf) {
  Elf64_Ehdr h;
  return ReadHeader(elf, &h) && h.e_machine == EM_X86_64 && h.e_type == ET_DYN;
}

}  // namespace qdcache::testing

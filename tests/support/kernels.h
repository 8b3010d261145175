// Building requests from tests/data and inspecting the artifacts that come back.
#pragma once

#include <string>

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

// The SM number a CUDA ELF (cubin) is built for (90 for sm_90), or -1 if the
// bytes are not a CUDA ELF.
int CubinSm(const std::string& elf);

// True for a 64-bit little-endian x86-64 ELF shared object.
bool IsX86SharedObject(const std::string& elf);

}  // namespace qdcache::testing

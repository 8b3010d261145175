// `qdcache ptxas`: a drop-in for CUDA's ptxas that compiles through the
// daemon, so any tool that runs ptxas (Triton through TRITON_PTXAS_PATH,
// build scripts) gets the shared cache with no change. Also what the CLI
// runs when it is invoked through a link named `ptxas`.
//
// It takes what Triton passes, and the common spellings:
//   [-lineinfo | --generate-line-info] [-suppress-debug-info] [-g | --device-debug]
//   [--fmad=false|true] [-v | --verbose] [--opt-level N | -O N | -ON]
//   [--maxrregcount N | -maxrregcount=N] (--gpu-name=sm_XX | -arch sm_XX ...)
//   IN.ptx [-o OUT | --output-file OUT]     (OUT defaults to elf.o, as ptxas's)
//   --version | -V      what the toolkit's ptxas prints for the daemon's nvJitLink
// -g without an optimization level compiles at -O0, as ptxas's does. An
// option it does not take is an error naming it, never ignored: nvJitLink
// knows only -O0 and -O3, so -O1 and -O2 are refused too. The connection
// comes from the environment: $QDCACHE_SOCKET or $QDCACHE_ADDR (with
// $QDCACHE_TOKEN), else the per-user socket, starting the per-user daemon
// when none serves it (as the CLI does; $QDCACHE_AUTOSPAWN=0 turns that off).
// Exit status: 0 on success, 255 (ptxas's) on any failure, with the message
// (ptxas's own for a PTX error) on stderr.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/expected.h"

namespace qdcache::cli {

struct PtxasArgs {
  std::string input;
  std::string output = "elf.o";
  std::string sm;  // "sm_90a"
  // Compile options set, by catalogue name; the others at their defaults.
  std::map<std::string, std::uint32_t> options;
  bool verbose = false;  // -v: the per-kernel "ptxas info" lines on stderr
  bool version = false;
  bool help = false;
};

// Parses ptxas's arguments (without the program name). INVALID_ARGUMENT
// naming the first option it does not take, a missing value, no input file
// or two, no --gpu-name; --version and --help need nothing else.
[[nodiscard]] Expected<PtxasArgs> ParsePtxasArgs(const std::vector<std::string>& args);

// Runs it; returns the exit status.
[[nodiscard]] int RunPtxas(const std::vector<std::string>& args);

}  // namespace qdcache::cli

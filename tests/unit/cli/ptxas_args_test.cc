// `qdcache ptxas`'s command line: Triton's shapes and the common spellings
// are taken; anything else is refused by name.
#include <catch2/catch.hpp>

#include "client/cli/ptxas.h"

using namespace qdcache;
using namespace qdcache::cli;

namespace {

PtxasArgs Parsed(const std::vector<std::string>& args) {
  Expected<PtxasArgs> parsed = ParsePtxasArgs(args);
  INFO(parsed.status().message());
  REQUIRE(parsed.ok());
  return *parsed;
}

std::string Refusal(const std::vector<std::string>& args) {
  Expected<PtxasArgs> parsed = ParsePtxasArgs(args);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.status().code() == Code::kInvalidArgument);
  return parsed.status().message();
}

}  // namespace

TEST_CASE("ptxas takes Triton's command lines") {
  // triton/backends/nvidia/compiler.py: [ptxas, *line_info, *fmad, '-v', *opt_level, '--gpu-name=sm_XX', src, '-o', bin]
  const PtxasArgs a = Parsed({"-lineinfo", "-suppress-debug-info", "--fmad=false", "-v", "--opt-level", "0",
                              "--gpu-name=sm_90a", "/tmp/k.ptx", "-o", "/tmp/k.cubin"});
  CHECK(a.input == "/tmp/k.ptx");
  CHECK(a.output == "/tmp/k.cubin");
  CHECK(a.sm == "sm_90a");
  CHECK(a.verbose);
  CHECK(a.options == std::map<std::string, std::uint32_t>{
                         {"lineinfo", 1}, {"suppress_debug_info", 1}, {"fmad", 0}, {"opt_level", 0}});
  const PtxasArgs g = Parsed({"-g", "-v", "--gpu-name=sm_100", "k.ptx", "-o", "k.cubin"});
  CHECK(g.options == std::map<std::string, std::uint32_t>{{"debug", 1}, {"opt_level", 0}});  // as ptxas -g
  CHECK(Parsed({"--maxrregcount", "64", "-arch=sm_80", "k.ptx"}).options.at("max_registers") == 64);
}

TEST_CASE("ptxas takes the common spellings") {
  const PtxasArgs a = Parsed({"-arch", "sm_75", "-O3", "--output-file=out.cubin", "--generate-line-info",
                              "--device-debug", "--fmad", "true", "-maxrregcount=32", "in.ptx"});
  CHECK(a.sm == "sm_75");
  CHECK(a.output == "out.cubin");
  CHECK(a.options.at("opt_level") == 3);
  CHECK(a.options.at("lineinfo") == 1);
  CHECK(a.options.at("debug") == 1);
  CHECK(a.options.at("fmad") == 1);
  CHECK(a.options.at("max_registers") == 32);
  CHECK(Parsed({"-O", "0", "--gpu-name", "sm_90", "in.ptx"}).options.at("opt_level") == 0);
  CHECK(Parsed({"--gpu-name", "sm_90", "in.ptx"}).output == "elf.o");  // ptxas's default
  CHECK(Parsed({"--version"}).version);
  CHECK(Parsed({"-V"}).version);
  CHECK(Parsed({"--help"}).help);
}

TEST_CASE("ptxas refuses what it does not take, naming it") {
  CHECK(Refusal({"--gpu-name=sm_90", "-c", "k.ptx"}) == "unsupported ptxas option '-c'");
  CHECK(Refusal({"--gpu-name=sm_90", "--warn-on-spills", "k.ptx"}) == "unsupported ptxas option '--warn-on-spills'");
  CHECK_THAT(Refusal({"--gpu-name=sm_90", "-O2", "k.ptx"}),
             Catch::StartsWith("unsupported ptxas option '-O2': nvJitLink compiles at -O0 or -O3 only"));
  CHECK_THAT(Refusal({"--gpu-name=compute_90", "k.ptx"}), Catch::Contains("a real SM"));
  CHECK_THAT(Refusal({"--gpu-name=sm_90", "--fmad=maybe", "k.ptx"}), Catch::Contains("takes true or false"));
  CHECK_THAT(Refusal({"--gpu-name=sm_90", "--maxrregcount", "lots", "k.ptx"}), Catch::Contains("0 to 255"));
  CHECK_THAT(Refusal({"--gpu-name=sm_90", "-lineinfo=1", "k.ptx"}), Catch::Contains("takes no value"));
  CHECK_THAT(Refusal({"--gpu-name=sm_90", "k.ptx", "-o"}), Catch::Contains("'-o' needs a value"));
  CHECK_THAT(Refusal({"--gpu-name=sm_90"}), Catch::StartsWith("no input file"));
  CHECK_THAT(Refusal({"k.ptx"}), Catch::StartsWith("no --gpu-name"));
  CHECK_THAT(Refusal({"--gpu-name=sm_90", "a.ptx", "b.ptx"}), Catch::StartsWith("two input files"));
}

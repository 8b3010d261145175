// The option catalogue: one row per option, and every spelling, key and
// stage made from it.
#include "common/compile_options.h"

#include <catch2/catch.hpp>

using namespace qdcache;

namespace {

CompileOptions WithMaxRegisters(std::uint32_t n) {
  CompileOptions o;
  o.max_registers = n;
  return o;
}

std::string LinkKey(const CompileOptions& o) { return StageOptionsKey(o, kStageLink); }

}  // namespace

TEST_CASE("Changing only max_registers changes the link key but not the PTX key") {
  const CompileOptions base;
  const CompileOptions limited = WithMaxRegisters(32u);
  CHECK(StageOptionsKey(limited, kStageCodegen) == StageOptionsKey(base, kStageCodegen));
  CHECK(LinkKey(limited) != LinkKey(base));
  CHECK_THAT(LinkKey(limited), Catch::Contains("max_registers=32"));
}

TEST_CASE("Each option lands in the keys of exactly the stages that read it") {
  struct Field {
    const char* name;
    CompileOptions changed;
    bool ptx;
    bool link;
  };
  CompileOptions o0;
  o0.opt_level = 0;
  CompileOptions o2;
  o2.opt_level = 2;
  CompileOptions fast;
  fast.fast_math = true;
  CompileOptions no_fmad;
  no_fmad.fmad = false;
  CompileOptions debug;
  debug.debug = true;
  CompileOptions lineinfo;
  lineinfo.lineinfo = true;
  CompileOptions libdevice;
  libdevice.link_libdevice = true;
  const Field fields[] = {
      {"opt_level 0", o0, true, true},
      {"opt_level 2", o2, true, false},
      {"fast_math", fast, true, true},
      {"fmad", no_fmad, true, true},
      {"debug", debug, true, true},
      {"lineinfo", lineinfo, true, true},
      {"max_registers", WithMaxRegisters(8u), false, true},
      {"link_libdevice", libdevice, true, false},
  };
  const CompileOptions base;
  for (const Field& f : fields) {
    DYNAMIC_SECTION(f.name) {
      CHECK((StageOptionsKey(f.changed, kStageCodegen) != StageOptionsKey(base, kStageCodegen)) == f.ptx);
      CHECK((LinkKey(f.changed) != LinkKey(base)) == f.link);
    }
  }
}

TEST_CASE("The default option keys are spelled out") {
  CHECK(StageOptionsKey({}, kStageCodegen) == "opt_level=3 fast_math=0 fmad=1 debug=0 lineinfo=0 link_libdevice=0");
  CHECK(LinkKey({}) == "opt_level=3 fast_math=0 fmad=1 debug=0 lineinfo=0 max_registers=0");
}

TEST_CASE("an option is found by its name, with dashes, or by its alias, and nothing else", "[common][options]") {
  REQUIRE(FindOption("max_registers") != nullptr);
  CHECK(FindOption("max-registers") == FindOption("max_registers"));
  CHECK(FindOption("opt") == FindOption("opt_level"));
  CHECK(FindOption("opt_level")->field == 1);
  CHECK(FindOption("maxregisters") == nullptr);
  CHECK(FindOption("") == nullptr);
  CHECK(FindOptionByField(6) == FindOption("max_registers"));
  CHECK(FindOptionByField(99) == nullptr);
  CHECK_THAT(OptionNames(), Catch::StartsWith("opt_level, fast_math, fmad"));
}

TEST_CASE("option text is checked against the row's type and range, naming the option", "[common][options]") {
  CompileOptions o;
  CHECK(SetOptionText(o, *FindOption("opt_level"), "2").ok());
  CHECK(o.opt_level == 2);
  CHECK(SetOptionText(o, *FindOption("fmad"), "false").ok());
  CHECK_FALSE(o.fmad);
  CHECK(SetOptionText(o, *FindOption("fmad"), "1").ok());
  CHECK(o.fmad);
  Status high = SetOptionText(o, *FindOption("max_registers"), "256");
  CHECK(high.code() == Code::kInvalidArgument);
  CHECK_THAT(high.message(), Catch::Contains("max_registers") && Catch::Contains("0..255"));
  CHECK(o.max_registers == 0);  // a refused value changes nothing
  CHECK(SetOptionText(o, *FindOption("debug"), "2").code() == Code::kInvalidArgument);
  CHECK(SetOptionText(o, *FindOption("opt_level"), "3x").code() == Code::kInvalidArgument);
  CHECK(SetOptionText(o, *FindOption("opt_level"), "-1").code() == Code::kInvalidArgument);
  CHECK(SetOptionText(o, *FindOption("opt_level"), "").code() == Code::kInvalidArgument);
}

TEST_CASE("options a family does not read go back to their defaults", "[common][options]") {
  CompileOptions o;
  o.lineinfo = true;
  o.max_registers = 32;
  o.link_libdevice = true;
  o.opt_level = 1;
  const CompileOptions cpu = ForFamily(o, kFamilyCpu);
  CHECK_FALSE(cpu.lineinfo);
  CHECK(cpu.max_registers == 0);
  CHECK_FALSE(cpu.link_libdevice);
  CHECK(cpu.opt_level == 1);
  CHECK(ForFamily(o, kFamilyCuda) == o);
}

TEST_CASE("a stage is given the options it reads, as it reads them, and the rest at their defaults",
          "[common][options]") {
  CompileOptions o;
  o.opt_level = 2;
  o.max_registers = 64;
  o.link_libdevice = true;
  const CompileOptions link = StageOptions(o, kStageLink);
  CHECK(link.opt_level == 3);  // nvJitLink knows -O0 and -O3
  CHECK(link.max_registers == 64);
  CHECK_FALSE(link.link_libdevice);  // not the link stage's: its default
  const CompileOptions codegen = StageOptions(o, kStageCodegen);
  CHECK(codegen.opt_level == 2);
  CHECK(codegen.max_registers == 0);
  CHECK(codegen.link_libdevice);
}


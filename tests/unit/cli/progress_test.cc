// The progress line of long commands, drawn into a string instead of stderr.
#include "client/cli/progress.h"

#include <catch2/catch.hpp>
#include <string>

using namespace qdcache::cli;

namespace {

// Progress options that draw every update into `*out`.
Progress::Options Into(std::string* out, bool enabled = true) {
  Progress::Options o;
  o.enabled = enabled;
  o.sink = [out](std::string_view s) { out->append(s); };
  o.redraw_every = std::chrono::milliseconds(0);
  return o;
}

}  // namespace

TEST_CASE("a disabled progress line draws nothing", "[cli][progress]") {
  std::string out;
  {
    Progress p("warming", 10, Into(&out, /*enabled=*/false));
    p.Update(5, "5/10 kernels");
    p.Done();
  }
  CHECK(out.empty());
}

TEST_CASE("a progress line with a total shows a bar, the percentage and the detail",
          "[cli][progress]") {
  std::string out;
  Progress p("warming", 4, Into(&out));
  p.Update(1, "1/4 kernels");
  CHECK(out.rfind("\r\033[K", 0) == 0);  // each redraw starts by clearing the line
  CHECK_THAT(out, Catch::Contains("warming [") && Catch::Contains("] 25%") &&
                      Catch::Contains("1/4 kernels"));
  out.clear();
  p.Update(4, "4/4 kernels");
  CHECK_THAT(out, Catch::Contains("[" + std::string(30, '#') + "] 100%"));
}

TEST_CASE("a progress line without a total spins instead of a bar", "[cli][progress]") {
  std::string out;
  Progress p("verifying", 0, Into(&out));
  p.Update(0, "1 s");
  CHECK_THAT(out, Catch::Contains("verifying |  1 s"));
  CHECK_THAT(out, !Catch::Contains("%"));
  out.clear();
  p.Update(0, "2 s");
  CHECK_THAT(out, Catch::Contains("verifying /  2 s"));
}

TEST_CASE("Done erases a drawn line once, and nothing when none was drawn", "[cli][progress]") {
  std::string out;
  {
    Progress p("exporting", 0, Into(&out));
    p.Done();
    CHECK(out.empty());
    p.Update(0, "x");
    out.clear();
    p.Done();
    CHECK(out == "\r\033[K");
    out.clear();
  }  // the destructor has nothing left to erase
  CHECK(out.empty());
}

TEST_CASE("the elapsed ticker draws from its own thread and erases when it ends",
          "[cli][progress]") {
  std::string out;
  {
    Progress p("verifying", 0, Into(&out));
    ElapsedTicker ticker(p);
  }  // the ticker draws once as it starts, before it first waits
  CHECK_THAT(out, Catch::Contains("verifying |  0 s"));
  CHECK(out.size() >= 3);
  CHECK(out.substr(out.size() - 4) == "\r\033[K");
}

TEST_CASE("an elapsed ticker over a disabled progress starts no drawing", "[cli][progress]") {
  std::string out;
  {
    Progress p("verifying", 0, Into(&out, /*enabled=*/false));
    ElapsedTicker ticker(p);
  }
  CHECK(out.empty());
}

TEST_CASE("durations and sizes read as a person would write them", "[cli][progress]") {
  CHECK(HumanDuration(std::chrono::seconds(7)) == "7 s");
  CHECK(HumanDuration(std::chrono::seconds(185)) == "3m 05s");
  CHECK(HumanDuration(std::chrono::seconds(7800)) == "2h 10m");
  CHECK(HumanBytes(512) == "512 B");
  CHECK(HumanBytes(3 << 20) == "3.0 MiB");
}

// The main of every Catch test binary. CTest runs each test case alone, by
// name (catch_discover_tests), so a name that does not select its test case
// must fail rather than run nothing and pass: a ';' in a name, for one, is
// split in two by CMake. Asking Catch to warn about no tests makes a filter
// that matches nothing exit non-zero.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  session.configData().warnings =
      static_cast<Catch::WarnAbout::What>(session.configData().warnings | Catch::WarnAbout::NoTests);
  return session.run();
}

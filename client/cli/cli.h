// The `qdcache` command line: parses flags, talks to the daemon through
// qdcache::client::Client, prints human or JSON output. Exit status: 0 success,
// 1 failure (the daemon's message on stderr), 2 usage error, 3 lookup miss.
// With --json, stdout holds exactly one JSON document, an error included
// (output.h); progress lines go to stderr, and only to a terminal. --help is
// the exception: CLI11's plain-text help, with or without --json.
#pragma once

namespace qdcache::cli {

[[nodiscard]] int Main(int argc, const char* const* argv);

}  // namespace qdcache::cli

// The config file, QDCACHED_* variables and flags, seen from outside a real
// qdcached: what --print-config says and where the daemon actually serves.
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE("print-config shows the flag over the environment over the file", "[integration][config]") {
  TempDir dir;
  WriteFileOrDie(dir / "qdcached.toml", "max-batch = 10\nmax-queue = 20\nmax-size = \"1G\"\n");
  RunResult r = Run({DaemonBinary(), "--config", dir / "qdcached.toml", "--max-batch", "11", "--print-config"},
                    EnvChanges{"QDCACHED_MAX_BATCH=12", "QDCACHED_MAX_QUEUE=21"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\nmax-batch = 11\n"));     // flag
  CHECK_THAT(r.out, Catch::Contains("\nmax-queue = 21\n"));     // environment over file
  CHECK_THAT(r.out, Catch::Contains("\nmax-size = \"1G\"\n"));  // file over default
  CHECK_THAT(r.out, Catch::Contains("\nkey-workers = 1\n"));    // default
}

TEST_CASE("print-config output fed back as --config prints the same", "[integration][config]") {
  TempDir dir;
  WriteFileOrDie(dir / "empty.toml", "");
  RunResult first = Run({DaemonBinary(), "--config", dir / "empty.toml", "--workers", "3", "--print-config"},
                        EnvChanges{"QDCACHED_FAILURE_MEMORY=1h"});
  REQUIRE(first.exit_code == 0);
  WriteFileOrDie(dir / "printed.toml", first.out);
  RunResult second = Run({DaemonBinary(), "--config", dir / "printed.toml", "--print-config"},
                         EnvChanges{"QDCACHED_FAILURE_MEMORY"});
  REQUIRE(second.exit_code == 0);
  CHECK(second.out == first.out);
  CHECK_THAT(second.out, Catch::Contains("\nfailure-memory = \"1h\"\n"));
}

TEST_CASE("the daemon serves where the file says, stores where the environment says, logs as the flag says",
          "[integration][config]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--config", dir / "qdcached.toml"});
  // DaemonProcess passes --log-level debug: it must beat both "off" and "error".
  WriteFileOrDie(dir / "qdcached.toml", "socket = \"" + daemon.socket_path() + "\"\nstore = \"" +
                                            (dir / "file-store") + "\"\nlog-level = \"error\"\n");
  daemon.set_paths_from_config();
  daemon.set_env({"QDCACHED_STORE=" + daemon.store_dir(), "QDCACHED_LOG_LEVEL=off"});
  daemon.Start();
  CHECK(daemon.Connect()->Ping().ok());
  CHECK(std::filesystem::is_directory(daemon.store_dir()));
  CHECK_FALSE(std::filesystem::exists(dir / "file-store"));
  CHECK_THAT(daemon.log(), Catch::Contains("serving unix:" + daemon.socket_path()));
  CHECK(daemon.Stop() == 0);
}

TEST_CASE("an unknown key in the config file stops the daemon with a usage error", "[integration][config]") {
  TempDir dir;
  WriteFileOrDie(dir / "qdcached.toml", "# comment\nsocket = \"" + (dir / "s") + "\"\nmax_size = \"1G\"\n");
  RunResult r = Run({DaemonBinary(), "--config", dir / "qdcached.toml", "--store", dir / "store"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(dir / "qdcached.toml:3") && Catch::Contains("unknown key \"max_size\""));
  CHECK_FALSE(std::filesystem::exists(dir / "s"));
}

TEST_CASE("a bad value in the file or environment is a usage error naming the key", "[integration][config]") {
  TempDir dir;
  WriteFileOrDie(dir / "qdcached.toml", "socket = \"" + (dir / "s") + "\"\nworker-memory = \"1M\"\n");
  RunResult from_file = Run({DaemonBinary(), "--config", dir / "qdcached.toml", "--store", dir / "store"});
  CHECK(from_file.exit_code == 2);
  CHECK_THAT(from_file.err, Catch::Contains(dir / "qdcached.toml:2: worker-memory:"));
  RunResult from_env = Run({DaemonBinary(), "--socket", dir / "s", "--store", dir / "store"},
                           EnvChanges{"QDCACHED_WORKERS=many"});
  CHECK(from_env.exit_code == 2);
  CHECK_THAT(from_env.err, Catch::Contains("QDCACHED_WORKERS:"));
}

TEST_CASE("a config file named by --config or QDCACHED_CONFIG must exist", "[integration][config]") {
  TempDir dir;
  RunResult flag = Run({DaemonBinary(), "--config", dir / "missing.toml", "--socket", dir / "s"});
  CHECK(flag.exit_code == 2);
  CHECK_THAT(flag.err, Catch::Contains("missing.toml") && Catch::Contains("does not exist"));
  RunResult env = Run({DaemonBinary(), "--socket", dir / "s"}, EnvChanges{"QDCACHED_CONFIG=" + (dir / "gone.toml")});
  CHECK(env.exit_code == 2);
  CHECK_THAT(env.err, Catch::Contains("QDCACHED_CONFIG") && Catch::Contains("gone.toml"));
}

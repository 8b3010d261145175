#include "bench/bench_env.h"

#include "bench/bench_kernels.h"
#include "bench/child_process.h"
#include "tests/support/kernels.h"

#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

namespace qdcache::bench {
namespace {
constexpr char kBenchToken[] = "qdcache-bench-token-0123456789";
}  // namespace

std::string EchoBinary() { return QDCACHE_BENCH_ECHO_BINARY; }
std::string BenchClientBinary() { return QDCACHE_BENCH_CLIENT_BINARY; }
std::string ToolchainBinary() { return QDCACHE_BENCH_TOOLCHAIN_BINARY; }
std::string CapiClientBinary() { return QDCACHE_BENCH_CAPI_BINARY; }
std::string CLibrary() { return QDCACHE_BENCH_C_LIBRARY; }
std::string PythonPackageDir() { return QDCACHE_BENCH_PYTHON_DIR; }
std::string PythonWarmStartScript() { return QDCACHE_BENCH_PYTHON_SCRIPT; }

std::shared_ptr<grpc::Channel> BenchEnv::Channel(const std::string& target) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

Expected<std::unique_ptr<testing::DaemonProcess>> BenchEnv::StartDaemon(const std::string& name) const {
  const std::string path = dir / name;
  if (::mkdir(path.c_str(), 0700) != 0) return Internal("cannot create " + path);
  // TCP peers need a credential: a bearer token (plaintext on loopback).
  const std::string tokens = dir / "tokens";
  testing::WriteFileOrDie(tokens, std::string("bench write ") + kBenchToken + "\n");
  ::chmod(tokens.c_str(), 0600);
  std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--token-file", tokens};
  // A warm start of the largest set asks for all its keys in one batch.
  std::size_t largest = 4096;  // the daemon's default
  for (std::size_t n : options.warm_kernels) largest = std::max(largest, n);
  args.push_back("--max-batch=" + std::to_string(largest));
  args.insert(args.end(), options.daemon_args.begin(), options.daemon_args.end());
  auto daemon = std::make_unique<testing::DaemonProcess>(path, args);
  daemon->set_log_level("info");  // the default of a deployed daemon
  try {
    daemon->Start();
  } catch (const std::exception& e) {
    return Unavailable(std::string("qdcached did not start: ") + e.what());
  }
  return daemon;
}

Expected<std::unique_ptr<BenchEnv>> BenchEnv::Start(const BenchOptions& options) {
  auto env = std::unique_ptr<BenchEnv>(new BenchEnv(options));
  QDC_ASSIGN_OR_RETURN(env->daemon, env->StartDaemon("daemon"));

  env->raw_echo_path = env->dir / "raw-echo.sock";
  const std::string grpc_unix = env->dir / "grpc-echo.sock";
  std::string ready;
  QDC_ASSIGN_OR_RETURN(env->echo, ServerProcess::Start({EchoBinary(), "--raw", env->raw_echo_path,
                                                        "--grpc-unix", grpc_unix, "--ready-fd", "3"},
                                                       &ready));
  const std::string port = ready.substr(ready.find(' ') + 1);
  env->echo_uds = bench_echo::Echo::NewStub(Channel("unix:" + grpc_unix));
  env->echo_tcp = bench_echo::Echo::NewStub(Channel("127.0.0.1:" + port));

  client::ClientOptions uds;
  uds.socket_path = env->daemon->socket_path();
  uds.spawn = false;
  QDC_ASSIGN_OR_RETURN(env->uds, client::Client::Connect(uds));
  uds.lean = false;
  QDC_ASSIGN_OR_RETURN(env->uds_grpc, client::Client::Connect(uds));
  client::ClientOptions tcp;
  tcp.token = kBenchToken;
  try {
    tcp.address = env->daemon->TcpAddress();
  } catch (const std::exception& e) {
    return Unavailable(e.what());
  }
  QDC_ASSIGN_OR_RETURN(env->tcp, client::Client::Connect(tcp));
  return env;
}

v1::KernelDescriptor CpuDescriptor(const std::string& ir, const std::string& fast_key) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  d.set_fast_key(fast_key);
  d.set_namespace_("bench");
  return d;
}

Expected<v1::CompileResult> CompileOne(client::Client& client, const v1::KernelDescriptor& descriptor) {
  v1::CompileRequest request;
  *request.add_kernels() = descriptor;
  QDC_ASSIGN_OR_RETURN(v1::CompileResponse response, client.Compile(std::move(request)));
  if (response.results_size() != 1) return Internal("compile answered no result");
  v1::CompileResult& r = *response.mutable_results(0);
  if (r.has_error()) return Status(static_cast<Code>(r.error().code()), r.error().message());
  return std::move(r);
}

v1::KernelDescriptor HitKernel(const BenchEnv& env, std::uint64_t index, const std::string& fast_key) {
  return CpuDescriptor(testing::PaddedCpuKernel(index, TableBytesFor(env.options.artifact_bytes)), fast_key);
}

v1::LookupRequest LookupOf(const std::string& fast_key) {
  v1::LookupRequest request;
  v1::FastKeyQuery* q = request.add_queries();
  q->set_fast_key(fast_key);
  q->set_namespace_("bench");
  q->mutable_target()->mutable_cpu()->set_cpu("x86-64");
  return request;
}

Expected<nlohmann::json> RunPythonChild(const std::vector<std::string>& argv, std::size_t expect_items,
                                        const std::string& pycache) {
  const std::vector<std::string> env = {"PYTHONPATH=" + PythonPackageDir(), "QDCACHE_LIBRARY=" + CLibrary(),
                                        "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX=" + pycache,
                                        "QDCACHE_LEAN"};
  QDC_ASSIGN_OR_RETURN(TimedRun run, RunTimed(argv, env));
  const std::string mode = argv.size() > 3 ? argv[3] : "?";
  nlohmann::json out = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  if (run.exit_code != 0 || !out.is_object() || out.value("items", std::size_t{0}) != expect_items) {
    return Internal("python " + mode + " child failed (exit " + std::to_string(run.exit_code) + "): " + run.out);
  }
  return out;
}

bench_echo::EchoMessage EchoRequestFor(const v1::LookupRequest& lookup, std::size_t reply_bytes) {
  bench_echo::EchoMessage request;
  request.set_payload(lookup.SerializeAsString());
  request.set_reply_bytes(static_cast<std::uint32_t>(reply_bytes));
  return request;
}

Status EchoCall(bench_echo::Echo::Stub& stub, const bench_echo::EchoMessage& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  bench_echo::EchoMessage answer;
  grpc::Status s = stub.Echo(&context, request, &answer);
  if (!s.ok()) return Unavailable("echo: " + s.error_message());
  const std::size_t want = request.reply_bytes() != 0 ? request.reply_bytes() : request.payload().size();
  if (answer.payload().size() != want) return Internal("echo: short answer");
  return Status::Ok();
}

}  // namespace qdcache::bench

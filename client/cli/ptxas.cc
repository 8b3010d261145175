#include "client/cli/ptxas.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "client/cli/connect.h"
#include "client/cli/credentials.h"
#include "client/cli/output.h"
#include "client/wire_options.h"
#include "common/output_file.h"

namespace qdcache::cli {
namespace {

constexpr int kPtxasFailure = 255;  // what ptxas exits with on any error

constexpr char kUsage[] =
    "usage: qdcache ptxas [options] FILE.ptx --gpu-name sm_XX [-o OUT]\n"
    "A drop-in for CUDA's ptxas that compiles through qdcached (docs/integration.md).\n"
    "  --gpu-name, -arch SM          the SM to compile for (sm_90, sm_90a, sm_100f, ...)\n"
    "  --output-file, -o OUT         the cubin (default elf.o)\n"
    "  --opt-level, -O N             0 or 3 (nvJitLink's levels; default 3)\n"
    "  --maxrregcount N              registers per thread at most\n"
    "  --fmad=true|false             contraction into fused multiply-add\n"
    "  --generate-line-info, -lineinfo, --suppress-debug-info, --device-debug, -g\n"
    "  --verbose, -v                 the per-kernel resource usage on stderr\n"
    "  --version, -V                 the ptxas release of the daemon's nvJitLink\n"
    "The daemon: $QDCACHE_SOCKET or $QDCACHE_ADDR (+ $QDCACHE_TOKEN), else the per-user one.\n";

std::optional<std::uint32_t> Count(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(std::stoul(text));
}

Status Unsupported(const std::string& arg, const std::string& why = "") {
  return InvalidArgument("unsupported ptxas option '" + arg + "'" + (why.empty() ? "" : ": " + why));
}

// One option of the command line: its name without dashes, the value after
// '=' if any, and a way to take the next argument as its value.
class Cursor {
 public:
  explicit Cursor(const std::vector<std::string>& args) : args_(args) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& Take() { return args_[i_++]; }
  Expected<std::string> Value(const std::string& arg, const std::optional<std::string>& inline_value) {
    if (inline_value) return *inline_value;
    if (done()) return InvalidArgument("ptxas option '" + arg + "' needs a value");
    return Take();
  }

 private:
  const std::vector<std::string>& args_;
  std::size_t i_ = 0;
};

Status SetOptLevel(PtxasArgs& out, const std::string& arg, const std::string& value) {
  const std::optional<std::uint32_t> level = Count(value);
  if (!level) return InvalidArgument("ptxas option '" + arg + "': \"" + value + "\" is not an optimization level");
  if (*level != 0 && *level != 3) {
    return Unsupported(arg, "nvJitLink compiles at -O0 or -O3 only, so -O" + value + " would not be ptxas's");
  }
  out.options["opt_level"] = *level;
  return Status::Ok();
}

Status Parse(Cursor& cursor, PtxasArgs& out) {
  const std::string arg = cursor.Take();
  if (arg.size() < 2 || arg[0] != '-') {
    if (!out.input.empty()) return InvalidArgument("two input files: " + out.input + " and " + arg);
    out.input = arg;
    return Status::Ok();
  }
  std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
  std::optional<std::string> inline_value;
  if (const std::size_t eq = name.find('='); eq != std::string::npos) {
    inline_value = name.substr(eq + 1);
    name.resize(eq);
  }
  auto flag = [&](const char* option) -> Status {
    if (inline_value) return Unsupported(arg, "it takes no value");
    out.options[option] = 1;
    return Status::Ok();
  };
  if (name == "lineinfo" || name == "generate-line-info") return flag("lineinfo");
  if (name == "suppress-debug-info") return flag("suppress_debug_info");
  if (name == "g" || name == "device-debug") return flag("debug");
  if (name == "v" || name == "verbose") {
    out.verbose = true;
    return Status::Ok();
  }
  if (name == "version" || name == "V") {
    out.version = true;
    return Status::Ok();
  }
  if (name == "help" || name == "h") {
    out.help = true;
    return Status::Ok();
  }
  if (name.size() > 1 && name[0] == 'O' && Count(name.substr(1))) return SetOptLevel(out, arg, name.substr(1));
  if (name == "O" || name == "opt-level") {
    QDC_ASSIGN_OR_RETURN(std::string value, cursor.Value(arg, inline_value));
    return SetOptLevel(out, arg, value);
  }
  if (name == "fmad") {
    QDC_ASSIGN_OR_RETURN(std::string value, cursor.Value(arg, inline_value));
    if (value != "true" && value != "false") return InvalidArgument("ptxas option '" + arg + "' takes true or false");
    out.options["fmad"] = value == "true" ? 1 : 0;
    return Status::Ok();
  }
  if (name == "maxrregcount") {
    QDC_ASSIGN_OR_RETURN(std::string value, cursor.Value(arg, inline_value));
    const std::optional<std::uint32_t> count = Count(value);
    if (!count || *count > 255) return InvalidArgument("ptxas option '" + arg + "' takes a count of 0 to 255");
    out.options["max_registers"] = *count;
    return Status::Ok();
  }
  if (name == "gpu-name" || name == "arch") {
    QDC_ASSIGN_OR_RETURN(out.sm, cursor.Value(arg, inline_value));
    if (out.sm.rfind("sm_", 0) != 0) {
      return Unsupported(arg + " " + out.sm, "qdcache ptxas makes cubins for a real SM (sm_XX), not " + out.sm);
    }
    return Status::Ok();
  }
  if (name == "o" || name == "output-file") {
    QDC_ASSIGN_OR_RETURN(out.output, cursor.Value(arg, inline_value));
    if (out.output.empty()) return InvalidArgument("ptxas option '" + arg + "' needs a file name");
    return Status::Ok();
  }
  return Unsupported(arg);
}

client::ClientOptions ConnectionFromEnvironment() {
  client::ClientOptions options;
  options.client_name = "qdcache-ptxas";
  if (const char* socket = std::getenv("QDCACHE_SOCKET"); socket != nullptr && *socket != '\0') {
    options.socket_path = socket;
  }
  if (const char* address = std::getenv("QDCACHE_ADDR"); address != nullptr && *address != '\0') {
    options.address = address;
  }
  return options;
}

int Fail(const Status& status) {
  std::cerr << "qdcache ptxas: " << status.message() << "\n";
  return kPtxasFailure;
}

// The ptxas lines of a compile log (nvJitLink also writes its own "info"
// lines): what `ptxas -v` prints.
std::string PtxasLines(const std::string& log) {
  std::istringstream in(log);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("ptxas", 0) == 0) out += line + "\n";
  }
  return out;
}

}  // namespace

Expected<PtxasArgs> ParsePtxasArgs(const std::vector<std::string>& args) {
  PtxasArgs out;
  Cursor cursor(args);
  while (!cursor.done()) QDC_RETURN_IF_ERROR(Parse(cursor, out));
  if (out.version || out.help) return out;
  // ptxas -g compiles without optimization unless a level is given.
  if (out.options.count("debug") != 0 && out.options.count("opt_level") == 0) out.options["opt_level"] = 0;
  if (out.input.empty()) return InvalidArgument("no input file (ptxas FILE.ptx --gpu-name sm_XX)");
  if (out.sm.empty()) return InvalidArgument("no --gpu-name (the SM to compile for, e.g. sm_90)");
  return out;
}

int RunPtxas(const std::vector<std::string>& args) {
  Expected<PtxasArgs> parsed = ParsePtxasArgs(args);
  if (!parsed.ok()) return Fail(parsed.status());
  if (parsed->help) {
    std::cout << kUsage;
    return 0;
  }
  client::ClientOptions connect = ConnectionFromEnvironment();
  Expected<std::string> token = LoadToken("");
  if (!token.ok()) return Fail(token.status());
  connect.token = std::move(token).value();
  Expected<std::unique_ptr<client::Client>> client = ConnectCli(connect, /*is_ping=*/false);
  if (!client.ok()) return Fail(client.status());

  if (parsed->version) {
    Expected<v1::Stats> stats = (*client)->Stats();
    if (!stats.ok()) return Fail(stats.status());
    const std::string& cuda = stats->cuda_version();
    if (cuda.empty() || cuda == "none" || cuda.find("failed") != std::string::npos) {
      return Fail(FailedPrecondition("the daemon has no nvJitLink (CUDA: " + cuda + ")"));
    }
    std::cout << "ptxas: NVIDIA (R) Ptx optimizing assembler, through qdcached " << stats->version() << "\n"
              << "Cuda compilation tools, release " << cuda << ", V" << cuda << " (nvJitLink)\n";
    return 0;
  }

  v1::KernelDescriptor d;
  d.set_kind(v1::SOURCE_KIND_PTX);
  d.mutable_target()->mutable_cuda()->set_sm(parsed->sm);
  for (const auto& [name, value] : parsed->options) {
    if (Status set = client::SetWireOption(*d.mutable_options(), *FindOption(name), value); !set.ok()) return Fail(set);
  }
  if (Status read = ReadFile(parsed->input, d.mutable_ir()); !read.ok()) return Fail(read);
  v1::CompileRequest request;
  *request.add_kernels() = std::move(d);
  Expected<v1::CompileResponse> response = (*client)->Compile(std::move(request));
  if (!response.ok()) return Fail(response.status());
  if (response->results_size() != 1) return Fail(Internal("the daemon answered no result"));
  const v1::CompileResult& r = response->results(0);
  if (r.has_error()) {
    std::cerr << r.error().message() << "\n";
    return kPtxasFailure;
  }
  if (Status written = WriteOutputFile(parsed->output, r.artifact().payload()); !written.ok()) return Fail(written);
  if (parsed->verbose) std::cerr << PtxasLines(r.artifact().compile_log());
  return 0;
}

}  // namespace qdcache::cli

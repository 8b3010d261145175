#include "backends/nvrtc_compile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "backends/c_api.h"
#include "backends/compile_error.h"
#include "backends/cuda_libraries.h"
#include "common/digest.h"
#include "compiler/cuda_program.h"
#include "llvm/ADT/StringRef.h"

#ifdef QDCACHE_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace qdcache::compiler {

std::vector<std::string> NvrtcOptionArgs(const std::string& sm, const CompileOptions& options,
                                         const std::vector<std::string>& defines,
                                         const std::vector<std::string>& undefines) {
  std::string arch = sm;
  if (llvm::StringRef(arch).starts_with("sm_")) arch = "compute_" + arch.substr(3);
  std::vector<std::string> args = {"-arch=" + arch};
  if (options.cuda_std != 0) args.push_back("-std=c++" + std::to_string(options.cuda_std));
  if (options.fast_math) args.emplace_back("--use_fast_math");
  if (!options.fmad) args.emplace_back("--fmad=false");
  if (options.debug) args.emplace_back("-G");
  if (options.lineinfo) args.emplace_back("-lineinfo");
  if (options.extra_device_vectorization) args.emplace_back("-extra-device-vectorization");
  if (options.default_device) args.emplace_back("-default-device");
  if (options.relocatable_device_code) args.emplace_back("-rdc=true");
  for (const std::string& d : defines) args.push_back("-D" + d);
  for (const std::string& u : undefines) args.push_back("-U" + u);
  if (const std::string dir = CudaIncludeDir(); !dir.empty()) args.push_back("-I" + dir);
  return args;
}

std::string CudaIncludeDir() {
#ifdef QDCACHE_HAVE_NVRTC
  const llvm::StringRef dir = QDCACHE_CUDA_INCLUDE_DIR;
  return dir.ends_with("-NOTFOUND") ? std::string() : dir.str();
#else
  return {};
#endif
}

std::string CudaHeadersDigest() {
  const std::string dir = CudaIncludeDir();
  if (dir.empty()) return "none";
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<std::string, fs::path>> files;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.emplace_back(fs::relative(it->path(), dir, ec).string(), it->path());
  }
  if (ec || files.empty()) return "probe-failed:cuda-headers";
  std::sort(files.begin(), files.end());
  Sha256Hasher h;
  h.UpdateField("cuda-headers");
  for (const auto& [relative, path] : files) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return "probe-failed:cuda-headers";
    h.UpdateField(relative);
    h.UpdateU64(static_cast<std::uint64_t>(st.st_size));
    h.UpdateU64(static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                static_cast<std::uint64_t>(st.st_mtim.tv_nsec));
  }
  return ToHex(h.Finish());
}

#ifndef QDCACHE_HAVE_NVRTC

std::string NvrtcVersion() { return "none"; }

llvm::Expected<NvrtcOutput> CompileCudaToPtx(std::string_view, const std::string&, const CompileOptions&) {
  return NotAvailable("built without NVRTC");
}

#else

namespace {

using NvrtcProgram = ApiHandle<nvrtcProgram, nvrtcDestroyProgram>;

std::string Log(nvrtcProgram program) {
  return llvm::StringRef(ReadApiText([&](size_t* n) { return nvrtcGetProgramLogSize(program, n) == NVRTC_SUCCESS; },
                                     [&](char* text) { return nvrtcGetProgramLog(program, text) == NVRTC_SUCCESS; }))
      .trim()
      .str();
}

// NVRTC's "cannot (could not) open source file "x.cuh"": the header was
// neither sent nor the toolkit's. Empty when the log says nothing of the kind.
std::string MissingHeader(llvm::StringRef log) {
  constexpr llvm::StringRef kMarker = "open source file \"";
  const std::size_t at = log.find(kMarker);
  if (at == llvm::StringRef::npos) return "";
  const llvm::StringRef rest = log.substr(at + kMarker.size());
  return rest.substr(0, rest.find('"')).str();
}

llvm::Error Failure(const char* step, nvrtcResult result, nvrtcProgram program) {
  const std::string log = program != nullptr ? Log(program) : "";
  if (const std::string missing = MissingHeader(log); !missing.empty()) {
    return BadInput("the program includes \"" + missing +
                    "\", which is neither among the headers sent nor a CUDA toolkit header: send it as a header "
                    "(qdcache: --header " + missing + "=FILE or -I DIR). NVRTC: " + log);
  }
  const std::string message = "NVRTC " + std::string(step) + " failed (" + nvrtcGetErrorString(result) + ")" +
                              (log.empty() ? "" : ": " + log);
  switch (result) {
    case NVRTC_ERROR_INVALID_INPUT:
    case NVRTC_ERROR_INVALID_OPTION:
    case NVRTC_ERROR_COMPILATION:
    case NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:
    case NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
    case NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
      return BadInput(message);
    default:
      return ToolchainFailure(message);
  }
}

// The empty directory NVRTC runs in, made once per process (so a full disk
// later cannot stop a compile) under $TMPDIR (a worker's scratch directory)
// and removed at exit; empty when it could not be made.
const std::string& EmptyDirectory() {
  struct Made {
    Made() {
      const char* tmp = std::getenv("TMPDIR");
      std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/qdcache-nvrtc-XXXXXX";
      if (::mkdtemp(pattern.data()) != nullptr) path = std::move(pattern);
    }
    ~Made() {
      if (!path.empty()) ::rmdir(path.c_str());
    }
    std::string path;
  };
  static const Made made;
  return made.path;
}

// Runs NVRTC in that empty directory: a quoted #include that is not among the
// sent headers is looked up next to the main source, which is there, and
// finds nothing, so it cannot reach a file of the process's. The working
// directory is the process's: a compile worker runs one compile at a time.
class EmptyWorkingDirectory {
 public:
  EmptyWorkingDirectory() {
    previous_ = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const std::string& dir = EmptyDirectory();
    entered_ = previous_ >= 0 && !dir.empty() && ::chdir(dir.c_str()) == 0;
  }
  EmptyWorkingDirectory(const EmptyWorkingDirectory&) = delete;
  EmptyWorkingDirectory& operator=(const EmptyWorkingDirectory&) = delete;
  ~EmptyWorkingDirectory() {
    if (entered_) (void)::fchdir(previous_);
    if (previous_ >= 0) ::close(previous_);
  }
  [[nodiscard]] bool entered() const { return entered_; }

 private:
  int previous_ = -1;
  bool entered_ = false;
};

}  // namespace

std::string NvrtcVersion() {
  if (!CudaLibraryError(CudaLibrary::kNvrtc).empty()) return "none";
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "probe-failed:nvrtc";
  return std::to_string(major) + "." + std::to_string(minor);
}

llvm::Expected<NvrtcOutput> CompileCudaToPtx(std::string_view encoded, const std::string& sm,
                                             const CompileOptions& options) {
  if (const std::string& missing = CudaLibraryError(CudaLibrary::kNvrtc); !missing.empty()) return NotAvailable(missing);
  Expected<CudaProgram> decoded = DecodeCudaProgram(encoded);
  if (!decoded.ok()) return ToolchainFailure("the worker got a CUDA C++ program it cannot decode");
  const CudaProgram& program = *decoded;
  std::vector<const char*> header_names, header_texts;
  for (const auto& [name, content] : program.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(content.c_str());
  }
  const std::string source_name(kCudaSourceName);
  NvrtcProgram p;
  if (nvrtcResult r = nvrtcCreateProgram(p.out(), program.source.c_str(), source_name.c_str(),
                                         static_cast<int>(header_names.size()), header_texts.data(),
                                         header_names.data());
      r != NVRTC_SUCCESS) {
    return Failure("create", r, nullptr);
  }
  for (const std::string& e : program.name_expressions) {
    if (nvrtcResult r = nvrtcAddNameExpression(p.get(), e.c_str()); r != NVRTC_SUCCESS) {
      return Failure(("adding name expression \"" + e + "\"").c_str(), r, p.get());
    }
  }
  const std::vector<std::string> args = NvrtcOptionArgs(sm, options, program.defines, program.undefines);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  {
    EmptyWorkingDirectory jail;
    if (!jail.entered()) return ToolchainFailure("NVRTC: cannot make an empty working directory to compile in");
    if (nvrtcResult r = nvrtcCompileProgram(p.get(), static_cast<int>(argv.size()), argv.data());
        r != NVRTC_SUCCESS) {
      return Failure("compile", r, p.get());
    }
  }
  NvrtcOutput out;
  out.log = Log(p.get());
  out.ptx = ReadApiText([&](size_t* n) { return nvrtcGetPTXSize(p.get(), n) == NVRTC_SUCCESS; },
                        [&](char* text) { return nvrtcGetPTX(p.get(), text) == NVRTC_SUCCESS; });
  if (out.ptx.empty()) return ToolchainFailure("NVRTC produced no PTX");
  for (const std::string& e : program.name_expressions) {
    const char* lowered = nullptr;
    if (nvrtcResult r = nvrtcGetLoweredName(p.get(), e.c_str(), &lowered); r != NVRTC_SUCCESS || lowered == nullptr) {
      return Failure(("lowering name expression \"" + e + "\"").c_str(), r, p.get());
    }
    out.lowered_names.push_back({e, lowered});
  }
  return out;
}

#endif  // QDCACHE_HAVE_NVRTC

}  // namespace qdcache::compiler

#include "backends/device_libs.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "backends/compile_error.h"
#include "common/digest.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {
namespace {

#ifdef QDCACHE_DEVICE_LIBS_DIR
constexpr const char* kBuildTimeDir = QDCACHE_DEVICE_LIBS_DIR;
#else
constexpr const char* kBuildTimeDir = "";
#endif

bool IsLibraryFile(const std::string& name) {
  return name == "ocml.bc" || name == "ockl.bc" || (name.starts_with("oclc_") && name.ends_with(".bc"));
}

std::string OnOff(const char* stem, bool on) { return std::string(stem) + (on ? "_on.bc" : "_off.bc"); }

// The control variables (__oclc_*) the linked code reads but nothing defines.
std::vector<std::string> UndefinedControls(const llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::GlobalVariable& g : module.globals()) {
    if (g.isDeclaration() && !g.use_empty() && g.getName().starts_with("__oclc_")) names.push_back(g.getName().str());
  }
  return names;
}

}  // namespace

DeviceLibs LoadDeviceLibs(const std::string& configured_dir) {
  DeviceLibs libs;
  std::string dir = configured_dir.empty() ? kBuildTimeDir : configured_dir;
  if (llvm::StringRef(dir).ends_with("-NOTFOUND")) dir.clear();
  if (dir.empty()) {
    libs.missing = "no ROCm device-library directory was found at build time (install rocm-device-libs, or "
                   "configure rocm-device-libs)";
    return libs;
  }
  libs.dir = dir;
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (IsLibraryFile(name)) names.push_back(name);
  }
  if (ec) {
    libs.missing = "cannot read the ROCm device-library directory " + dir + ": " + ec.message();
    libs.digest = "probe-failed:rocm device libs";
    return libs;
  }
  std::sort(names.begin(), names.end());
  Sha256Hasher hash;
  for (const std::string& name : names) {
    auto buffer = llvm::MemoryBuffer::getFile(dir + "/" + name, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buffer) {
      libs.missing = "cannot read " + dir + "/" + name + ": " + buffer.getError().message();
      libs.files.clear();
      libs.digest = "probe-failed:rocm device libs";
      return libs;
    }
    hash.UpdateField(name);
    hash.UpdateField((*buffer)->getBuffer());
    libs.files[name] = (*buffer)->getBuffer().str();
  }
  if (!libs.files.contains("ocml.bc") || !libs.files.contains("ockl.bc")) {
    libs.missing = dir + " holds no ocml.bc and ockl.bc";
    libs.files.clear();
    return libs;
  }
  libs.digest = ToHex(hash.Finish());
  return libs;
}

std::vector<std::string> DeviceLibControlFiles(const AmdgpuProcessor& processor, const CompileOptions& options,
                                               unsigned code_object_version) {
  const bool fast = options.fast_math;
  return {
      OnOff("oclc_finite_only", fast),
      OnOff("oclc_unsafe_math", fast),
      OnOff("oclc_daz_opt", fast),
      OnOff("oclc_correctly_rounded_sqrt", !fast),
      OnOff("oclc_wavefrontsize64", AmdgpuWavefrontSize(processor, options) == 64),
      "oclc_isa_version_" + std::to_string(processor.major) + std::to_string(processor.minor) +
          llvm::utohexstr(processor.stepping, /*LowerCase=*/true) + ".bc",
      "oclc_abi_version_" + std::to_string(code_object_version * 100) + ".bc",
  };
}

llvm::Expected<UnknownIntrinsicOrigins> LinkDeviceLibs(llvm::Module& module, const DeviceLibs& libs,
                                                       const AmdgpuProcessor& processor,
                                                       const CompileOptions& options,
                                                       unsigned code_object_version) {
  if (libs.files.empty()) return NotAvailable("link_device_libs: ROCm's device libraries are not available (" + libs.missing + ")");
  std::vector<std::string> wanted = CalledDeclarations(module, "__ocml_");
  for (std::string& name : CalledDeclarations(module, "__ockl_")) wanted.push_back(std::move(name));
  // A library is parsed and linked only while the module calls one of its
  // functions that nothing defines yet: ocml calls ockl; a second round
  // covers calls back. A name neither defines stays undefined and is refused
  // later (CheckNoUnresolvedDeviceCalls).
  constexpr std::pair<const char*, const char*> kLibraries[] = {{"ocml.bc", "__ocml_"}, {"ockl.bc", "__ockl_"}};
  for (int round = 0; round < 2; ++round) {
    bool linked = false;
    for (const auto& [file, prefix] : kLibraries) {
      if (CalledDeclarations(module, prefix).empty()) continue;
      if (llvm::Error error = LinkBitcodeOnlyNeeded(module, libs.files.at(file), file)) return error;
      linked = true;
    }
    if (!linked) break;
  }
  std::vector<std::string> absent;
  for (const std::string& name : DeviceLibControlFiles(processor, options, code_object_version)) {
    auto file = libs.files.find(name);
    if (file == libs.files.end()) {
      absent.push_back(name);
      continue;
    }
    if (llvm::Error error = LinkBitcodeOnlyNeeded(module, file->second, name)) return error;
  }
  if (const std::vector<std::string> undefined = UndefinedControls(module); !undefined.empty()) {
    if (absent.empty()) {
      return BadInput("the module reads device-library controls that no control library defines: " +
                      llvm::join(undefined, ", "));
    }
    return NotAvailable("link_device_libs: the device libraries in " + libs.dir + " lack " + llvm::join(absent, ", ") +
                        " for " + processor.name + " (the linked code reads " + llvm::join(undefined, ", ") +
                        "); configure rocm-device-libs to a directory whose libraries know this processor");
  }
  return UnknownIntrinsicOriginsOf(module, wanted);
}

}  // namespace qdcache::compiler

// The compile pipeline, in this process:
//   bytes -> Module (ir_reader) -> conformed to the target (module_conform)
//   [-> + libdevice] -> entries (entry_points) -> FP options + O0..O3
//   (optimizer) -> CUDA: PTX (codegen)       } CompileToPtx
//                        -> cubin (nvjitlink_link)  } LinkCubin
//               -> CPU:  object (codegen) -> checked imports -> .so (lld_link,
//                        + compiler-rt builtins as needed) -> checked imports
//               -> AMDGPU: [+ ROCm device libraries before optimizing]
//                        object (codegen) -> code object (lld_link) -> kernels
//                        from its AMDHSA metadata (amdgpu_code_object)
// Each call owns its LLVMContext and TargetMachine, so compiles run
// concurrently; the only shared state is read-only (toolchain facts, libdevice
// bytes) or serialized inside lld_link and canonical_ir's datalayout cache.
#include <chrono>
#include <set>

#include "backends/amdgpu_code_object.h"
#include "backends/amdgpu_processor.h"
#include "backends/canonical_ir.h"
#include "backends/codegen.h"
#include "backends/compile_error.h"
#include "backends/in_process_compiler.h"
#include "compiler/compiler.h"
#include "backends/cuda_support.h"
#include "backends/device_libs.h"
#include "backends/diagnostics.h"
#include "backends/entry_points.h"
#include "backends/ir_reader.h"
#include "backends/kept_parse.h"
#include "backends/libdevice_link.h"
#include "backends/lld_link.h"
#include "backends/llvm_targets.h"
#include "backends/module_conform.h"
#include "backends/nvjitlink_link.h"
#include "backends/nvrtc_compile.h"
#include "backends/nvvm_compile.h"
#include "compiler/ptx_text.h"
#include "compiler/ptx_variables.h"
#include "backends/object_sizes.h"
#include "backends/object_symbols.h"
#include "backends/optimizer.h"
#include "compiler/ptxas_info.h"
#include "backends/target_machine.h"
#include "backends/target_validation.h"
#include "backends/toolchain_probe.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/LLVMContext.h"

namespace qdcache::compiler {
namespace {

class StageTimer {
 public:
  explicit StageTimer(double& seconds)
      : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;
  ~StageTimer() {
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_;
};

llvm::Error FromStatus(const Status& status) {
  return llvm::make_error<CompileError>(status.code(), status.message());
}

bool IsPlainIdentifier(llvm::StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

// Everything one compile (or one CUDA stage) needs, alive for its duration.
struct Job {
  // `parsed`: the module of input.ir a digest kept (kept_parse.h), which
  // Prepare then does not read again.
  Job(const CompileInput& in, Target t, CompileOptions o, std::unique_ptr<ParsedIr> parsed = nullptr)
      : input(in),
        target(std::move(t)),
        options(o),
        owned_context(parsed != nullptr ? std::move(parsed->context) : std::make_unique<llvm::LLVMContext>()),
        context(*owned_context),
        diagnostics(context, parsed != nullptr ? std::move(parsed->diagnostics) : std::string()),
        log(parsed != nullptr ? std::move(parsed->reader_log) : std::string()),
        module(parsed != nullptr ? std::move(parsed->module) : nullptr) {
    if (parsed != nullptr) timings.parse_seconds = parsed->parse_seconds;
  }

  const CompileInput& input;
  Target target;           // normalized and supported
  CompileOptions options;  // what this job may read (StageOptions)
  std::unique_ptr<llvm::LLVMContext> owned_context;
  llvm::LLVMContext& context;
  DiagnosticCollector diagnostics;
  std::string log;  // the IR reader's warnings
  StageTimings timings;
  std::unique_ptr<llvm::Module> module;  // destroyed before its context
  std::unique_ptr<llvm::TargetMachine> machine;
  std::vector<EntryFunction> entries;
  UnknownIntrinsicOrigins libdevice_unknown_intrinsics;
  unsigned code_object_version = 0;  // AMDGPU: the version codegen writes
};

llvm::Expected<Target> CheckedTarget(const Target& requested, CudaPath path = CudaPath::kFromLlvmIr) {
  Expected<Target> target = NormalizeTarget(requested);
  if (!target.ok()) return FromStatus(target.status());
  if (llvm::Error error = CheckTargetSupported(*target, path)) return error;
  return std::move(*target);
}

llvm::Error CheckOptLevel(const CompileOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    return BadInput("opt_level must be 0..3, got " + llvm::Twine(options.opt_level));
  }
  return llvm::Error::success();
}

Status CheckNotCancelled(const CallControl& control) {
  if (control.cancel != nullptr && control.cancel->cancelled()) return Cancelled("compile cancelled");
  if (std::chrono::steady_clock::now() >= control.deadline) {
    return DeadlineExceeded("compile deadline passed before it started");
  }
  return Status::Ok();
}

// The job's module as a relocatable object (codegen, timed), or the error
// codegen reported (`stage` names it).
llvm::Expected<std::string> EmitJobObject(Job& job, const char* stage) {
  StageTimer timer(job.timings.codegen_seconds);
  auto emitted = EmitObject(*job.module, *job.machine);
  if (!emitted) return emitted.takeError();
  if (llvm::Error error = job.diagnostics.TakeError(stage)) return error;
  return std::move(*emitted);
}

// compiler-rt's builtins archive and the symbols it defines; an archive that
// does not read as one is not linked, and its digest says so.
struct Builtins {
  ToolkitFile file;
  std::set<std::string> symbols;
  std::string missing;  // why there are none; empty when there are
};

Builtins LoadBuiltins() {
  Builtins builtins{LoadCompilerRtBuiltins(), {}, {}};
  if (builtins.file.bytes.empty()) {
    builtins.missing = builtins.file.path.empty() ? "none was found at build time"
                                                  : builtins.file.path + " could not be read";
    return builtins;
  }
  auto symbols = ArchiveSymbols(builtins.file.bytes);
  if (!symbols) {
    builtins.missing = builtins.file.path + " is not an archive: " + llvm::toString(symbols.takeError());
    builtins.file.bytes.clear();
    builtins.file.digest = "probe-failed:compiler-rt builtins";
    return builtins;
  }
  builtins.symbols = std::move(*symbols);
  return builtins;
}

class InProcessCompiler final : public Compiler {
 public:
  explicit InProcessCompiler(const CompilerConfig& config)
      : libdevice_(LoadLibdevice(config.libdevice_path)),
        cudadevrt_(LoadCudadevrt()),
        builtins_(LoadBuiltins()),
        device_libs_(LoadDeviceLibs(config.device_libs_dir)),
        toolchain_(DescribeToolchain(libdevice_, cudadevrt_, builtins_.file, device_libs_.digest)) {}

  Expected<CompileOutput> Compile(const CompileInput& input, const CallControl& control) override {
    QDC_RETURN_IF_ERROR(CheckNotCancelled(control));
    if (input.target.kind == TargetKind::kCuda) return CompileCuda(input);
    CompileOutput out;
    if (llvm::Error error = CompileObjectInto(input, out)) return ToStatus(std::move(error));
    if (out.payload.empty()) return Internal("the compiler produced an empty artifact");
    return out;
  }

  // The module codegen is handed, as text.
  Expected<std::string> OptimizedIr(const CompileInput& input) const {
    InitializeLlvmTargets();
    auto target = CheckedTarget(input.target);
    if (!target) return ToStatus(target.takeError());
    Job job(input, std::move(*target), input.options);
    if (llvm::Error error = Prepare(job)) return ToStatus(std::move(error));
    std::string text;
    llvm::raw_string_ostream os(text);
    job.module->print(os, nullptr);
    return text;
  }

  Expected<Digest> CanonicalIrDigest(std::string_view ir, const Target& target,
                                     bool keep_debug_info, const CallControl& control) override {
    QDC_RETURN_IF_ERROR(CheckNotCancelled(control));
    auto digest = ComputeCanonicalIrDigest(ir, target, keep_debug_info, control.kept_parse != nullptr);
    if (!digest) return ToStatus(digest.takeError());
    if (control.kept_parse != nullptr) *control.kept_parse = 1;  // this process's one slot
    return *digest;
  }

  Expected<PtxOutput> CompileToPtx(const CompileInput& input, const CallControl& control) override {
    QDC_RETURN_IF_ERROR(CheckNotCancelled(control));
    PtxOutput out;
    if (llvm::Error error = CompileToPtxInto(input, out)) return ToStatus(std::move(error));
    return out;
  }

  Expected<StagedCubin> CompileThroughCubin(const CompileInput& input, const CallControl& control) override {
    QDC_RETURN_IF_ERROR(CheckNotCancelled(control));
    StagedCubin out;
    if (llvm::Error error = CompileToPtxInto(input, out.ptx)) return ToStatus(std::move(error));
    QDC_RETURN_IF_ERROR(CheckNotCancelled(control));
    if (llvm::Error error = LinkCubinInto(out.ptx.ptx, out.ptx.entries, input.target, input.options, out.cubin)) {
      return ToStatus(std::move(error));
    }
    return out;
  }

  Expected<CompileOutput> LinkCubin(std::string_view ptx, const std::vector<EntryInfo>& entries,
                                    const Target& target, const CompileOptions& options,
                                    const CallControl& control) override {
    QDC_RETURN_IF_ERROR(CheckNotCancelled(control));
    CompileOutput out;
    if (llvm::Error error = LinkCubinInto(std::string(ptx), entries, target, options, out))
      return ToStatus(std::move(error));
    return out;
  }

  const ToolchainInfo& toolchain() const override { return toolchain_; }

 private:
  Expected<CompileOutput> CompileCuda(const CompileInput& input) const;
  llvm::Error CompileToPtxInto(const CompileInput& input, PtxOutput& out) const;
  llvm::Error NvvmToPtxInto(const CompileInput& input, PtxOutput& out) const;
  llvm::Error CudaToPtxInto(const CompileInput& input, PtxOutput& out) const;
  llvm::Error LinkCubinInto(std::string ptx, const std::vector<EntryInfo>& entries,
                            const Target& requested, const CompileOptions& options,
                            CompileOutput& out) const;
  llvm::Error CompileObjectInto(const CompileInput& input, CompileOutput& out) const;
  llvm::Error Prepare(Job& job) const;
  llvm::Error EmitCudaPtx(Job& job, PtxOutput& out) const;
  llvm::Error FinishCpu(Job& job, CompileOutput& out) const;
  llvm::Error FinishAmdgpu(Job& job, CompileOutput& out) const;

  const Libdevice libdevice_;
  const Cudadevrt cudadevrt_;
  const Builtins builtins_;
  const DeviceLibs device_libs_;
  const ToolchainInfo toolchain_;
};

// The two stages back to back; the PTX moves into the output uncopied.
Expected<CompileOutput> InProcessCompiler::CompileCuda(const CompileInput& input) const {
  PtxOutput ptx;
  if (llvm::Error error = CompileToPtxInto(input, ptx)) return ToStatus(std::move(error));
  CompileOutput out;
  if (llvm::Error error =
          LinkCubinInto(std::move(ptx.ptx), ptx.entries, input.target, input.options, out)) {
    return ToStatus(std::move(error));
  }
  out.log = ptx.log + out.log;
  const double link_seconds = out.timings.link_seconds;
  out.timings = ptx.timings;
  out.timings.link_seconds = link_seconds;
  return out;
}

llvm::Error InProcessCompiler::CompileToPtxInto(const CompileInput& input, PtxOutput& out) const {
  InitializeLlvmTargets();
  if (input.target.kind != TargetKind::kCuda) {
    return BadInput("CompileToPtx needs a CUDA target, got " + input.target.ToString());
  }
  if (input.kind == InputKindId::kNvvm) return NvvmToPtxInto(input, out);
  if (input.kind == InputKindId::kCuda) return CudaToPtxInto(input, out);
  auto target = CheckedTarget(input.target);
  if (!target) return target.takeError();
  if (llvm::Error error = CheckOptLevel(input.options)) return error;

  Job job(input, std::move(*target), StageOptions(input.options, kStageCodegen), TakeKeptParse(input.ir));
  llvm::Error error = Prepare(job);
  if (!error) error = EmitCudaPtx(job, out);
  out.log = job.diagnostics.log() + job.log;
  out.timings = job.timings;
  return error;
}

// CPU and AMDGPU: one LLVM object, linked by lld.
llvm::Error InProcessCompiler::CompileObjectInto(const CompileInput& input, CompileOutput& out) const {
  InitializeLlvmTargets();
  auto target = CheckedTarget(input.target);
  if (!target) return target.takeError();
  if (llvm::Error error = CheckOptLevel(input.options)) return error;

  Job job(input, std::move(*target), input.options, TakeKeptParse(input.ir));
  llvm::Error error = Prepare(job);
  if (!error) error = job.target.kind == TargetKind::kAmdgpu ? FinishAmdgpu(job, out) : FinishCpu(job, out);
  out.log = job.diagnostics.log() + job.log + out.log;
  const double link_seconds = out.timings.link_seconds;
  out.timings = job.timings;
  out.timings.link_seconds = link_seconds;
  return error;
}

// Parse, conform, link libdevice, select entries, optimize.
llvm::Error InProcessCompiler::Prepare(Job& job) const {
  const bool cuda = job.target.kind == TargetKind::kCuda;
  const CompileOptions& options = job.options;
  if (job.module == nullptr) {  // else kept from the digest of the same bytes
    StageTimer timer(job.timings.parse_seconds);
    auto module = ReadModule(job.input.ir, job.context, job.log);
    if (!module) return module.takeError();
    job.module = std::move(*module);
    if (llvm::Error error = job.diagnostics.TakeError("parsing")) return error;
  }
  StageTimer timer(job.timings.optimize_seconds);
  auto machine = CreateTargetMachine(job.target, options);
  if (!machine) return machine.takeError();
  job.machine = std::move(*machine);
  if (llvm::Error error =
          ConformModuleToTarget(*job.module, job.target, job.machine->createDataLayout())) {
    return error;
  }
  auto entries = SelectEntryPoints(*job.module, job.target.kind, job.input.entry_points);
  if (!entries) return entries.takeError();
  job.entries = std::move(*entries);

  if (job.target.kind == TargetKind::kAmdgpu) {
    auto version = ApplyCodeObjectVersion(*job.module, options);
    if (!version) return version.takeError();
    job.code_object_version = *version;
    if (llvm::Error error = CheckAmdgpuOptions(job.target, options, job.code_object_version)) return error;
    if (options.link_device_libs) {
      auto unknown = LinkDeviceLibs(*job.module, device_libs_, *FindAmdgpuProcessor(job.target.cpu), options,
                                    job.code_object_version);
      if (!unknown) return unknown.takeError();
      job.libdevice_unknown_intrinsics = std::move(*unknown);
      RemoveFunctionTargetPins(*job.module);
      if (llvm::Error error = job.diagnostics.TakeError("device-library linking")) return error;
    }
  }
  if (cuda && options.link_libdevice) {
    if (libdevice_.bytes.empty()) {
      return NotAvailable(
          "link_libdevice requested but libdevice is unavailable (" +
          (libdevice_.path.empty() ? std::string("no path configured") : libdevice_.path) + ")");
    }
    auto unknown = LinkLibdevice(*job.module, libdevice_.bytes);
    if (!unknown) return unknown.takeError();
    job.libdevice_unknown_intrinsics = std::move(*unknown);
    RemoveFunctionTargetPins(*job.module);
    if (llvm::Error error = job.diagnostics.TakeError("libdevice linking")) return error;
  }
  // Debug info only when asked for: it must not change the artifact otherwise.
  if (!options.debug && !(cuda && options.lineinfo)) {
    llvm::StripDebugInfo(*job.module);
    // The ELF file symbol / PTX header would otherwise carry the client's path.
    job.module->setSourceFileName("kernel");
  }

  ApplyFloatingPointOptions(*job.module, options, job.target.kind);
  if (llvm::Error error = OptimizeModule(*job.module, *job.machine, options.opt_level))
    return error;
  return job.diagnostics.TakeError("optimization");
}

llvm::Error InProcessCompiler::EmitCudaPtx(Job& job, PtxOutput& out) const {
  if (llvm::Error error =
          CheckNoUnresolvedDeviceCalls(*job.module, TargetKind::kCuda, job.libdevice_unknown_intrinsics)) {
    return error;
  }
  {
    StageTimer timer(job.timings.codegen_seconds);
    auto ptx = EmitPtx(*job.module, *job.machine);
    if (!ptx) return ptx.takeError();
    if (llvm::Error error = job.diagnostics.TakeError("PTX codegen")) return error;
    out.ptx = std::move(*ptx);
  }
  for (const EntryFunction& entry : job.entries) {
    if (IsPlainIdentifier(entry.name) &&
        out.ptx.find(".entry " + entry.name + "(") == std::string::npos) {
      return BadInput("kernel '" + entry.name +
                      "' is missing from the generated PTX (removed by optimization?)");
    }
    EntryInfo info;
    info.name = entry.name;
    info.max_threads_per_block = entry.max_threads_per_block;
    out.entries.push_back(std::move(info));
  }
  return llvm::Error::success();
}

// PTX a toolkit compiler (`producer`) made, with its kernels, into `out`;
// INVALID_ARGUMENT `no_kernel` when it has none, or when a variable is past
// the size bound (the PTX input kind's are checked in the daemon, LLVM IR's
// before codegen).
llvm::Error TakeToolkitPtx(std::string ptx, std::string_view producer, std::string_view no_kernel, PtxOutput& out) {
  Expected<std::string> canonical = CanonicalPtx(ptx, true);
  if (!canonical.ok()) {
    return ToolchainFailure(std::string(producer) + "'s PTX does not read as PTX: " + canonical.status().message());
  }
  if (Status sizes = CheckPtxVariableSizes(*canonical, kMaxObjectBytes); !sizes.ok()) return FromStatus(sizes);
  out.entries = PtxEntryInfos(*canonical);
  if (out.entries.empty()) return BadInput(no_kernel);
  out.ptx = std::move(ptx);
  return llvm::Error::success();
}

// NVVM IR through libNVVM; the kernels are the PTX's.
llvm::Error InProcessCompiler::NvvmToPtxInto(const CompileInput& input, PtxOutput& out) const {
  auto target = CheckedTarget(input.target, CudaPath::kFromPtx);
  if (!target) return target.takeError();
  if (llvm::Error error = CheckOptLevel(input.options)) return error;
  const CompileOptions options = StageOptions(input.options, kStageCodegen);
  if (options.link_libdevice && libdevice_.bytes.empty()) {
    return NotAvailable("link_libdevice: libdevice is not available (" +
                        (libdevice_.path.empty() ? std::string("no path configured") : libdevice_.path) + ")");
  }
  StageTimer timer(out.timings.codegen_seconds);
  auto ptx = CompileNvvmToPtx(input.ir, target->sm, options,
                              options.link_libdevice ? std::string_view(libdevice_.bytes) : std::string_view());
  if (!ptx) return ptx.takeError();
  return TakeToolkitPtx(std::move(*ptx), "libNVVM", "the NVVM IR defines no kernel (no \"kernel\" nvvm.annotations entry)",
                        out);
}

// A CUDA C++ program through NVRTC; the kernels are the PTX's.
llvm::Error InProcessCompiler::CudaToPtxInto(const CompileInput& input, PtxOutput& out) const {
  auto target = CheckedTarget(input.target, CudaPath::kFromPtx);
  if (!target) return target.takeError();
  if (llvm::Error error = CheckOptLevel(input.options)) return error;
  StageTimer timer(out.timings.codegen_seconds);
  auto compiled = CompileCudaToPtx(input.ir, target->sm, input.options);
  if (!compiled) return compiled.takeError();
  out.log = std::move(compiled->log);
  out.lowered_names = std::move(compiled->lowered_names);
  return TakeToolkitPtx(std::move(compiled->ptx), "NVRTC", "the CUDA C++ program defines no kernel (no __global__ function)",
                        out);
}

llvm::Error InProcessCompiler::LinkCubinInto(std::string ptx, const std::vector<EntryInfo>& entries,
                                             const Target& requested, const CompileOptions& options,
                                             CompileOutput& out) const {
  InitializeLlvmTargets();
  if (requested.kind != TargetKind::kCuda) {
    return BadInput("LinkCubin needs a CUDA target, got " + requested.ToString());
  }
  auto target = CheckedTarget(requested, CudaPath::kFromPtx);
  if (!target) return target.takeError();
  if (llvm::Error error = CheckOptLevel(options)) return error;
  if (ptx.empty()) return BadInput("LinkCubin got empty PTX");

  StageTimer timer(out.timings.link_seconds);
  if (options.link_cudadevrt && cudadevrt_.bytes.empty()) {
    return NotAvailable("link_cudadevrt: libcudadevrt is not available (" +
                        (cudadevrt_.path.empty() ? std::string("not found at build time") : cudadevrt_.path) + ")");
  }
  auto cubin = LinkPtxToCubin(ptx, target->sm, StageOptions(options, kStageLink),
                              options.link_cudadevrt ? std::string_view(cudadevrt_.bytes) : std::string_view());
  if (!cubin) return cubin.takeError();
  if (cubin->cubin.empty()) return ToolchainFailure("nvJitLink produced an empty cubin");
  out.kind = ArtifactKind::kCubin;
  out.payload = std::move(cubin->cubin);
  out.ptx = std::move(ptx);
  out.log = std::move(cubin->info_log);
  const auto resources = ParsePtxasInfoLog(out.log);
  out.entries = entries;
  for (EntryInfo& info : out.entries) {
    if (auto it = resources.find(info.name); it != resources.end()) {
      info.registers = it->second.registers;
      info.shared_bytes = it->second.shared_bytes;
      info.local_bytes = it->second.local_bytes;
    }
  }
  return llvm::Error::success();
}

llvm::Error InProcessCompiler::FinishCpu(Job& job, CompileOutput& out) const {
  auto emitted = EmitJobObject(job, "x86-64 codegen");
  if (!emitted) return emitted.takeError();
  const std::string object = std::move(*emitted);
  std::vector<std::string> names;
  for (const EntryFunction& entry : job.entries) names.push_back(entry.name);
  auto imports = CheckObjectSymbols(object, names, builtins_.symbols, builtins_.missing);
  if (!imports) return imports.takeError();

  StageTimer timer(out.timings.link_seconds);
  LinkInputs inputs;
  inputs.libm = imports->needs_libm;
  if (!imports->builtins.empty()) inputs.builtins = builtins_.file.bytes;
  auto shared_object = LinkSharedObject(object, inputs, out.log);
  if (!shared_object) return shared_object.takeError();
  // Only the builtins can have brought in imports the object did not have.
  if (!imports->builtins.empty()) {
    if (llvm::Error error = CheckLibraryImports(*shared_object, imports->builtins)) return error;
  }
  out.kind = ArtifactKind::kSharedObject;
  out.payload = std::move(*shared_object);
  for (const std::string& name : names) out.entries.push_back(EntryInfo{name});
  return llvm::Error::success();
}

llvm::Error InProcessCompiler::FinishAmdgpu(Job& job, CompileOutput& out) const {
  if (llvm::Error error =
          CheckNoUnresolvedDeviceCalls(*job.module, TargetKind::kAmdgpu, job.libdevice_unknown_intrinsics)) {
    return error;
  }
  auto emitted = EmitJobObject(job, "AMDGPU codegen");
  if (!emitted) return emitted.takeError();
  const std::string object = std::move(*emitted);
  StageTimer timer(out.timings.link_seconds);
  LinkInputs inputs;
  inputs.code_object = true;
  auto code_object = LinkSharedObject(object, inputs, out.log);
  if (!code_object) return code_object.takeError();
  std::vector<std::string> names;
  for (const EntryFunction& entry : job.entries) names.push_back(entry.name);
  auto kernels = ReadCodeObjectKernels(*code_object, names);
  if (!kernels) return kernels.takeError();
  out.kind = ArtifactKind::kHsaCodeObject;
  out.payload = std::move(*code_object);
  out.entries = std::move(*kernels);
  return llvm::Error::success();
}

}  // namespace

Expected<std::string> OptimizedIr(const CompileInput& input, const CompilerConfig& config) {
  InitializeLlvmTargets();
  if (input.target.kind == TargetKind::kCuda) return InvalidArgument("OptimizedIr covers CPU and AMDGPU targets");
  return InProcessCompiler(config).OptimizedIr(input);
}

std::unique_ptr<Compiler> MakeInProcessCompiler(const CompilerConfig& config) {
  InitializeLlvmTargets();
  return std::make_unique<InProcessCompiler>(config);
}

}  // namespace qdcache::compiler

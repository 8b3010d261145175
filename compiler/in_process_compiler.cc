// The compile pipeline, in this process:
//   bytes -> Module (ir_reader) -> conformed to the target (module_conform)
//   [-> + libdevice] -> entries (entry_points) -> FP options + O0..O3
//   (optimizer) -> CUDA: PTX (codegen) -> cubin (nvjitlink_link)
//               -> CPU:  object (codegen) -> checked imports -> .so (lld_link)
// Each Compile() owns its LLVMContext and TargetMachine, so compiles run
// concurrently; the only shared state is read-only (toolchain facts, libdevice
// bytes) or serialized inside lld_link.
#include <chrono>

#include "compiler/codegen.h"
#include "compiler/compile_error.h"
#include "compiler/compiler.h"
#include "compiler/cuda_support.h"
#include "compiler/diagnostics.h"
#include "compiler/entry_points.h"
#include "compiler/ir_reader.h"
#include "compiler/libdevice_link.h"
#include "compiler/lld_link.h"
#include "compiler/llvm_targets.h"
#include "compiler/module_conform.h"
#include "compiler/nvjitlink_link.h"
#include "compiler/object_symbols.h"
#include "compiler/optimizer.h"
#include "compiler/ptxas_info.h"
#include "compiler/target_machine.h"
#include "compiler/target_validation.h"
#include "compiler/toolchain_probe.h"
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

// Everything one compile needs, alive for its duration.
struct Job {
  Job(const CompileInput& in, Target t, CompileOutput& o)
      : input(in), target(std::move(t)), out(o) {}

  const CompileInput& input;
  Target target;
  CompileOutput& out;
  llvm::LLVMContext context;
  DiagnosticCollector diagnostics{context};
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::vector<EntryFunction> entries;
};

class InProcessCompiler final : public Compiler {
 public:
  explicit InProcessCompiler(const CompilerConfig& config)
      : libdevice_(LoadLibdevice(config.libdevice_path)),
        toolchain_(DescribeToolchain(libdevice_)) {}

  Expected<CompileOutput> Compile(const CompileInput& input) override {
    CompileOutput out;
    if (llvm::Error error = CompileInto(input, out)) return ToStatus(std::move(error));
    if (out.payload.empty()) return Internal("the compiler produced an empty artifact");
    return out;
  }

  const ToolchainInfo& toolchain() const override { return toolchain_; }

 private:
  llvm::Error CompileInto(const CompileInput& input, CompileOutput& out) const;
  llvm::Error Prepare(Job& job) const;
  llvm::Error FinishCuda(Job& job) const;
  llvm::Error FinishCpu(Job& job) const;

  const Libdevice libdevice_;
  const ToolchainInfo toolchain_;
};

llvm::Error InProcessCompiler::CompileInto(const CompileInput& input, CompileOutput& out) const {
  InitializeLlvmTargets();
  Expected<Target> target = NormalizeTarget(input.target);
  if (!target.ok()) return FromStatus(target.status());
  if (llvm::Error error = CheckTargetSupported(*target)) return error;
  if (input.options.opt_level < 0 || input.options.opt_level > 3) {
    return BadInput("opt_level must be 0..3, got " + llvm::Twine(input.options.opt_level));
  }

  Job job(input, std::move(*target), out);
  llvm::Error error = Prepare(job);
  if (!error) {
    error = job.target.kind == TargetKind::kCuda ? FinishCuda(job) : FinishCpu(job);
  }
  out.log = job.diagnostics.log() + out.log;
  return error;
}

// Parse, conform, link libdevice, select entries, optimize.
llvm::Error InProcessCompiler::Prepare(Job& job) const {
  const bool cuda = job.target.kind == TargetKind::kCuda;
  const CompileOptions& options = job.input.options;
  {
    StageTimer timer(job.out.timings.parse_seconds);
    auto module = ReadModule(job.input.ir, job.context, job.out.log);
    if (!module) return module.takeError();
    job.module = std::move(*module);
    if (llvm::Error error = job.diagnostics.TakeError("parsing")) return error;
  }
  StageTimer timer(job.out.timings.optimize_seconds);
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

  if (cuda && options.link_libdevice) {
    if (libdevice_.bitcode.empty()) {
      return NotAvailable(
          "link_libdevice requested but libdevice is unavailable (" +
          (libdevice_.path.empty() ? std::string("no path configured") : libdevice_.path) + ")");
    }
    if (llvm::Error error = LinkLibdevice(*job.module, libdevice_.bitcode)) return error;
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

llvm::Error InProcessCompiler::FinishCuda(Job& job) const {
  if (llvm::Error error = CheckNoUnresolvedDeviceCalls(*job.module)) return error;
  {
    StageTimer timer(job.out.timings.codegen_seconds);
    auto ptx = EmitPtx(*job.module, *job.machine);
    if (!ptx) return ptx.takeError();
    if (llvm::Error error = job.diagnostics.TakeError("PTX codegen")) return error;
    job.out.ptx = std::move(*ptx);
  }
  for (const EntryFunction& entry : job.entries) {
    if (IsPlainIdentifier(entry.name) &&
        job.out.ptx.find(".entry " + entry.name + "(") == std::string::npos) {
      return BadInput("kernel '" + entry.name +
                      "' is missing from the generated PTX (removed by optimization?)");
    }
  }
  StageTimer timer(job.out.timings.link_seconds);
  auto cubin = LinkPtxToCubin(job.out.ptx, job.target.sm, job.input.options);
  if (!cubin) return cubin.takeError();
  job.out.kind = ArtifactKind::kCubin;
  job.out.payload = std::move(cubin->cubin);
  job.out.log += cubin->info_log;
  const auto resources = ParsePtxasInfoLog(cubin->info_log);
  for (const EntryFunction& entry : job.entries) {
    EntryInfo info;
    info.name = entry.name;
    info.max_threads_per_block = entry.max_threads_per_block;
    if (auto it = resources.find(entry.name); it != resources.end()) {
      info.registers = it->second.registers;
      info.shared_bytes = it->second.shared_bytes;
      info.local_bytes = it->second.local_bytes;
    }
    job.out.entries.push_back(std::move(info));
  }
  return llvm::Error::success();
}

llvm::Error InProcessCompiler::FinishCpu(Job& job) const {
  std::string object;
  {
    StageTimer timer(job.out.timings.codegen_seconds);
    auto emitted = EmitObject(*job.module, *job.machine);
    if (!emitted) return emitted.takeError();
    if (llvm::Error error = job.diagnostics.TakeError("x86-64 codegen")) return error;
    object = std::move(*emitted);
  }
  std::vector<std::string> names;
  for (const EntryFunction& entry : job.entries) names.push_back(entry.name);
  auto imports = CheckObjectSymbols(object, names);
  if (!imports) return imports.takeError();

  StageTimer timer(job.out.timings.link_seconds);
  auto shared_object = LinkSharedObject(object, imports->needs_libm, job.out.log);
  if (!shared_object) return shared_object.takeError();
  job.out.kind = ArtifactKind::kSharedObject;
  job.out.payload = std::move(*shared_object);
  for (const std::string& name : names) job.out.entries.push_back(EntryInfo{name});
  return llvm::Error::success();
}

}  // namespace

std::unique_ptr<Compiler> MakeInProcessCompiler(const CompilerConfig& config) {
  InitializeLlvmTargets();
  return std::make_unique<InProcessCompiler>(config);
}

}  // namespace qdcache::compiler

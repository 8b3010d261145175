#include "backends/amdgpu_code_object.h"

#include <map>
#include <set>

#include "backends/compile_error.h"
#include "backends/elf_symbols.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/IR/Constants.h"
#include "llvm/Object/ELFObjectFile.h"

namespace qdcache::compiler {
namespace {

constexpr llvm::StringLiteral kVersionFlag = "amdhsa_code_object_version";

// An integer field of a metadata map; `fallback` when absent or not one.
int IntField(llvm::msgpack::MapDocNode& map, llvm::StringRef key, int fallback) {
  auto it = map.find(key);
  if (it == map.end()) return fallback;
  const llvm::msgpack::DocNode& node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt) return static_cast<int>(std::min<std::uint64_t>(node.getUInt(), INT32_MAX));
  if (node.getKind() == llvm::msgpack::Type::Int) return static_cast<int>(node.getInt());
  return fallback;
}

// The AMDHSA metadata note's MsgPack blob.
llvm::Expected<std::string> MetadataBlob(std::string_view code_object) {
  auto file = llvm::object::ELF64LEFile::create(llvm::StringRef(code_object.data(), code_object.size()));
  if (!file) return ToolchainFailure("the code object is not a 64-bit ELF file: " + llvm::toString(file.takeError()));
  auto sections = file->sections();
  if (!sections) return ToolchainFailure("the code object's sections do not read: " + llvm::toString(sections.takeError()));
  for (const auto& section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error error = llvm::Error::success();
    for (const auto& note : file->notes(section, error)) {
      if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA) {
        llvm::consumeError(std::move(error));
        return note.getDescAsStringRef(section.sh_addralign).str();
      }
    }
    if (error) return ToolchainFailure("the code object's notes do not read: " + llvm::toString(std::move(error)));
  }
  return ToolchainFailure("the code object has no AMDHSA metadata note");
}

}  // namespace

llvm::Expected<unsigned> ApplyCodeObjectVersion(llvm::Module& module, const CompileOptions& options) {
  std::optional<unsigned> from_module;
  if (const llvm::Metadata* raw = module.getModuleFlag(kVersionFlag); raw != nullptr) {
    const auto* flag = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(raw);
    if (flag == nullptr) return BadInput("the module's amdhsa_code_object_version flag is not an integer");
    const std::uint64_t value = flag->getZExtValue();
    if (value != 400 && value != 500 && value != 600) {
      return BadInput("the module's amdhsa_code_object_version flag is " + llvm::Twine(value) +
                      "; LLVM 19 writes code object versions 4, 5 and 6 (400, 500, 600)");
    }
    from_module = static_cast<unsigned>(value / 100);
  }
  if (options.code_object_version != 0 && from_module && *from_module != options.code_object_version) {
    return BadInput("code_object_version " + llvm::Twine(options.code_object_version) +
                    " contradicts the module's amdhsa_code_object_version flag (" + llvm::Twine(*from_module * 100) +
                    ")");
  }
  const unsigned version = options.code_object_version != 0 ? options.code_object_version
                                                            : from_module.value_or(kDefaultCodeObjectVersion);
  if (!from_module) module.addModuleFlag(llvm::Module::Error, kVersionFlag, version * 100);
  return version;
}

llvm::Expected<std::vector<EntryInfo>> ReadCodeObjectKernels(std::string_view code_object,
                                                            const std::vector<std::string>& names) {
  auto symbols = ReadElfSymbols(code_object, "the code object", SymbolTable::kStatic);
  if (!symbols) return symbols.takeError();
  std::set<std::string> defined;
  std::vector<std::string> undefined;
  for (const ElfSymbol& symbol : *symbols) {
    if (symbol.undefined) {
      undefined.push_back(symbol.name);
    } else {
      defined.insert(symbol.name);
    }
  }
  if (!undefined.empty()) {
    return BadInput("the code object would import " + llvm::join(undefined, ", ") +
                    "; an HSA code object links nothing at load time");
  }
  auto blob = MetadataBlob(code_object);
  if (!blob) return blob.takeError();
  llvm::msgpack::Document document;
  if (!document.readFromBlob(*blob, /*Multi=*/false) || !document.getRoot().isMap()) {
    return ToolchainFailure("the code object's AMDHSA metadata does not read as MsgPack");
  }
  std::map<std::string, llvm::msgpack::MapDocNode> by_name;
  llvm::msgpack::MapDocNode root = document.getRoot().getMap();
  if (auto kernels = root.find("amdhsa.kernels"); kernels != root.end() && kernels->second.isArray()) {
    for (llvm::msgpack::DocNode& kernel : kernels->second.getArray()) {
      if (!kernel.isMap()) continue;
      llvm::msgpack::MapDocNode map = kernel.getMap();
      auto name = map.find(".name");
      if (name != map.end() && name->second.isString()) by_name.emplace(name->second.getString().str(), map);
    }
  }
  std::vector<EntryInfo> entries;
  for (const std::string& name : names) {
    if (!defined.contains(name + ".kd")) {
      return ToolchainFailure("kernel '" + name + "' has no " + name + ".kd descriptor in the code object");
    }
    auto it = by_name.find(name);
    if (it == by_name.end()) return ToolchainFailure("kernel '" + name + "' is missing from the AMDHSA metadata");
    llvm::msgpack::MapDocNode& map = it->second;
    EntryInfo info;
    info.name = name;
    info.sgprs = IntField(map, ".sgpr_count", -1);
    info.vgprs = IntField(map, ".vgpr_count", -1);
    info.agprs = IntField(map, ".agpr_count", 0);
    // LLVM's .vgpr_count already holds the accumulation registers (gfx90a,
    // gfx94x: arch + acc; gfx908: the larger of the two).
    info.registers = info.vgprs;
    info.shared_bytes = IntField(map, ".group_segment_fixed_size", -1);
    // A dynamic stack (recursion, indirect calls) has no size known here.
    auto dynamic = map.find(".uses_dynamic_stack");
    const bool dynamic_stack = dynamic != map.end() && dynamic->second.getKind() == llvm::msgpack::Type::Boolean &&
                               dynamic->second.getBool();
    info.local_bytes = dynamic_stack ? -1 : IntField(map, ".private_segment_fixed_size", -1);
    info.max_threads_per_block = IntField(map, ".max_flat_workgroup_size", -1);
    info.wavefront_size = IntField(map, ".wavefront_size", -1);
    info.kernarg_bytes = IntField(map, ".kernarg_segment_size", -1);
    entries.push_back(std::move(info));
  }
  return entries;
}

}  // namespace qdcache::compiler

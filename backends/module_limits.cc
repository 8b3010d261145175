#include "backends/module_limits.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/compile_error.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

namespace qdcache::compiler {
namespace {

std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Depth (levels below a node: 0 for a leaf) and size (nodes when spelled out)
// of types or constants, memoized, walked with an explicit stack so that the
// walk itself cannot overflow the stack it protects.
template <typename Node, typename Policy>
class ShapeWalker {
 public:
  struct Shape {
    int depth = 0;
    std::uint64_t nodes = 1;
  };

  // The shape of `root`; an error when a node is its own descendant or
  // nests deeper than kMaxIrNestingDepth (`what` names the root for it).
  llvm::Expected<Shape> Walk(const Node* root, const std::string& what) {
    if (auto it = memo_.find(root); it != memo_.end() && it->second.done) return it->second.shape;
    struct Frame {
      const Node* node;
      unsigned next_child;
    };
    std::vector<Frame> stack = {{root, 0}};
    memo_[root] = Entry{};
    while (!stack.empty()) {
      const Node* node = stack.back().node;
      const auto children = Policy::Children(node);
      if (stack.back().next_child < children.size()) {
        const Node* child = Policy::Child(children[stack.back().next_child++]);
        if (child == nullptr) continue;
        auto [it, inserted] = memo_.try_emplace(child);
        if (inserted) {
          stack.push_back({child, 0});
        } else if (!it->second.done) {
          return BadInput(llvm::Twine(Policy::kName) + " in " + what + " contains itself");
        }
        continue;
      }
      Shape shape;
      std::uint64_t child_nodes = 0;
      for (const auto& entry : children) {
        const Node* child = Policy::Child(entry);
        if (child == nullptr) continue;
        const Shape& c = memo_[child].shape;
        shape.depth = std::max(shape.depth, c.depth + 1);
        child_nodes = SaturatingAdd(child_nodes, c.nodes);
      }
      if (shape.depth > kMaxIrNestingDepth) {
        return BadInput(llvm::Twine(Policy::kName) + " nesting depth exceeds the limit of " +
                        llvm::Twine(kMaxIrNestingDepth) + " (in " + what + ")");
      }
      shape.nodes = Policy::SpelledOutChildren(node) ? SaturatingAdd(1, child_nodes) : 1;
      Entry& entry = memo_[node];
      entry.shape = shape;
      entry.done = true;
      stack.pop_back();
    }
    return memo_[root].shape;
  }

 private:
  struct Entry {
    Shape shape;
    bool done = false;
  };
  llvm::DenseMap<const Node*, Entry> memo_;
};

struct TypePolicy {
  static constexpr const char* kName = "type";
  static llvm::ArrayRef<llvm::Type*> Children(const llvm::Type* type) { return type->subtypes(); }
  static const llvm::Type* Child(const llvm::Type* type) { return type; }
  // The printer names identified structs instead of spelling out their body.
  static bool SpelledOutChildren(const llvm::Type* type) {
    const auto* st = llvm::dyn_cast<llvm::StructType>(type);
    return st == nullptr || st->isLiteral();
  }
};

struct ConstantPolicy {
  static constexpr const char* kName = "constant";
  static llvm::ArrayRef<llvm::Use> Children(const llvm::Constant* c) {
    // A global value is a leaf: it is referred to by name, and its
    // initializer is walked as a root of its own.
    if (llvm::isa<llvm::GlobalValue>(c)) return {};
    return llvm::ArrayRef<llvm::Use>(c->op_begin(), c->op_end());
  }
  static const llvm::Constant* Child(const llvm::Use& use) {
    const auto* c = llvm::dyn_cast<llvm::Constant>(use.get());
    return c == nullptr || llvm::isa<llvm::GlobalValue>(c) ? nullptr : c;
  }
  static bool SpelledOutChildren(const llvm::Constant*) { return true; }
};

class ModuleShapeChecker {
 public:
  llvm::Error Run(const llvm::Module& module) {
    for (const llvm::GlobalVariable& g : module.globals()) {
      const std::string where = "@" + g.getName().str();
      if (llvm::Error e = CheckType(g.getValueType(), where)) return e;
      if (g.hasInitializer()) {
        if (llvm::Error e = CheckConstant(g.getInitializer(), where)) return e;
      }
    }
    for (const llvm::GlobalAlias& a : module.aliases()) {
      if (llvm::Error e = CheckConstant(a.getAliasee(), "@" + a.getName().str())) return e;
    }
    for (llvm::StructType* st : module.getIdentifiedStructTypes()) {
      if (llvm::Error e = CheckType(st, "%" + st->getName().str())) return e;
    }
    for (const llvm::Function& f : module) {
      if (llvm::Error e = CheckFunction(f)) return e;
    }
    return llvm::Error::success();
  }

 private:
  llvm::Error CheckFunction(const llvm::Function& f) {
    const std::string where = "@" + f.getName().str();
    if (llvm::Error e = CheckType(f.getFunctionType(), where)) return e;
    for (const llvm::BasicBlock& block : f) {
      for (const llvm::Instruction& inst : block) {
        if (llvm::Error e = CheckType(inst.getType(), where)) return e;
        if (const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
          if (llvm::Error e = CheckType(alloca->getAllocatedType(), where)) return e;
        } else if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) {
          if (llvm::Error e = CheckType(gep->getSourceElementType(), where)) return e;
        } else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
          if (llvm::Error e = CheckType(call->getFunctionType(), where)) return e;
        }
        for (const llvm::Use& operand : inst.operands()) {
          if (llvm::Error e = CheckType(operand->getType(), where)) return e;
          const auto* c = llvm::dyn_cast<llvm::Constant>(operand.get());
          if (c == nullptr || llvm::isa<llvm::GlobalValue>(c)) continue;
          if (llvm::Error e = CheckConstant(c, where)) return e;
        }
      }
    }
    return llvm::Error::success();
  }

  llvm::Error CheckType(const llvm::Type* type, const std::string& where) {
    auto shape = types_.Walk(type, where);
    if (!shape) return shape.takeError();
    if (shape->nodes > kMaxSpelledOutNodes) {
      return BadInput("a type in " + where + " expands to more than " +
                      llvm::Twine(kMaxSpelledOutNodes) + " nodes when spelled out");
    }
    return llvm::Error::success();
  }

  // Counts one spelled-out use of `c` against the module's budget.
  llvm::Error CheckConstant(const llvm::Constant* c, const std::string& where) {
    auto shape = constants_.Walk(c, where);
    if (!shape) return shape.takeError();
    // A constant GEP names its source element type; the walk over types
    // would not see it otherwise.
    if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(c)) {
      if (llvm::Error e = CheckType(gep->getSourceElementType(), where)) return e;
    }
    expanded_nodes_ = SaturatingAdd(expanded_nodes_, shape->nodes);
    if (expanded_nodes_ > kMaxSpelledOutNodes) {
      return BadInput("the module's constants expand to more than " +
                      llvm::Twine(kMaxSpelledOutNodes) +
                      " nodes when every use is spelled out (shared constant subexpressions; "
                      "reached in " +
                      where + ")");
    }
    return llvm::Error::success();
  }

  ShapeWalker<llvm::Type, TypePolicy> types_;
  ShapeWalker<llvm::Constant, ConstantPolicy> constants_;
  std::uint64_t expanded_nodes_ = 0;
};

}  // namespace

llvm::Error CheckTextNesting(std::string_view text) {
  if (auto excess = FindExcessNesting(text, kMaxIrNestingDepth)) {
    return BadInput("IR nesting depth exceeds the limit of " + llvm::Twine(kMaxIrNestingDepth) +
                    " at " + llvm::Twine(excess->line) + ":" + llvm::Twine(excess->column) +
                    " (types, constants and metadata may nest at most " +
                    llvm::Twine(kMaxIrNestingDepth) + " brackets deep)");
  }
  return llvm::Error::success();
}

llvm::Error CheckModuleNesting(const llvm::Module& module) {
  return ModuleShapeChecker().Run(module);
}

}  // namespace qdcache::compiler

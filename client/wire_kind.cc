#include "client/wire_kind.h"

#include <array>
#include <utility>

namespace qdcache::client {
namespace {

struct KindRow {
  std::string_view name;
  v1::SourceKind kind;
  std::array<std::string_view, 2> extensions;  // empty entries unused
};

constexpr std::array kKinds = {
    KindRow{"llvm", v1::SOURCE_KIND_LLVM_IR, {".ll", ".bc"}},
    KindRow{"ptx", v1::SOURCE_KIND_PTX, {".ptx", ""}},
    KindRow{"nvvm", v1::SOURCE_KIND_NVVM_IR, {".nvvm", ""}},
    KindRow{"cuda", v1::SOURCE_KIND_CUDA, {".cu", ".cuh"}},
};

}  // namespace

Expected<v1::SourceKind> ParseSourceKind(std::string_view name) {
  for (const KindRow& row : kKinds) {
    if (row.name == name) return row.kind;
  }
  return InvalidArgument("unknown source kind \"" + std::string(name) + "\" (known: " + SourceKindNames() + ")");
}

v1::SourceKind SourceKindOfPath(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return v1::SOURCE_KIND_LLVM_IR;
  const std::string_view extension = base.substr(dot);
  for (const KindRow& row : kKinds) {
    for (std::string_view e : row.extensions) {
      if (!e.empty() && e == extension) return row.kind;
    }
  }
  return v1::SOURCE_KIND_LLVM_IR;
}

std::string SourceKindNames() {
  std::string names;
  for (const KindRow& row : kKinds) names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

}  // namespace qdcache::client

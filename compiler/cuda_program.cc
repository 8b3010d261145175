#include "compiler/cuda_program.h"

#include <algorithm>

#include "common/digest.h"
#include "common/include_scan.h"
#include "qdcache/worker/v1/worker.pb.h"

namespace qdcache::compiler {
namespace {

// NAME, NAME=VALUE, NAME(a,b)=VALUE: what -D takes.
Status CheckDefine(std::string_view d) {
  const std::size_t eq = d.find('=');
  std::string_view name = d.substr(0, eq);
  if (const std::size_t paren = name.find('('); paren != std::string_view::npos) {
    if (name.back() != ')') return InvalidArgument("define \"" + std::string(d) + "\": unbalanced parameter list");
    name = name.substr(0, paren);
  }
  if (!IsIdentifier(name)) {
    return InvalidArgument("define \"" + std::string(d) + "\" is not NAME, NAME=VALUE or NAME(PARAMS)=VALUE");
  }
  if (d.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos) {
    return InvalidArgument("define \"" + std::string(d.substr(0, eq)) + "\": its value holds a newline or NUL");
  }
  // A value is expanded into the sources: __has_include in it is theirs.
  return ScanIncludes(d, "define " + std::string(d.substr(0, eq))).status();
}

// NVRTC writes each name expression into a line of a source of its own
// ("#pragma nv_mangled_name EXPR"): one that could end that line or splice
// the next onto it could add directives the checks never saw.
Status CheckNameExpression(std::string_view e) {
  const bool splices = e.ends_with('\\') || e.ends_with("?\?/");
  if (e.empty() || splices || e.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos) {
    return InvalidArgument("name expression \"" + std::string(e.substr(0, 200)) +
                           "\" is empty, holds a newline or NUL byte, or ends with a backslash");
  }
  return ScanIncludes(e, "name expression").status();
}

std::string MacroName(std::string_view d) {
  const std::size_t end = d.find_first_of("=(");
  return std::string(d.substr(0, end));
}

// A source or header: no NUL (NVRTC takes C strings), and its includes all
// within the closed world.
Status CheckText(std::string_view text, std::string_view file) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(nul), '\n'));
    return InvalidArgument(std::string(file) + ":" + std::to_string(line) + ": a NUL byte (NVRTC reads sources as C strings)");
  }
  return ScanIncludes(text, file).status();  // each include is checked as it is found
}

std::vector<std::string> SortedUnique(const google::protobuf::RepeatedPtrField<std::string>& in) {
  std::vector<std::string> out(in.begin(), in.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string EncodeCudaProgram(const CudaSources& sources) {
  worker::v1::CudaProgram p;
  p.set_source(sources.source.data(), sources.source.size());
  for (const auto& [name, content] : sources.headers) {
    worker::v1::SourceFile* h = p.add_headers();
    h->set_name(name.data(), name.size());
    h->set_content(content.data(), content.size());
  }
  for (std::string_view e : sources.name_expressions) p.add_name_expressions(e.data(), e.size());
  for (std::string_view d : sources.defines) p.add_defines(d.data(), d.size());
  for (std::string_view u : sources.undefines) p.add_undefines(u.data(), u.size());
  return p.SerializeAsString();
}

Expected<std::string> CanonicalCudaProgram(std::string_view encoded, bool) {
  worker::v1::CudaProgram in;
  if (!in.ParseFromArray(encoded.data(), static_cast<int>(encoded.size()))) {
    return InvalidArgument("the CUDA C++ program does not decode");
  }
  if (in.source().empty()) return InvalidArgument("the CUDA C++ source is empty");
  QDC_RETURN_IF_ERROR(CheckText(in.source(), kCudaSourceName));

  std::vector<const worker::v1::SourceFile*> headers;
  for (const worker::v1::SourceFile& h : in.headers()) headers.push_back(&h);
  std::sort(headers.begin(), headers.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
  worker::v1::CudaProgram out;
  out.set_source(in.source());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    const std::string& name = headers[i]->name();
    QDC_RETURN_IF_ERROR(CheckHeaderName(name, "headers"));
    if (name == kCudaSourceName) {
      return InvalidArgument("headers: \"" + name + "\" is the main source's own name");
    }
    if (i > 0 && headers[i - 1]->name() == name) {
      return InvalidArgument("headers: \"" + name + "\" is sent twice");
    }
    QDC_RETURN_IF_ERROR(CheckText(headers[i]->content(), name));
    *out.add_headers() = *headers[i];
  }
  for (const std::string& e : SortedUnique(in.name_expressions())) {
    QDC_RETURN_IF_ERROR(CheckNameExpression(e));
    out.add_name_expressions(e);
  }
  const std::vector<std::string> defines = SortedUnique(in.defines());
  const std::vector<std::string> undefines = SortedUnique(in.undefines());
  std::vector<std::string> names;
  for (const std::string& d : defines) {
    QDC_RETURN_IF_ERROR(CheckDefine(d));
    names.push_back(MacroName(d));
    out.add_defines(d);
  }
  for (const std::string& u : undefines) {
    if (!IsIdentifier(u)) return InvalidArgument("undefine \"" + u + "\" is not a macro name");
    names.push_back(u);
    out.add_undefines(u);
  }
  std::sort(names.begin(), names.end());
  if (auto twice = std::adjacent_find(names.begin(), names.end()); twice != names.end()) {
    return InvalidArgument("macro " + *twice + " is given more than once among defines and undefines");
  }
  return out.SerializeAsString();
}

void DescribeCudaProgram(std::string_view canonical, std::vector<std::pair<std::string, std::string>>& out) {
  worker::v1::CudaProgram p;
  if (!p.ParseFromArray(canonical.data(), static_cast<int>(canonical.size()))) return;
  out.emplace_back("cuda.source", ToHex(Sha256(p.source())));
  for (const worker::v1::SourceFile& h : p.headers()) {
    out.emplace_back("cuda.header." + h.name(), ToHex(Sha256(h.content())));
  }
  std::string macros;
  for (const std::string& d : p.defines()) macros += (macros.empty() ? "-D" : " -D") + d;
  for (const std::string& u : p.undefines()) macros += (macros.empty() ? "-U" : " -U") + u;
  if (!macros.empty()) out.emplace_back("cuda.defines", macros);
  std::string names;
  for (const std::string& e : p.name_expressions()) names += (names.empty() ? "" : "\n") + e;
  if (!names.empty()) out.emplace_back("cuda.name_expressions", names);
}

Expected<CudaProgram> DecodeCudaProgram(std::string_view encoded) {
  worker::v1::CudaProgram p;
  if (!p.ParseFromArray(encoded.data(), static_cast<int>(encoded.size()))) {
    return InvalidArgument("the CUDA C++ program does not decode");
  }
  CudaProgram out;
  out.source = p.source();
  for (const worker::v1::SourceFile& h : p.headers()) out.headers.emplace_back(h.name(), h.content());
  out.name_expressions.assign(p.name_expressions().begin(), p.name_expressions().end());
  out.defines.assign(p.defines().begin(), p.defines().end());
  out.undefines.assign(p.undefines().begin(), p.undefines().end());
  return out;
}

}  // namespace qdcache::compiler

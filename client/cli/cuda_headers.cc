#include "client/cli/cuda_headers.h"

#include <sys/stat.h>

#include <deque>
#include <map>

#include "client/cli/output.h"
#include "common/include_scan.h"

namespace qdcache::cli {
namespace {

std::string DirectoryOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

bool IsRegularFile(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A file whose includes are still to be followed.
struct Pending {
  std::string name;         // as included, or the main source's path
  const std::string* text;  // the source, or a value of the header map (whose nodes stay put)
  std::string dir;          // where its own quoted includes are looked up first
};

}  // namespace

Status AddCudaHeaders(const std::vector<std::string>& header_flags, const std::vector<std::string>& include_dirs,
                      const std::string& source_path, v1::KernelDescriptor& d) {
  std::map<std::string, std::string> headers;  // name -> content
  std::deque<Pending> pending;
  for (const std::string& flag : header_flags) {
    const std::size_t eq = flag.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size()) {
      return InvalidArgument("--header \"" + flag + "\" is not NAME=FILE");
    }
    const std::string name = flag.substr(0, eq), file = flag.substr(eq + 1);
    QDC_RETURN_IF_ERROR(CheckHeaderName(name, "--header"));
    if (headers.count(name) != 0) return InvalidArgument("--header " + name + " is given twice");
    std::string& content = headers[name];
    QDC_RETURN_IF_ERROR(ReadFile(file, &content));
    pending.push_back({name, &content, DirectoryOf(file)});
  }
  pending.push_front({source_path, &d.ir(), DirectoryOf(source_path)});
  while (!pending.empty()) {
    const Pending file = std::move(pending.front());
    pending.pop_front();
    QDC_ASSIGN_OR_RETURN(std::vector<IncludeDirective> includes, ScanIncludes(*file.text, file.name));
    for (const IncludeDirective& include : includes) {
      if (include.angled || headers.count(include.name) != 0) continue;
      std::vector<std::string> candidates = {file.dir + "/" + include.name};
      for (const std::string& dir : include_dirs) candidates.push_back(dir + "/" + include.name);
      for (const std::string& path : candidates) {
        if (!IsRegularFile(path)) continue;
        std::string& content = headers[include.name];
        QDC_RETURN_IF_ERROR(ReadFile(path, &content));
        pending.push_back({include.name, &content, DirectoryOf(path)});
        break;
      }
    }
  }
  for (auto& [name, content] : headers) {
    v1::SourceFile* h = d.add_headers();
    h->set_name(name);
    h->set_content(std::move(content));
  }
  return Status::Ok();
}

}  // namespace qdcache::cli

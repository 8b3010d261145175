#include "client/cli/output.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/digest.h"
#include "common/file_read.h"

namespace qdcache::cli {

std::string OutputPath(const std::string& path) { return path == "-" ? "/dev/stdout" : path; }

std::string KindExtension(v1::ArtifactKind kind) {
  switch (kind) {
    case v1::ARTIFACT_KIND_SHARED_OBJECT: return "so";
    case v1::ARTIFACT_KIND_HSA_CODE_OBJECT: return "hsaco";
    default: return "cubin";
  }
}

std::string ResultLine(const v1::CompileResult& r) {
  std::ostringstream out;
  out << CacheStatusName(r.status());
  if (r.has_artifact()) {
    const v1::Artifact& a = r.artifact();
    out << "  " << KindName(a.kind()) << "  " << a.target() << "  " << a.payload().size()
        << " bytes  key " << ToHex(a.artifact_key()).substr(0, 16);
    if (r.status() == v1::CACHE_STATUS_COMPILED) out << "  " << a.timings().total_seconds() << " s";
  }
  if (r.has_error()) {
    out << "  " << CodeName(static_cast<Code>(r.error().code())) << ": " << r.error().message();
  }
  return out.str();
}

namespace {

struct JsonRun {
  bool on = false;
  bool document_printed = false;
  Status first_error;
};

JsonRun& TheJsonRun() {
  static JsonRun run;
  return run;
}

}  // namespace

void PrintError(const Status& status) {
  std::fprintf(stderr, "qdcache: %s\n", status.ToString().c_str());
  RememberError(status);
}

void SetJsonOutput(bool on) { TheJsonRun().on = on; }

void PrintJson(const nlohmann::json& document) {
  // Paths and daemon messages are bytes: invalid UTF-8 becomes U+FFFD
  // instead of an exception out of dump().
  std::cout << document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"
            << std::flush;
  TheJsonRun().document_printed = true;
}

void RememberError(const Status& status) {
  JsonRun& run = TheJsonRun();
  if (run.first_error.ok()) run.first_error = status;
}

int FinishRun(int exit_code) {
  JsonRun& run = TheJsonRun();
  if (run.on && exit_code != 0 && !run.document_printed) {
    const Status error = run.first_error.ok() ? Status(Code::kUnknown, "failed") : run.first_error;
    PrintJson({{"error", ErrorJson(error)}});
  }
  return exit_code;
}

Status ReadFile(const std::string& path, std::string* out) {
  // Standard input has one content: a second "-" on one command line would
  // read nothing and send it as if it were empty input.
  static std::atomic<bool> stdin_read{false};
  if (path == "-" && stdin_read.exchange(true)) {
    return InvalidArgument("standard input (-) is already read for another input of this command; name a file");
  }
  Expected<std::string> text = path == "-" ? ReadStdin(kMaxInputFileBytes) : ReadSmallFile(path, path, kMaxInputFileBytes);
  if (!text.ok()) return text.status();
  *out = std::move(text).value();
  return Status::Ok();
}

std::string_view Trimmed(std::string_view s) {
  const char* blanks = " \t\r\n";
  const std::size_t begin = s.find_first_not_of(blanks);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(blanks) - begin + 1);
}

}  // namespace qdcache::cli

// export / import: bundle files of artifacts and aliases (bundle/), moved
// through the daemon's Export and Import streams. The CLI compresses and
// decompresses; memory stays flat whatever the bundle's size.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bundle/bundle_reader.h"
#include "bundle/bundle_writer.h"
#include "bundle/entry_signature.h"
#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/cli/progress.h"
#include "common/output_file.h"
#include "common/units.h"
#include "signing/signing_key.h"

namespace qdcache::cli {
namespace {

// Entries per ImportChunk: about this many bytes (or one larger entry).
constexpr std::size_t kImportChunkBytes = 1u << 20;

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string Plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "12 artifacts, 3 aliases, 1.2 MiB": what a progress line shows.
std::string Counts(std::uint64_t artifacts, std::uint64_t aliases, std::uint64_t bytes) {
  return Plural(artifacts, "artifact", "artifacts") + ", " + Plural(aliases, "alias", "aliases") +
         ", " + HumanBytes(bytes);
}

}  // namespace

int RunKeygen(const std::string& path, bool json) {
  Expected<signing::SigningKey> key = signing::SigningKey::Generate();
  if (!key.ok()) return PrintError(key.status()), kExitFailure;
  if (Status s = signing::WriteNewKeyPair(*key, path); !s.ok()) return PrintError(s), kExitFailure;
  if (json) {
    PrintJson({{"private_key", path}, {"public_key", path + ".pub"}, {"id", key->id()}});
  } else {
    std::printf("wrote %s (private, mode 600: the daemon's --remote-signing-key, or export --sign)\n"
                "  and %s (public: for --remote-trusted-keys of the daemons that read)\nkey %s\n",
                path.c_str(), (path + ".pub").c_str(), key->id().c_str());
  }
  return kExitOk;
}

int RunExport(client::Client& client, const ExportArgs& args) {
  const auto started = std::chrono::steady_clock::now();
  v1::ExportRequest request;
  if (args.ns) request.set_namespace_(*args.ns);
  request.set_all_tenants(args.all_tenants);
  if (!args.since.empty()) {
    Expected<std::chrono::seconds> since = ParseDuration(args.since);
    if (!since.ok()) return PrintError(since.status().WithContext("--since")), kExitUsage;
    request.set_since_seconds(static_cast<std::uint64_t>(since->count()));
  }
  std::optional<signing::SigningKey> signer;
  if (!args.sign_key.empty()) {
    Expected<signing::SigningKey> key = signing::SigningKey::Load(args.sign_key);
    if (!key.ok()) return PrintError(key.status().WithContext("--sign")), kExitFailure;
    signer = std::move(key).value();
  }
  Expected<std::unique_ptr<OutputFile>> file = OutputFile::Open(OutputPath(args.out));
  if (!file.ok()) return PrintError(file.status()), kExitFailure;
  Expected<std::unique_ptr<bundle::BundleWriter>> writer = bundle::BundleWriter::Create(
      [out = file->get()](std::string_view bytes) { return out->Write(bytes); });
  if (!writer.ok()) return PrintError(writer.status()), kExitFailure;

  Progress progress("exporting", 0);
  std::uint64_t too_large = 0;
  Status s = client.Export(std::move(request), [&](v1::ExportChunk& chunk) -> Status {
    too_large += chunk.skipped_too_large();
    for (v1::BundleEntry& entry : *chunk.mutable_entries()) {
      if (signer) bundle::SignEntry(*signer, &entry);
      QDC_RETURN_IF_ERROR((*writer)->Add(entry));
    }
    const bundle::BundleTotals& t = (*writer)->totals();
    if (progress.enabled())
      progress.Update(t.raw_bytes, Counts(t.artifacts, t.aliases, t.raw_bytes));
    return Status::Ok();
  });
  progress.Done();
  // On failure the temporary file is removed: no half bundle under the name
  // (a bundle streamed to a device or FIFO ends where it failed).
  if (!s.ok()) return PrintError(s), kExitFailure;
  Expected<bundle::BundleTotals> totals = (*writer)->Finish();
  if (!totals.ok()) return PrintError(totals.status()), kExitFailure;
  if (Status committed = (*file)->Commit(); !committed.ok())
    return PrintError(committed), kExitFailure;

  const double seconds = SecondsSince(started);
  if (args.json) {
    PrintJson({{"file", args.out},
               {"artifacts", totals->artifacts},
               {"aliases", totals->aliases},
               {"bytes", totals->raw_bytes},
               {"file_bytes", totals->stored_bytes},
               {"too_large", too_large},
               {"signed_by", signer ? signer->id() : ""},
               {"seconds", seconds}});
  } else {
    std::fprintf(args.out == "-" ? stderr : stdout,  // with the bundle on stdout, the summary goes to stderr
        "exported %s, %s (%s \u2192 %s) in %.1f s%s%s\n",
        Plural(totals->artifacts, "artifact", "artifacts").c_str(),
        Plural(totals->aliases, "alias", "aliases").c_str(), HumanBytes(totals->raw_bytes).c_str(),
        HumanBytes(totals->stored_bytes).c_str(), seconds,
        signer ? ("; signed by " + signer->id()).c_str() : "",
        too_large > 0 ? ("; " + std::to_string(too_large) + " too large to export").c_str() : "");
  }
  return kExitOk;
}

int RunImport(client::Client& client, const ImportArgs& args) {
  const auto started = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<bundle::InputFile>> file = bundle::InputFile::Open(args.file);
  if (!file.ok()) return PrintError(file.status()), kExitFailure;
  Expected<std::unique_ptr<bundle::BundleReader>> opened =
      bundle::BundleReader::Open((*file)->source());
  if (!opened.ok()) return PrintError(opened.status().WithContext(args.file)), kExitFailure;
  bundle::BundleReader& reader = **opened;

  Progress progress("importing", (*file)->size());
  Status read_error;  // why the file stopped early (truncated, damaged): reported after the
                      // daemon's answer
  std::optional<v1::BundleEntry> pending;
  bool first = true;
  Expected<v1::ImportResponse> response =
      client.Import([&](v1::ImportChunk* chunk) -> Expected<bool> {
        if (first) chunk->set_keep_tenants(args.keep_tenants);
        first = false;
        std::size_t bytes = 0;
        for (;;) {
          if (!pending) {
            Expected<std::optional<v1::BundleEntry>> next = reader.Next();
            if (!next.ok()) read_error = next.status();
            if (!next.ok() || !next->has_value()) return false;
            pending = std::move(next).value();
          }
          const std::size_t size = pending->ByteSizeLong();
          if (chunk->entries_size() > 0 && bytes + size > kImportChunkBytes) break;
          *chunk->add_entries() = std::move(*pending);
          pending.reset();
          bytes += size;
        }
        const bundle::ReadCounts& c = reader.counts();
        if (progress.enabled()) {
          progress.Update(c.stored_bytes, Counts(c.artifacts, c.aliases, c.stored_bytes));
        }
        return true;
      });
  progress.Done();
  if (!response.ok()) return PrintError(response.status()), kExitFailure;

  const bundle::ReadCounts& c = reader.counts();
  const std::uint64_t skipped = c.skipped + response->rejected() + response->untrusted();
  const double seconds = SecondsSince(started);
  if (args.json) {
    nlohmann::json problems = nlohmann::json::array();
    for (const std::string& p : reader.problems()) problems.push_back(p);
    for (const std::string& p : response->rejections()) problems.push_back(p);
    nlohmann::json j{{"file", args.file},
                     {"artifacts", response->artifacts()},
                     {"aliases", response->aliases()},
                     {"skipped", skipped},
                     {"damaged", c.skipped},
                     {"refused", response->rejected()},
                     {"untrusted", response->untrusted()},
                     {"stale", response->stale()},
                     {"problems", problems},
                     {"complete", read_error.ok()},
                     {"seconds", seconds}};
    if (!read_error.ok()) j["error"] = ErrorJson(read_error.WithContext(args.file));
    PrintJson(j);
  } else {
    std::string extra;
    if (skipped > 0) {
      extra += "; " + std::to_string(skipped) + " skipped (" + std::to_string(c.skipped) +
               " damaged in the file, " + std::to_string(response->rejected()) + " refused by the daemon" +
               (response->untrusted() > 0
                    ? ", " + std::to_string(response->untrusted()) + " not signed by a key it trusts"
                    : std::string()) +
               ")";
    }
    if (response->stale() > 0) {
      extra += "; " + std::to_string(response->stale()) + " stale (built by another toolchain)";
    }
    std::printf("imported %s, %s in %.1f s%s\n",
                Plural(response->artifacts(), "artifact", "artifacts").c_str(),
                Plural(response->aliases(), "alias", "aliases").c_str(), seconds, extra.c_str());
    for (const std::string& p : reader.problems())
      std::fprintf(stderr, "qdcache: skipped: %s\n", p.c_str());
    for (const std::string& p : response->rejections())
      std::fprintf(stderr, "qdcache: refused: %s\n", p.c_str());
  }
  if (!read_error.ok()) return PrintError(read_error.WithContext(args.file)), kExitFailure;
  return kExitOk;
}

}  // namespace qdcache::cli

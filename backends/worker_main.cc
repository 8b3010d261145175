#include "backends/worker_main.h"

#include <malloc.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "backends/cuda_libraries.h"
#include "backends/in_process_compiler.h"
#include "backends/kept_parse.h"
#include "compiler/compiler.h"
#include "compiler/worker_protocol.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"

namespace qdcache::compiler {
namespace {

int g_fd = -1;  // the connection, for the fatal-error handler
// One frame at a time on g_fd: a digest beside a compile ahead is sent from
// a thread of its own.
std::mutex g_write;

[[noreturn]] void OutOfMemory() { ::_exit(kWorkerExitOutOfMemory); }

void OnBadAlloc(void*, const char*, bool) { OutOfMemory(); }

// LLVM cannot continue after report_fatal_error: answer the request in
// flight with the reason, then exit (the pool starts a new worker).
void OnFatalError(void*, const char* reason, bool) {
  worker::v1::Response response;
  ToWire(Internal(std::string("LLVM fatal error: ") + (reason != nullptr ? reason : "(no reason)")),
         &response);
  response.set_fatal(true);
  std::string bytes;
  std::lock_guard lock(g_write);  // after a frame being written
  if (response.SerializeToString(&bytes)) (void)WriteFrame(g_fd, bytes);
  ::_exit(kWorkerExitFatal);
}

// The digest of `ir`, asked by `r` (whose own ir may have moved).
void AnswerDigest(Compiler& compiler, std::string_view ir, const worker::v1::DigestRequest& r,
                  worker::v1::Response* response) {
  std::uint64_t kept = 0;
  CallControl control;
  if (r.keep_parse() && !r.has_compile_ahead()) control.kept_parse = &kept;
  Expected<Digest> digest = compiler.CanonicalIrDigest(ir, FromWire(r.target()), r.keep_debug_info(), control);
  ToWire(digest.status(), response);
  if (digest.ok()) response->set_digest(DigestBytes(*digest));
}

void Answer(Compiler& compiler, const worker::v1::Request& request, worker::v1::Response* response) {
  switch (request.kind_case()) {
    case worker::v1::Request::kDigest:
      AnswerDigest(compiler, request.digest().ir(), request.digest(), response);
      return;
    case worker::v1::Request::kDropAhead:  // answered by the loop, which knows how the compile ahead ended
      return;
    case worker::v1::Request::kCompile:
    case worker::v1::Request::kCompileToPtx:
    case worker::v1::Request::kCompileThroughCubin: {
      const bool ptx_only = request.kind_case() == worker::v1::Request::kCompileToPtx;
      const bool through_cubin = request.kind_case() == worker::v1::Request::kCompileThroughCubin;
      const worker::v1::CompileRequest& r =
          ptx_only ? request.compile_to_ptx() : through_cubin ? request.compile_through_cubin() : request.compile();
      CompileInput input;
      input.ir = r.ir();
      input.target = FromWire(r.target());
      input.options = FromWire(r.options());
      input.entry_points.assign(r.entry_points().begin(), r.entry_points().end());
      // The daemon and its workers are one binary: every value is a kind of the table.
      input.kind = r.input_kind() >= 0 && static_cast<std::size_t>(r.input_kind()) < InputKinds().size()
                       ? static_cast<InputKindId>(r.input_kind())
                       : InputKindId::kLlvmText;
      if (ptx_only) {
        Expected<PtxOutput> out = compiler.CompileToPtx(input);
        ToWire(out.status(), response);
        if (out.ok()) ToWire(AsOutput(std::move(out).value()), response->mutable_output());
      } else if (through_cubin) {
        Expected<StagedCubin> out = compiler.CompileThroughCubin(input);
        ToWire(out.status(), response);
        if (!out.ok()) return;
        out->ptx.ptx.clear();  // it travels once, as the cubin stage's
        ToWire(AsOutput(std::move(out->ptx)), response->mutable_ptx_stage());
        ToWire(out->cubin, response->mutable_output());
      } else {
        Expected<CompileOutput> out = compiler.Compile(input);
        ToWire(out.status(), response);
        if (out.ok()) ToWire(*out, response->mutable_output());
      }
      return;
    }
    case worker::v1::Request::kLinkCubin: {
      const worker::v1::LinkRequest& r = request.link_cubin();
      std::vector<EntryInfo> entries;
      for (const worker::v1::Entry& e : r.entries()) entries.push_back(FromWire(e));
      Expected<CompileOutput> out =
          compiler.LinkCubin(r.ptx(), entries, FromWire(r.target()), FromWire(r.options()));
      ToWire(out.status(), response);
      if (out.ok()) ToWire(*out, response->mutable_output());
      return;
    }
    case worker::v1::Request::KIND_NOT_SET:
      break;
  }
  ToWire(Internal("compile worker got a request of no known kind"), response);
}

// Sends `response`, or instead the error that says why it cannot go (larger
// than `max_answer`). False: the daemon is gone.
bool Send(worker::v1::Response& response, std::uint64_t max_answer) {
  std::string bytes;
  if (!response.SerializeToString(&bytes)) {
    response.Clear();
    ToWire(Internal("compile worker could not encode its answer"), &response);
    bytes = response.SerializeAsString();
  } else if (bytes.size() > max_answer) {
    const std::size_t size = bytes.size();
    response.Clear();
    ToWire(ResourceExhausted("the artifact is " + std::to_string(size) +
                             " bytes, more than a response may carry (" + std::to_string(max_answer) +
                             " bytes, set by --max-message-bytes)"),
           &response);
    bytes = response.SerializeAsString();
  }
  std::lock_guard lock(g_write);
  return WriteFrame(g_fd, bytes).ok();
}

// A compile started beside its digest (DigestRequest.compile_ahead): the
// request that asks for it, encoded as the daemon encodes it, and its answer.
struct CompiledAhead {
  std::string request;
  worker::v1::Response response;
};

// Answers a digest that starts its miss's compile: the digest is made and
// sent from a thread of its own while this thread compiles (so the compile's
// memory is the main heap, as every other call's: HeapPolicy). Without a
// thread to spare, one after the other. False: the daemon is gone.
bool DigestWithCompileAhead(Compiler& compiler, worker::v1::Request& request, std::uint64_t max_answer,
                            std::optional<CompiledAhead>* ahead) {
  worker::v1::DigestRequest& digest = *request.mutable_digest();
  worker::v1::Request compile;
  worker::v1::CompileRequest& c = *compile.mutable_compile_through_cubin();
  c = std::move(*digest.mutable_compile_ahead());
  if (c.ir().empty()) c.set_ir(std::move(*digest.mutable_ir()));
  bool sent = true;  // written by the digest's thread, read after it is joined
  auto send_digest = [&] {
    worker::v1::Response response;
    AnswerDigest(compiler, c.ir(), digest, &response);
    sent = Send(response, max_answer);
  };
  std::optional<std::thread> digesting;
  try {
    digesting.emplace(send_digest);
  } catch (const std::system_error&) {
    send_digest();  // no thread (address-space limit): the digest first, as without a compile ahead
  }
  worker::v1::Response compiled;
  Answer(compiler, compile, &compiled);
  if (digesting) digesting->join();
  if (!sent) return false;
  *ahead = CompiledAhead{compile.SerializeAsString(), std::move(compiled)};
  return true;
}

// glibc gives the top of the heap back after each free that leaves more
// than 128 KiB (up to 64 MiB) free there, and maps and unmaps each large
// buffer: a worker then faults its whole heap in again for every call,
// which made the same LLVM + nvJitLink work up to 2x slower here than in a
// long-lived process. A worker keeps its heap and large buffers between
// calls instead, and gives the free memory back once idle
// (ReleaseHeapWhenIdle).
// The main heap's size is read off the program break, which costs a
// syscall and no walk of malloc's bins (as mallinfo2 does); calls run on
// this thread, so the main heap is where their memory is.
struct HeapPolicy {
  const char* start;             // the program break at start
  std::uintptr_t trim_above = 0;  // heap bytes given back at once past this (0: never)
};

HeapPolicy KeepHeapBetweenCalls() {
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
  HeapPolicy policy{static_cast<const char*>(::sbrk(0))};
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    policy.trim_above = static_cast<std::uintptr_t>(limit.rlim_cur / 4);
  }
  return policy;
}

// Before waiting for the next call: when none comes within a second, the
// heap's free pages go back to the system; under an address-space limit
// (--worker-memory), a heap past a quarter of it goes back at once, so
// that a worker busy without pause does not hold its peak forever. A parse
// kept for a compile (kept_parse.h) goes too when no call has come for
// five seconds: the compile it was kept for is not coming.
void ReleaseHeapWhenIdle(const HeapPolicy& policy, int fd) {
  const auto heap = static_cast<std::uintptr_t>(static_cast<const char*>(::sbrk(0)) - policy.start);
  if (policy.trim_above != 0 && heap > policy.trim_above) ::malloc_trim(0);
  auto wait = [fd](int ms) {
    pollfd p{fd, POLLIN, 0};
    int n;
    do {
      n = ::poll(&p, 1, ms);
    } while (n < 0 && errno == EINTR);
    return n == 0;  // timed out
  };
  constexpr int kIdleMs = 1000, kKeptParseIdleMs = 5000;
  if (!wait(kIdleMs)) return;
  ::malloc_trim(0);
  if (!HoldsKeptParse() || !wait(kKeptParseIdleMs - kIdleMs)) return;
  DropKeptParse();
  ::malloc_trim(0);
}

bool ParseArgs(int argc, const char* const* argv, int* fd, std::uint64_t* max_answer,
               CompilerConfig* config) {
  const std::string_view max_answer_flag = kMaxAnswerFlag;
  const std::string_view scratch_flag = kScratchFlag;
  if (argc < 2 || std::string_view(argv[1]) != kCompileWorkerFlag) return false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, 5) == "--fd=") {
      *fd = std::atoi(std::string(arg.substr(5)).c_str());
    } else if (arg.substr(0, max_answer_flag.size()) == max_answer_flag) {
      *max_answer = std::strtoull(std::string(arg.substr(max_answer_flag.size())).c_str(), nullptr, 10);
    } else if (arg.substr(0, scratch_flag.size()) == scratch_flag) {
      ::setenv("TMPDIR", std::string(arg.substr(scratch_flag.size())).c_str(), 1);
    } else if (arg.substr(0, 12) == "--libdevice=") {
      config->libdevice_path = std::string(arg.substr(12));
    } else if (arg.substr(0, 14) == "--device-libs=") {
      config->device_libs_dir = std::string(arg.substr(14));
    } else if (arg.substr(0, 17) == "--cuda-libraries=") {
      SetCudaLibraryDirectory(std::string(arg.substr(17)));  // before the compiler probes CUDA
    } else {
      return false;
    }
  }
  return *fd >= 0;
}

}  // namespace

int RunCompileWorkerMain(int argc, const char* const* argv) {
  CompilerConfig config;
  std::uint64_t max_answer = kMaxFrameBytes;
  if (!ParseArgs(argc, argv, &g_fd, &max_answer, &config)) {
    std::fprintf(stderr, "usage: qdcached %s --fd=N [%sN] [--libdevice=PATH] [--device-libs=DIR] [--cuda-libraries=DIR] (started by qdcached)\n",
                 kCompileWorkerFlag, kMaxAnswerFlag);
    return kWorkerExitUsage;
  }
  std::set_new_handler(OutOfMemory);
  llvm::install_bad_alloc_error_handler(OnBadAlloc);
  llvm::install_fatal_error_handler(OnFatalError);
  // A crash prints LLVM's stack trace (and pass) into the daemon's log, then
  // dies by the signal, which the pool reports.
  ::setenv("LLVM_DISABLE_SYMBOLIZATION", "1", 1);
  llvm::sys::PrintStackTraceOnErrorSignal("qdcached compile worker");

  const HeapPolicy heap_policy = KeepHeapBetweenCalls();
  std::unique_ptr<Compiler> compiler = MakeInProcessCompiler(config);
  worker::v1::Hello hello;
  ToWire(compiler->toolchain(), &hello);
  hello.set_pid(::getpid());
  if (!WriteFrame(g_fd, hello.SerializeAsString()).ok()) return 0;

  std::optional<CompiledAhead> ahead;
  for (;;) {
    ReleaseHeapWhenIdle(heap_policy, g_fd);
    Expected<std::string> frame = ReadFrame(g_fd);
    if (!frame.ok()) return 0;  // the daemon closed the connection
    worker::v1::Request request;
    worker::v1::Response response;
    // Any request but the compile ahead's own is read only once that
    // compile has ended, and drops it.
    const std::int32_t ahead_code = ahead ? ahead->response.code() : 0;
    if (ahead && *frame == ahead->request) {
      response = std::move(ahead->response);
      response.set_answered_ahead(true);
      ahead.reset();
    } else if (ahead.reset(); !request.ParseFromString(*frame)) {
      ToWire(Internal("compile worker got an unreadable request"), &response);
    } else if (request.has_drop_ahead()) {
      // How the dropped compile ended: the pool retires a worker whose call failed.
      if (ahead_code != 0) ToWire(Internal("the compile ahead failed"), &response);
    } else if (request.has_digest() && request.digest().has_compile_ahead()) {
      DropKeptParse();  // a kept parse serves the call right after its digest, or none
      if (!DigestWithCompileAhead(*compiler, request, max_answer, &ahead)) return 0;
      continue;  // the digest is answered; the compile waits for its request
    } else {
      const std::uint64_t taken = KeptParsesTaken();
      const bool keeping = request.has_digest() && request.digest().keep_parse();
      Answer(*compiler, request, &response);
      response.set_parse_reused(KeptParsesTaken() != taken);
      // A kept parse serves the call right after its digest, or none.
      if (!keeping) DropKeptParse();
    }
    if (!Send(response, max_answer)) return 0;
  }
}

}  // namespace qdcache::compiler

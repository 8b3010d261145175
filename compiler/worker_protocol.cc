#include "compiler/worker_protocol.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace qdcache::compiler {
namespace {

using Clock = std::chrono::steady_clock;

std::string ErrnoText(int err) { return std::strerror(err); }

void EncodeLength(std::uint64_t n, char out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
}

std::uint64_t DecodeLength(const char in[8]) {
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return n;
}

Status WriteAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Unavailable("worker connection: " + ErrnoText(errno));
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

// Waits until `fd` is readable. OK when readable (or hung up: the read
// will tell); CANCELLED / DEADLINE_EXCEEDED per `control`.
Status WaitReadable(int fd, const CallControl& control) {
  const int cancel_fd = control.cancel != nullptr ? control.cancel->fd() : -1;
  for (;;) {
    if (control.cancel != nullptr && control.cancel->cancelled()) return Cancelled("compile cancelled");
    int timeout_ms = -1;
    if (control.deadline != Clock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(control.deadline - Clock::now());
      if (left.count() <= 0) return DeadlineExceeded("compile time limit reached");
      timeout_ms = static_cast<int>(std::min<std::int64_t>(left.count(), 60'000));
    }
    // Without an eventfd the token is polled every 100 ms instead.
    if (control.cancel != nullptr && cancel_fd < 0) timeout_ms = timeout_ms < 0 ? 100 : std::min(timeout_ms, 100);
    pollfd fds[2] = {{fd, POLLIN, 0}, {cancel_fd, POLLIN, 0}};
    const int n = ::poll(fds, cancel_fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Internal("poll: " + ErrnoText(errno));
    }
    if (n > 0 && fds[0].revents != 0) return Status::Ok();
  }
}

Status ReadAll(int fd, char* data, std::size_t size, const CallControl* control) {
  while (size > 0) {
    if (control != nullptr) QDC_RETURN_IF_ERROR(WaitReadable(fd, *control));
    ssize_t n = ::read(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Unavailable("worker connection: " + ErrnoText(errno));
    }
    if (n == 0) return Unavailable("worker connection closed");
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

Expected<std::string> ReadFrameImpl(int fd, const CallControl* control, std::uint64_t max_bytes) {
  char header[8];
  QDC_RETURN_IF_ERROR(ReadAll(fd, header, sizeof header, control));
  const std::uint64_t size = DecodeLength(header);
  if (size > kMaxFrameBytes) {
    return Unavailable("worker frame of " + std::to_string(size) + " bytes exceeds the limit");
  }
  if (size > max_bytes) {
    return ResourceExhausted("worker answer of " + std::to_string(size) + " bytes exceeds the limit of " +
                             std::to_string(max_bytes));
  }
  std::string message(size, '\0');
  QDC_RETURN_IF_ERROR(ReadAll(fd, message.data(), message.size(), control));
  return message;
}

}  // namespace

Status WriteFrame(int fd, std::string_view message) {
  if (message.size() > kMaxFrameBytes) {
    return Unavailable("worker frame of " + std::to_string(message.size()) + " bytes exceeds the limit");
  }
  char header[8];
  EncodeLength(message.size(), header);
  QDC_RETURN_IF_ERROR(WriteAll(fd, header, sizeof header));
  return WriteAll(fd, message.data(), message.size());
}

Expected<std::string> ReadFrame(int fd) { return ReadFrameImpl(fd, nullptr, kMaxFrameBytes); }

Expected<std::string> ReadFrame(int fd, const CallControl& control, std::uint64_t max_bytes) {
  return ReadFrameImpl(fd, &control, max_bytes);
}

void ToWire(const Target& t, worker::v1::Target* w) {
  w->set_cuda(t.kind == TargetKind::kCuda);
  w->set_amdgpu(t.kind == TargetKind::kAmdgpu);
  w->set_sm(t.sm);
  w->set_cpu(t.cpu);
  for (const std::string& f : t.features) w->add_features(f);
}

Target FromWire(const worker::v1::Target& w) {
  Target t;
  t.kind = w.cuda() ? TargetKind::kCuda : w.amdgpu() ? TargetKind::kAmdgpu : TargetKind::kCpu;
  t.sm = w.sm();
  t.cpu = w.cpu();
  t.features.assign(w.features().begin(), w.features().end());
  return t;
}

void ToWire(const CompileOptions& o, worker::v1::Options* w) {
  for (const OptionSpec& spec : OptionCatalogue()) {
    worker::v1::Option* option = w->add_values();
    option->set_name(std::string(spec.name));
    option->set_value(spec.get(o));
  }
}

CompileOptions FromWire(const worker::v1::Options& w) {
  CompileOptions o;
  for (const worker::v1::Option& option : w.values()) {
    // Checked like any client's value: a worker never runs with an option
    // outside its range, whatever the frame says.
    if (const OptionSpec* spec = FindOption(option.name()); spec != nullptr && CheckOptionValue(*spec, option.value()).ok()) {
      spec->set(o, option.value());
    }
  }
  return o;
}

void ToWire(const EntryInfo& e, worker::v1::Entry* w) {
  w->set_name(e.name);
  w->set_registers(e.registers);
  w->set_shared_bytes(e.shared_bytes);
  w->set_local_bytes(e.local_bytes);
  w->set_max_threads_per_block(e.max_threads_per_block);
  w->set_sgprs(e.sgprs);
  w->set_vgprs(e.vgprs);
  w->set_agprs(e.agprs);
  w->set_wavefront_size(e.wavefront_size);
  w->set_kernarg_bytes(e.kernarg_bytes);
}

EntryInfo FromWire(const worker::v1::Entry& w) {
  EntryInfo e;
  e.name = w.name();
  e.registers = w.registers();
  e.shared_bytes = w.shared_bytes();
  e.local_bytes = w.local_bytes();
  e.max_threads_per_block = w.max_threads_per_block();
  e.sgprs = w.sgprs();
  e.vgprs = w.vgprs();
  e.agprs = w.agprs();
  e.wavefront_size = w.wavefront_size();
  e.kernarg_bytes = w.kernarg_bytes();
  return e;
}

void ToWire(const CompileOutput& o, worker::v1::Output* w) {
  w->set_kind(static_cast<int>(o.kind));
  w->set_payload(o.payload);
  w->set_ptx(o.ptx);
  for (const EntryInfo& e : o.entries) ToWire(e, w->add_entries());
  w->set_log(o.log);
  w->mutable_timings()->set_parse_seconds(o.timings.parse_seconds);
  w->mutable_timings()->set_optimize_seconds(o.timings.optimize_seconds);
  w->mutable_timings()->set_codegen_seconds(o.timings.codegen_seconds);
  w->mutable_timings()->set_link_seconds(o.timings.link_seconds);
  for (const LoweredName& n : o.lowered_names) {
    worker::v1::LoweredName* m = w->add_lowered_names();
    m->set_expression(n.expression);
    m->set_name(n.name);
  }
}

CompileOutput AsOutput(PtxOutput ptx) {
  CompileOutput out;
  out.ptx = std::move(ptx.ptx);
  out.entries = std::move(ptx.entries);
  out.log = std::move(ptx.log);
  out.timings = ptx.timings;
  out.lowered_names = std::move(ptx.lowered_names);
  return out;
}

PtxOutput AsPtxOutput(CompileOutput output) {
  PtxOutput ptx;
  ptx.ptx = std::move(output.ptx);
  ptx.entries = std::move(output.entries);
  ptx.log = std::move(output.log);
  ptx.timings = output.timings;
  ptx.lowered_names = std::move(output.lowered_names);
  return ptx;
}

CompileOutput FromWire(const worker::v1::Output& w) {
  CompileOutput o;
  switch (w.kind()) {
    case static_cast<int>(ArtifactKind::kSharedObject):
      o.kind = ArtifactKind::kSharedObject;
      break;
    case static_cast<int>(ArtifactKind::kHsaCodeObject):
      o.kind = ArtifactKind::kHsaCodeObject;
      break;
    default:
      o.kind = ArtifactKind::kCubin;
  }
  o.payload = w.payload();
  o.ptx = w.ptx();
  for (const worker::v1::Entry& e : w.entries()) o.entries.push_back(FromWire(e));
  o.log = w.log();
  o.timings.parse_seconds = w.timings().parse_seconds();
  o.timings.optimize_seconds = w.timings().optimize_seconds();
  o.timings.codegen_seconds = w.timings().codegen_seconds();
  o.timings.link_seconds = w.timings().link_seconds();
  for (const worker::v1::LoweredName& n : w.lowered_names()) o.lowered_names.push_back({n.expression(), n.name()});
  return o;
}

void ToWire(const ToolchainInfo& t, worker::v1::Hello* w) {
  w->set_llvm_version(t.llvm_version);
  w->set_cuda_version(t.cuda_version);
  w->set_ptx_isa_version(t.ptx_isa_version);
  w->set_libdevice_digest(t.libdevice_digest);
  for (const std::string& sm : t.cuda_sms) w->add_cuda_sms(sm);
  w->set_cuda_available(t.cuda_available);
  w->set_nvjitlink_version(t.nvjitlink_version);
  w->set_libc_version(t.libc_version);
  for (const std::string& sm : t.ptx_sms) w->add_ptx_sms(sm);
  w->set_nvvm_version(t.nvvm_version);
  w->set_nvrtc_version(t.nvrtc_version);
  w->set_cuda_headers_digest(t.cuda_headers_digest);
  w->set_cudadevrt_digest(t.cudadevrt_digest);
  w->set_device_libs_digest(t.device_libs_digest);
  w->set_compiler_rt_builtins_digest(t.compiler_rt_builtins_digest);
}

ToolchainInfo FromWire(const worker::v1::Hello& w) {
  ToolchainInfo t;
  t.llvm_version = w.llvm_version();
  t.cuda_version = w.cuda_version();
  t.ptx_isa_version = w.ptx_isa_version();
  t.libdevice_digest = w.libdevice_digest();
  t.cuda_sms.assign(w.cuda_sms().begin(), w.cuda_sms().end());
  t.cuda_available = w.cuda_available();
  t.nvjitlink_version = w.nvjitlink_version();
  t.libc_version = w.libc_version();
  t.ptx_sms.assign(w.ptx_sms().begin(), w.ptx_sms().end());
  t.nvvm_version = w.nvvm_version();
  t.nvrtc_version = w.nvrtc_version();
  t.cuda_headers_digest = w.cuda_headers_digest();
  t.cudadevrt_digest = w.cudadevrt_digest();
  t.device_libs_digest = w.device_libs_digest();
  t.compiler_rt_builtins_digest = w.compiler_rt_builtins_digest();
  return t;
}

void ToWire(const Status& s, worker::v1::Response* w) {
  w->set_code(static_cast<int>(s.code()));
  w->set_message(s.ok() ? std::string() : s.message());
}

Status StatusFromWire(const worker::v1::Response& w) {
  if (w.code() == 0) return Status::Ok();
  if (w.code() < 1 || w.code() > static_cast<int>(Code::kUnauthenticated)) {
    return Internal("compile worker answered with unknown status code " + std::to_string(w.code()));
  }
  return Status(static_cast<Code>(w.code()), w.message());
}

}  // namespace qdcache::compiler

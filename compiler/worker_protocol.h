// Frames and messages between qdcached and its compile workers
// (proto/qdcache/worker/v1/worker.proto): an 8-byte little-endian length and
// a serialized message, over a stream socket. Conversions between the
// compiler's structs and the wire messages live here so both sides share them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "compiler/compiler.h"
#include "qdcache/worker/v1/worker.pb.h"

namespace qdcache::compiler {

// Larger frames are refused on both sides (protobuf's own limit is 2 GiB).
inline constexpr std::uint64_t kMaxFrameBytes = std::uint64_t{2047} << 20;

// Writes one frame, retrying short writes and EINTR. UNAVAILABLE when the
// peer is gone (EPIPE, ECONNRESET) or the frame is too large.
[[nodiscard]] Status WriteFrame(int fd, std::string_view message);

// Reads one frame, blocking. UNAVAILABLE on EOF before a whole frame (the
// peer exited) or a length over kMaxFrameBytes.
[[nodiscard]] Expected<std::string> ReadFrame(int fd);

// Reads one frame of at most `max_bytes`, waiting at most until
// control.deadline and giving up when control.cancel fires: DEADLINE_EXCEEDED
// / CANCELLED then, RESOURCE_EXHAUSTED for a longer frame (refused before it
// is read), UNAVAILABLE as above. After any error the frame may be half read:
// the caller must discard the connection.
[[nodiscard]] Expected<std::string> ReadFrame(int fd, const CallControl& control,
                                              std::uint64_t max_bytes = kMaxFrameBytes);

void ToWire(const Target& target, worker::v1::Target* wire);
[[nodiscard]] Target FromWire(const worker::v1::Target& wire);
void ToWire(const CompileOptions& options, worker::v1::Options* wire);
[[nodiscard]] CompileOptions FromWire(const worker::v1::Options& wire);
void ToWire(const EntryInfo& entry, worker::v1::Entry* wire);
[[nodiscard]] EntryInfo FromWire(const worker::v1::Entry& wire);
void ToWire(const CompileOutput& output, worker::v1::Output* wire);
[[nodiscard]] CompileOutput FromWire(const worker::v1::Output& wire);
// A PTX stage's output travels as an Output (no payload, no kind): these
// move it into that one shape and back.
[[nodiscard]] CompileOutput AsOutput(PtxOutput ptx);
[[nodiscard]] PtxOutput AsPtxOutput(CompileOutput output);
void ToWire(const ToolchainInfo& toolchain, worker::v1::Hello* wire);
[[nodiscard]] ToolchainInfo FromWire(const worker::v1::Hello& wire);

// Status <-> Response.code/message.
void ToWire(const Status& status, worker::v1::Response* wire);
[[nodiscard]] Status StatusFromWire(const worker::v1::Response& wire);

}  // namespace qdcache::compiler

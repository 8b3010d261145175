#include "compiler/input_sniff.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace qdcache::compiler {
namespace {

struct Magic {
  std::string_view bytes;
  std::string_view what;
};

using namespace std::string_view_literals;

// Binary formats a client might send by mistake, by their leading bytes.
constexpr std::array kMagics = {
    Magic{"\x1f\x8b"sv, "a gzip stream (decompress it first)"},
    Magic{"\x28\xb5\x2f\xfd"sv, "a zstd stream (decompress it first)"},
    Magic{"\xfd"
          "7zXZ\0"sv,
          "an xz stream (decompress it first)"},
    Magic{"BZh"sv, "a bzip2 stream (decompress it first)"},
    Magic{"PK\x03\x04"sv, "a zip archive"},
    Magic{"\x7f"
          "ELF"sv,
          "an ELF file (object code or a cubin)"},
    Magic{"\x50\xed\x55\xba"sv, "a CUDA fatbinary"},
    Magic{"\xff\xfe"sv, "UTF-16 text (LLVM reads UTF-8 IR)"},
    Magic{"\xfe\xff"sv, "UTF-16 text (LLVM reads UTF-8 IR)"},
    Magic{"\xef\xbb\xbf"sv, "UTF-8 text with a byte-order mark (remove the BOM)"},
    // Bitcode is 'B' 'C' 0xC0 0xDE; IsBitcode already said these are not.
    Magic{"BC"sv, "LLVM bitcode with a damaged magic number"},
};

// UTF-16 without a byte-order mark: ASCII text with a NUL after (LE) or
// before (BE) every character.
bool LooksLikeUtf16(std::string_view bytes) {
  const size_t n = std::min<size_t>(bytes.size(), 64) & ~size_t{1};
  if (n < 8) return false;
  for (const size_t zero_at : {size_t{1}, size_t{0}}) {
    bool all = true;
    for (size_t i = 0; i < n && all; i += 2) {
      const unsigned char zero = bytes[i + zero_at];
      const unsigned char ascii = bytes[i + 1 - zero_at];
      all = zero == 0 && ascii != 0 && ascii < 0x80;
    }
    if (all) return true;
  }
  return false;
}

// The first `limit` bytes, line by line, without leading blanks.
template <typename Pred>
bool AnyLine(std::string_view bytes, size_t limit, Pred pred) {
  bytes = bytes.substr(0, limit);
  while (!bytes.empty()) {
    const size_t eol = bytes.find('\n');
    std::string_view line = bytes.substr(0, eol);
    bytes = eol == std::string_view::npos ? std::string_view() : bytes.substr(eol + 1);
    const size_t start = line.find_first_not_of(" \t\r");
    if (start != std::string_view::npos && pred(line.substr(start))) return true;
  }
  return false;
}

}  // namespace

ForeignInput SniffForeignInput(std::string_view bytes) {
  for (const Magic& magic : kMagics) {
    if (bytes.starts_with(magic.bytes)) return {magic.what, true};
  }
  if (LooksLikeUtf16(bytes)) return {"UTF-16 text (LLVM reads UTF-8 IR)", true};

  // Text formats: a line no IR line can start with, near the top.
  constexpr size_t kLookahead = 4096;
  if (AnyLine(bytes, kLookahead, [](std::string_view line) {
        return line.starts_with(".version ") || line.starts_with(".target sm_") ||
               line.starts_with(".address_size ");
      })) {
    return {"PTX assembly; send it as source kind PTX (--kind ptx, kind=\"ptx\")", false};
  }
  if (AnyLine(bytes, kLookahead, [](std::string_view line) {
        return line.starts_with("#include") || line.starts_with("#define") ||
               line.starts_with("#pragma") || line.starts_with("__global__") ||
               line.starts_with("extern \"C\"") || line.starts_with("template <") ||
               line.starts_with("int main(");
      })) {
    return {"C, C++ or CUDA source (compile it to IR first: clang -S -emit-llvm)", false};
  }
  return {};
}

}  // namespace qdcache::compiler

// CPU kernels whose arithmetic becomes calls into compiler-rt's builtins (half,
// bfloat, 128-bit integers) and libm (long double): they compile, compute what
// an independent reference computes, and import nothing beyond libc and libm.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

#include "backends/host_libm.h"
#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

// An IEEE binary format of 16 bits: `precision` significand bits (with the
// implicit one) and an exponent of `exponent_bits`.
struct Format {
  int precision;
  int exponent_bits;
  [[nodiscard]] int Bias() const { return (1 << (exponent_bits - 1)) - 1; }
  [[nodiscard]] std::uint16_t InfinityBits() const {
    return static_cast<std::uint16_t>(((1 << exponent_bits) - 1) << (precision - 1));
  }
};
constexpr Format kHalf{11, 5};
constexpr Format kBfloat{8, 8};

// The format's value nearest to `v`, ties to even: the reference, written
// from the definition (no compiler support for the type involved).
std::uint16_t Round(double v, Format f) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | f.InfinityBits() | (1 << (f.precision - 2)));
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign | f.InfinityBits();
  const int emin = 1 - f.Bias();
  int e = a == 0 ? emin : std::max(std::ilogb(a), emin);
  double q = std::nearbyint(std::ldexp(a, f.precision - 1 - e));  // exact scaling, one rounding
  if (q >= std::ldexp(1.0, f.precision)) {
    q /= 2;
    ++e;
  }
  if (e > f.Bias()) return sign | f.InfinityBits();
  const auto significand = static_cast<std::uint16_t>(q);
  if (significand < (1 << (f.precision - 1))) return sign | significand;  // subnormal or zero
  return static_cast<std::uint16_t>(sign | ((e + f.Bias()) << (f.precision - 1)) |
                                    (significand - (1 << (f.precision - 1))));
}

double Value(std::uint16_t bits, Format f) {
  const double sign = (bits & 0x8000) ? -1 : 1;
  const int exponent = (bits >> (f.precision - 1)) & ((1 << f.exponent_bits) - 1);
  const int mantissa = bits & ((1 << (f.precision - 1)) - 1);
  if (exponent == (1 << f.exponent_bits) - 1) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - f.Bias() - (f.precision - 1));
  return sign * std::ldexp(mantissa | (1 << (f.precision - 1)), exponent - f.Bias() - (f.precision - 1));
}

bool IsNan(std::uint16_t bits, Format f) {
  return (bits & 0x7fff) > f.InfinityBits();
}

// Equal bits, or both NaN (payloads are not specified).
void CheckSame(std::uint16_t got, std::uint16_t expected, Format f, double input) {
  if (IsNan(expected, f)) {
    CHECK(IsNan(got, f));
    return;
  }
  if (got != expected) {
    INFO("input " << input << ": got 0x" << std::hex << got << ", expected 0x" << expected);
    CHECK(got == expected);
  }
}

// Every 16-bit pattern, in an order that pairs each with a distant one.
std::vector<std::uint16_t> AllBits() {
  std::vector<std::uint16_t> bits(1 << 16);
  for (std::uint32_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint16_t>(i);
  return bits;
}
std::vector<std::uint16_t> Shuffled() {
  std::vector<std::uint16_t> bits(1 << 16);
  for (std::uint32_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint16_t>(i * 40503u + 12345u);
  return bits;
}

// Doubles that probe rounding to `f`: every value of the format, the
// midpoints between neighbours (ties), just above and below them, and
// values beyond the format's range.
std::vector<double> RoundingProbes(Format f) {
  std::vector<double> probes;
  for (std::uint32_t bits = 0; bits < 0x7fff; ++bits) {
    if (IsNan(static_cast<std::uint16_t>(bits), f) || IsNan(static_cast<std::uint16_t>(bits + 1), f)) continue;
    const double a = Value(static_cast<std::uint16_t>(bits), f);
    const double b = Value(static_cast<std::uint16_t>(bits + 1), f);
    if (std::isinf(b)) continue;
    const double mid = (a + b) / 2;
    for (double v : {a, mid, std::nextafter(mid, 0.0), std::nextafter(mid, b), mid + (b - a) * 1e-9}) {
      probes.push_back(v);
      probes.push_back(-v);
    }
  }
  for (double v : {1e300, 65504.0, 65519.99, 65520.0, 3.4e38, 3.39e38, 1e-300, 5.9e-8, 6e-8}) probes.push_back(v);
  return probes;
}

using Binary = void(std::int64_t, const std::uint16_t*, const std::uint16_t*, std::uint16_t*);
using FromF32 = void(std::int64_t, const float*, std::uint16_t*);
using FromF64 = void(std::int64_t, const double*, std::uint16_t*);
using ToF64 = void(std::int64_t, const std::uint16_t*, double*);
using Sum = void(std::int64_t, const std::uint16_t*, std::uint16_t*);

const CompileOutput& RuntimeCalls() {
  static const CompileOutput out = [] {
    auto result = TheCompiler().Compile(Input(ReadTestData("cpu/runtime_calls.ll"), Cpu("x86-64")));
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    return std::move(result).value();
  }();
  return out;
}

// The kernels `prefix`_add, _mul, _from_f32, _from_f64, _to_f64 and _sum
// against the reference for format `f`.
void CheckSixteenBitKernels(const std::string& prefix, Format f) {
  LoadedLibrary library(RuntimeCalls().payload);
  INFO(library.error());
  REQUIRE(library.ok());

  const std::vector<std::uint16_t> x = AllBits();
  const std::vector<std::uint16_t> y = Shuffled();
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<std::uint16_t> out(x.size());
  for (const auto& [name, op] : {std::pair<std::string, std::function<double(double, double)>>{"_add", std::plus<>()},
                                 {"_mul", std::multiplies<>()}}) {
    SECTION(prefix + name) {
      auto* kernel = library.Get<Binary>((prefix + name).c_str());
      REQUIRE(kernel != nullptr);
      kernel(n, x.data(), y.data(), out.data());
      // Exact in double, so rounding it once is what the type's own
      // arithmetic gives (float intermediates are wide enough not to matter).
      for (std::size_t i = 0; i < x.size(); ++i) {
        CheckSame(out[i], Round(op(Value(x[i], f), Value(y[i], f)), f), f, Value(x[i], f));
      }
    }
  }
  SECTION(prefix + " conversions from float and double") {
    const std::vector<double> probes = RoundingProbes(f);
    std::vector<float> singles;
    for (double v : probes) {
      if (std::fabs(v) < 3e38) singles.push_back(static_cast<float>(v));
    }
    std::vector<std::uint16_t> converted(probes.size());
    auto* from_f64 = library.Get<FromF64>((prefix + "_from_f64").c_str());
    auto* from_f32 = library.Get<FromF32>((prefix + "_from_f32").c_str());
    REQUIRE(from_f64 != nullptr);
    REQUIRE(from_f32 != nullptr);
    from_f64(static_cast<std::int64_t>(probes.size()), probes.data(), converted.data());
    for (std::size_t i = 0; i < probes.size(); ++i) CheckSame(converted[i], Round(probes[i], f), f, probes[i]);
    from_f32(static_cast<std::int64_t>(singles.size()), singles.data(), converted.data());
    for (std::size_t i = 0; i < singles.size(); ++i) CheckSame(converted[i], Round(singles[i], f), f, singles[i]);
  }
  SECTION(prefix + " conversion to double is exact") {
    std::vector<double> widened(x.size());
    auto* to_f64 = library.Get<ToF64>((prefix + "_to_f64").c_str());
    REQUIRE(to_f64 != nullptr);
    to_f64(n, x.data(), widened.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double expected = Value(x[i], f);
      if (std::isnan(expected)) {
        CHECK(std::isnan(widened[i]));
      } else {
        CHECK(widened[i] == expected);
      }
    }
  }
  SECTION(prefix + " sequential sum, rounded at every step") {
    std::vector<std::uint16_t> terms;
    for (int i = 0; i < 1000; ++i) terms.push_back(Round(std::sin(i) * (1 + i % 7), f));
    std::uint16_t expected = 0;
    for (std::uint16_t t : terms) expected = Round(Value(expected, f) + Value(t, f), f);
    std::uint16_t sum = 0xffff;
    auto* kernel = library.Get<Sum>((prefix + "_sum").c_str());
    REQUIRE(kernel != nullptr);
    kernel(static_cast<std::int64_t>(terms.size()), terms.data(), &sum);
    CHECK(sum == expected);
  }
}

constexpr const char* kTriple = "target triple = \"x86_64-unknown-linux-gnu\"\n";

}  // namespace

TEST_CASE("half-precision CPU kernels add, multiply, convert and sum exactly as IEEE binary16 does",
          "[cpu-runtime]") {
  CheckSixteenBitKernels("h", kHalf);
}

TEST_CASE("bfloat16 CPU kernels add, multiply, convert and sum exactly as bfloat16 does", "[cpu-runtime]") {
  CheckSixteenBitKernels("b", kBfloat);
}

TEST_CASE("128-bit integer division and conversion from double link compiler-rt's builtins", "[cpu-runtime]") {
  LoadedLibrary library(RuntimeCalls().payload);
  REQUIRE(library.ok());
  auto* divmod = library.Get<void(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t*)>(
      "i128_divmod");
  auto* from_f64 = library.Get<void(double, std::uint64_t*)>("i128_from_f64");
  REQUIRE(divmod != nullptr);
  REQUIRE(from_f64 != nullptr);
  const __int128 cases[][2] = {
      {(static_cast<__int128>(0x0123456789abcdefLL) << 64) | 0xfedcba9876543210ULL, 0x1234567LL},
      {-((static_cast<__int128>(0x7fffffffffffffffLL) << 64) | 0x42), (static_cast<__int128>(3) << 64) | 7},
      {123456789, -1000},
  };
  for (const auto& [a, b] : cases) {
    std::uint64_t out[4];
    const auto ua = static_cast<unsigned __int128>(a);
    const auto ub = static_cast<unsigned __int128>(b);
    divmod(static_cast<std::uint64_t>(ua >> 64), static_cast<std::uint64_t>(ua), static_cast<std::uint64_t>(ub >> 64),
           static_cast<std::uint64_t>(ub), out);
    const auto q = static_cast<__int128>((static_cast<unsigned __int128>(out[0]) << 64) | out[1]);
    const auto r = static_cast<__int128>((static_cast<unsigned __int128>(out[2]) << 64) | out[3]);
    CHECK(q == a / b);
    CHECK(r == a % b);
  }
  for (double d : {1e30, -3.5e25, 12345.75, -0.5}) {
    std::uint64_t out[2];
    from_f64(d, out);
    CHECK(static_cast<__int128>((static_cast<unsigned __int128>(out[0]) << 64) | out[1]) == static_cast<__int128>(d));
  }
}

TEST_CASE("long double ldexpl, frexpl and fmal come from libm and compute as libm does", "[cpu-runtime]") {
  LoadedLibrary library(RuntimeCalls().payload);
  REQUIRE(library.ok());
  auto* math = library.Get<void(double, int, double, double, double*, int*)>("long_double_math");
  REQUIRE(math != nullptr);
  for (const auto& [x, e, y, z] : {std::tuple{0.75, 10, 3.0, 1.0}, std::tuple{-1e-300, 2000, 1e300, -1.0},
                                   std::tuple{6.0, -1074, 1.0 / 3, 1e-20}}) {
    double out[3];
    int exponent = 0;
    math(x, e, y, z, out, &exponent);
    int expected_exponent = 0;
    CHECK(out[0] == static_cast<double>(std::ldexp(static_cast<long double>(x), e)));
    CHECK(out[1] == static_cast<double>(std::frexp(static_cast<long double>(x), &expected_exponent)));
    CHECK(exponent == expected_exponent);
    CHECK(out[2] == static_cast<double>(std::fma(static_cast<long double>(x), static_cast<long double>(y),
                                                 static_cast<long double>(z))));
  }
}

TEST_CASE("a kernel library imports only memcpy, memmove, memset and libm, and exports no builtin",
          "[cpu-runtime]") {
  const DynamicSection dynamic = ReadDynamicSection(RuntimeCalls().payload);
  CHECK(dynamic.needed == std::vector<std::string>{"libm.so.6"});
  const HostLibm& libm = GetHostLibm();
  REQUIRE(libm.error.empty());
  std::vector<std::string> imports = dynamic.undefined;
  std::sort(imports.begin(), imports.end());
  imports.erase(std::remove(imports.begin(), imports.end(), std::string()), imports.end());
  CHECK(imports == std::vector<std::string>{"fmal", "frexpl", "ldexpl"});
  for (const std::string& name : imports) CHECK(libm.functions.count(name) == 1);
  for (const std::string& name : dynamic.defined) {
    INFO(name);
    CHECK(name.rfind("__", 0) != 0);  // compiler-rt's builtins stay inside
  }
  // Without half, bfloat or i128 a library links no builtins and needs no libm.
  auto plain = TheCompiler().Compile(Input(ReadTestData("cpu/saxpy.ll"), Cpu("x86-64")));
  REQUIRE(plain.ok());
  CHECK(ReadDynamicSection(plain->payload).needed.empty());
}

TEST_CASE("the importable libm functions are C11's <math.h> set the host libm exports", "[cpu-runtime]") {
  const HostLibm& libm = GetHostLibm();
  INFO(libm.error);
  REQUIRE(libm.error.empty());
  CHECK_FALSE(libm.path.empty());
  // Three forms of most of C11's 57 functions, and sincos / exp10.
  CHECK(libm.functions.size() >= 170);
  CHECK(libm.functions.size() <= 177);
  for (const char* name : {"ldexpl", "frexpl", "fmal", "sinf", "cos", "nexttowardf", "llroundl", "remquo", "nan",
                           "sincos", "sincosl", "exp10f"}) {
    INFO(name);
    CHECK(libm.functions.count(name) == 1);
  }
  for (const char* name : {"fesetround", "feclearexcept", "signgam", "matherr", "__finite", "sinf128", "cosf64x",
                           "j0", "gamma", "drem", "memcpy", "printf"}) {
    INFO(name);
    CHECK(libm.functions.count(name) == 0);
  }
}

TEST_CASE("thread_local variables of a kernel library are per thread (__tls_get_addr)", "[cpu-runtime]") {
  const std::string ir = std::string(kTriple) +
                         "@count = thread_local global i32 0\n"
                         "define i32 @bump(i32 %x) {\n  %v = load i32, ptr @count\n  %s = add i32 %v, %x\n"
                         "  store i32 %s, ptr @count\n  ret i32 %s\n}\n";
  auto out = TheCompiler().Compile(Input(ir, Cpu("x86-64")));
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  CHECK(ReadDynamicSection(out->payload).undefined == std::vector<std::string>{"__tls_get_addr"});
  LoadedLibrary library(out->payload);
  INFO(library.error());
  REQUIRE(library.ok());
  auto* bump = library.Get<int(int)>("bump");
  REQUIRE(bump != nullptr);
  CHECK(bump(5) == 5);
  CHECK(bump(2) == 7);
  int other = 0;
  std::thread([&] { other = bump(3); }).join();
  CHECK(other == 3);  // a fresh thread starts from the initial value
  CHECK(bump(1) == 8);
}

TEST_CASE("a kernel built with a stack protector that compares memory compiles and runs", "[cpu-runtime]") {
  // clang-19 -O2 -fstack-protector-strong of: copy up to 64 bytes of a to a
  // local buffer, return memcmp(buffer, b, n) == 0 (which LLVM makes bcmp).
  const std::string ir = std::string(kTriple) +
                         "declare i32 @memcmp(ptr, ptr, i64)\n"
                         "define i32 @same(ptr %a, ptr %b, i64 %n) sspstrong {\n"
                         "  %buf = alloca [64 x i8]\n"
                         "  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %a, i64 %n, i1 false)\n"
                         "  %c = call i32 @memcmp(ptr %buf, ptr %b, i64 %n)\n"
                         "  %e = icmp eq i32 %c, 0\n  %r = zext i1 %e to i32\n  ret i32 %r\n}\n"
                         "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n";
  auto out = TheCompiler().Compile(Input(ir, Cpu("x86-64"), CompileOptions{}));
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  std::vector<std::string> imports = ReadDynamicSection(out->payload).undefined;
  std::sort(imports.begin(), imports.end());
  CHECK(imports == std::vector<std::string>{"__stack_chk_fail", "bcmp", "memcpy"});
  LoadedLibrary library(out->payload);
  REQUIRE(library.ok());
  auto* same = library.Get<int(const char*, const char*, std::int64_t)>("same");
  REQUIRE(same != nullptr);
  CHECK(same("kernel", "kernel", 6) == 1);
  CHECK(same("kernel", "kernal", 6) == 0);
}

TEST_CASE("a module calling a libm function outside C11, or a host function, is refused naming it",
          "[cpu-runtime]") {
  for (const char* name : {"j0", "fesetround", "printf"}) {
    const std::string ir = std::string(kTriple) + "declare double @" + name +
                           "(double)\ndefine double @k(double %x) {\n  %r = call double @" + name +
                           "(double %x)\n  ret double %r\n}\n";
    const Status status = CompileStatus(ir, Cpu("x86-64"));
    INFO(status.ToString());
    CHECK(status.code() == Code::kInvalidArgument);
    CHECK_THAT(status.message(), Catch::Contains(std::string("may not import: ") + name));
  }
}

TEST_CASE("a builtin that needs more of libc than a kernel may import is refused after linking", "[cpu-runtime]") {
  // __addvsi3 (trapping addition) aborts through libc's abort.
  const std::string ir = std::string(kTriple) +
                         "declare i32 @__addvsi3(i32, i32)\n"
                         "define i32 @k(i32 %a, i32 %b) {\n  %r = call i32 @__addvsi3(i32 %a, i32 %b)\n  ret i32 %r\n}\n";
  const Status status = CompileStatus(ir, Cpu("x86-64"));
  INFO(status.ToString());
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK_THAT(status.message(), Catch::Contains("builtins the module calls (__addvsi3) need symbols"));
  CHECK_THAT(status.message(), Catch::Contains("may not import: abort"));
}

TEST_CASE("a module the linker rejects is INVALID_ARGUMENT with lld's message and no descriptor paths",
          "[cpu-runtime]") {
  const std::string ir = std::string(kTriple) +
                         "@tls = thread_local global i32 10, section \"s4\", align 4\n"
                         "@data = global i32 10, section \"s4\", align 4\n"
                         "define i32 @k() {\n  %v = load i32, ptr @data\n  ret i32 %v\n}\n";
  const Status status = CompileStatus(ir, Cpu("x86-64"));
  INFO(status.ToString());
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK_THAT(status.message(), Catch::Contains("the linker rejected the module: ld.lld: error: incompatible "
                                               "section flags for s4"));
  CHECK_THAT(status.message(), Catch::Contains("kernel.o"));
  CHECK_THAT(status.message(), !Catch::Contains("/proc/self/fd"));
}

#!/usr/bin/env bash
# Writes the malformed-input corpus into OUTDIR: one file per case that
# MANIFEST (next to this script) names, each generated here so that nothing
# binary or large is committed. Deterministic for one LLVM 19 build.
#
# Usage: generate.sh OUTDIR [LLVM_TOOLS_DIR]
#   LLVM_TOOLS_DIR holds llvm-as, llc, opt, llvm-dis (default: the -19
#   suffixed tools on PATH, as Debian's llvm-19 package installs them).
# Needs bash, awk, gzip, iconv, head, tail and dd besides.
set -euo pipefail

if (($# < 1 || $# > 2)); then
  echo "usage: $0 OUTDIR [LLVM_TOOLS_DIR]" >&2
  exit 2
fi
out=$(realpath -m "$1")
tools_dir=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/..

tool() {
  if [[ -n $tools_dir ]]; then
    echo "$tools_dir/$1"
  else
    command -v "$1-19" || { echo "generate.sh: $1-19 not found (pass LLVM_TOOLS_DIR)" >&2; exit 1; }
  fi
}
LLVM_AS=$(tool llvm-as)
LLC=$(tool llc)
OPT=$(tool opt)
LLVM_DIS=$(tool llvm-dis)

# Build into a scratch directory and move it into place at the end, so an
# interrupted run never leaves a half-written corpus behind.
mkdir -p "$(dirname "$out")"
work=$(mktemp -d "${out%/}.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

CPU_TRIPLE='target triple = "x86_64-unknown-linux-gnu"'
CUDA_TRIPLE='target triple = "nvptx64-nvidia-cuda"'

# repeat N TEXT: TEXT N times, without a newline.
repeat() { awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }

# flip_bit FILE OFFSET BIT: flips one bit of one byte in place.
flip_bit() {
  local byte
  byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((byte ^ (1 << $3))))" |
    dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

# le32 N: N as 4 little-endian bytes.
le32() {
  local n=$1
  printf "\\$(printf '%03o' $((n & 255)))\\$(printf '%03o' $(((n >> 8) & 255)))"
  printf "\\$(printf '%03o' $(((n >> 16) & 255)))\\$(printf '%03o' $(((n >> 24) & 255)))"
}

# ---------------------------------------------------------------- good bases
cp "$data/cpu/saxpy.ll" base_cpu.ll
cp "$data/cuda/saxpy.ll" base_cuda.ll
"$LLVM_AS" base_cpu.ll -o base_cpu.bc
size=$(wc -c < base_cpu.bc)

# ------------------------------------------------------------ not IR at all
: > empty.ll
printf ' \n\t\r\n  \n' > whitespace.ll
gzip -9 -n -c base_cpu.ll > gzip.ll.gz
"$LLC" -O0 -filetype=obj base_cpu.ll -o elf.o
"$LLC" -O0 -mcpu=sm_75 base_cuda.ll -o ptx.ptx
cp "$data/cuda/saxpy.cu" cuda_source.cu
iconv -f UTF-8 -t UTF-16 base_cpu.ll > utf16.ll
{ printf '\xef\xbb\xbf'; cat base_cpu.ll; } > utf8_bom.ll

# ------------------------------------------------------------ broken text IR
head -c 900 base_cpu.ll > truncated_text.ll  # cut inside @saxpy's body
{ printf '%s\ndefine void @f() {\n  ret void\n}\n\0' "$CPU_TRIPLE"
  printf 'define void @g() {\n  ret void\n}\n'; } > embedded_nul.ll
printf '%s\ndefine void @f() {\n  ret i32x\n}\n' "$CPU_TRIPLE" > parse_error.ll

# ------------------------------------------------------------ broken bitcode
head -c $((size / 2 / 4 * 4)) base_cpu.bc > truncated_bitcode.bc
head -c $((size / 2 / 4 * 4 + 1)) base_cpu.bc > truncated_bitcode_unaligned.bc
head -c 8 base_cpu.bc > truncated_bitcode_header.bc
# Shorter than a magic number, but starting like one.
head -c 3 base_cpu.bc > truncated_bitcode_magic.bc
# Bad magic: 'B' 'C' 0xC0 0xDF instead of 0xDE.
cp base_cpu.bc bad_magic.bc
flip_bit bad_magic.bc 3 0
# Trailing garbage after a complete bitcode module (a whole number of words,
# and not).
{ cat base_cpu.bc; printf 'GARBAGE!'; } > trailing_garbage.bc
{ cat base_cpu.bc; printf 'xyz'; } > trailing_garbage_unaligned.bc
# Wrapper header (magic 0x0B17C0DE, version, offset, size, cpu type) whose
# offset or size point outside the file, or overflow 32 bits together.
wrapper() { printf '\xde\xc0\x17\x0b'; le32 0; le32 "$1"; le32 "$2"; le32 0; cat base_cpu.bc; }
wrapper $((0x7fffff00)) "$size" > wrapper_offset_outside.bc
wrapper 20 $((size * 4)) > wrapper_size_outside.bc
wrapper $((0xfffffff0)) 32 > wrapper_offset_overflow.bc
# Bit flips: for each region of the file, the first flip (bit 2 of successive
# bytes) that llvm-dis refuses cleanly, so the case stays a clean refusal
# even if LLVM's bitcode layout shifts between builds.
for region in 1 2 3; do
  found=
  for ((j = 0; j < 256; j++)); do
    cp base_cpu.bc candidate.bc
    flip_bit candidate.bc $((size * region / 4 + j)) 2
    set +e
    "$LLVM_DIS" candidate.bc -o discarded.ll 2>/dev/null
    rc=$?
    set -e
    if ((rc == 1)); then
      mv candidate.bc "bitflip_$region.bc"
      found=1
      break
    fi
  done
  [[ -n $found ]] || { echo "generate.sh: no clean bit-flip refusal in region $region" >&2; exit 1; }
done
rm -f candidate.bc

# ------------------------------------------------- triples and datalayouts
body_cpu='define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}'
body_cuda='define ptx_kernel void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}'
printf '%s\n' "$body_cpu" > ok_cpu_no_triple.ll
printf '%s\n' "$body_cuda" > ok_cuda_no_triple.ll
printf '%s\n%s\n' "$CUDA_TRIPLE" "$body_cpu" > triple_nvptx_for_cpu.ll
printf '%s\n%s\n' "$CPU_TRIPLE" "$body_cuda" > triple_x86_for_cuda.ll
printf 'target triple = "sparc-sun-solaris"\n%s\n' "$body_cpu" > triple_unknown.ll
printf 'target triple = "nvptx-nvidia-cuda"\n%s\n' "$body_cuda" > triple_nvptx32.ll
printf 'target triple = "i686-pc-linux-gnu"\n%s\n' "$body_cpu" > triple_i686_for_cpu.ll
printf 'target datalayout = "E-m:e-i64:64-n32:64"\n%s\n%s\n' "$CPU_TRIPLE" "$body_cpu" \
  > datalayout_big_endian.ll
printf 'target datalayout = "e-p:32:32-i64:64-n16:32:64"\n%s\n%s\n' "$CUDA_TRIPLE" "$body_cuda" \
  > datalayout_32bit_pointers.ll

# ----------------------------------------------- modules LLVM or we refuse
printf '%s\ndefine i32 @f() {\n  %%a = add i32 %%b, 1\n  %%b = add i32 %%a, 1\n  ret i32 %%a\n}\n' \
  "$CPU_TRIPLE" > verifier_failure.ll
# The same with the current "Debug Info Version": LLVM's readers then call
# report_fatal_error instead of returning the module (found by tests/fuzz).
{ cat verifier_failure.ll; printf '!llvm.module.flags = !{!0}\n!0 = !{i32 2, !"Debug Info Version", i32 3}\n'; } \
  > verifier_failure_debug_info.ll
"$LLVM_AS" -disable-verify verifier_failure_debug_info.ll -o verifier_failure_debug_info.bc
printf '%s\ndeclare void @no_such_function(ptr)\ndefine void @k(ptr %%p) {\n  call void @no_such_function(ptr %%p)\n  ret void\n}\n' \
  "$CPU_TRIPLE" > undefined_symbol_cpu.ll
printf '%s\ndeclare void @no_such_function(ptr)\ndefine ptx_kernel void @k(ptr %%p) {\n  call void @no_such_function(ptr %%p)\n  ret void\n}\n' \
  "$CUDA_TRIPLE" > undefined_symbol_cuda.ll
printf '%s\ndefine internal void @f() {\n  ret void\n}\n' "$CPU_TRIPLE" > no_exported_function.ll
printf '%s\ndefine void @f() {\n  ret void\n}\n' "$CUDA_TRIPLE" > cuda_no_kernel.ll
# i128 atomics lower to a libcall nothing provides on the GPU.
printf '%s\ndefine ptx_kernel void @k(ptr addrspace(1) %%p, i128 %%a) {\n  %%q = atomicrmw add ptr addrspace(1) %%p, i128 %%a seq_cst\n  store i128 %%q, ptr addrspace(1) %%p\n  ret void\n}\n' \
  "$CUDA_TRIPLE" > atomic_i128_cuda.ll
# Odd integer widths: LLVM 19 emits ".u17" parameters, which ptxas refuses.
printf '%s\ndefine ptx_kernel void @k(ptr addrspace(1) %%p, i17 %%a, i17 %%b) {\n  %%q = mul i17 %%a, %%b\n  %%r = udiv i17 %%q, %%b\n  store i17 %%r, ptr addrspace(1) %%p\n  ret void\n}\n' \
  "$CUDA_TRIPLE" > odd_int_width_cuda.ll
# sm_90-only intrinsic (distributed shared memory): fine for sm_90, and on
# sm_75 LLVM's instruction selector calls report_fatal_error.
printf '%s\ndeclare ptr @llvm.nvvm.mapa(ptr, i32)\ndefine ptx_kernel void @k(ptr %%p, ptr addrspace(1) %%out) {\n  %%q = call ptr @llvm.nvvm.mapa(ptr %%p, i32 1)\n  store ptr %%q, ptr addrspace(1) %%out\n  ret void\n}\n' \
  "$CUDA_TRIPLE" > sm90_intrinsic.ll

# -------------------------------------------------- sizes beyond hardware
printf '%s\n@s = internal addrspace(3) global [1073741824 x float] undef, align 4
define ptx_kernel void @k(ptr addrspace(1) %%p, i64 %%i) {
  %%a = getelementptr [1073741824 x float], ptr addrspace(3) @s, i64 0, i64 %%i
  store volatile float 1.0, ptr addrspace(3) %%a
  %%v = load volatile float, ptr addrspace(3) %%a
  store float %%v, ptr addrspace(1) %%p
  ret void
}\n' "$CUDA_TRIPLE" > huge_shared_array.ll
printf '%s\ndefine ptx_kernel void @k(ptr addrspace(1) %%p, i64 %%i) {
  %%l = alloca [268435456 x i32], align 4
  %%a = getelementptr [268435456 x i32], ptr %%l, i64 0, i64 %%i
  store volatile i32 1, ptr %%a
  %%v = load volatile i32, ptr %%a
  store i32 %%v, ptr addrspace(1) %%p
  ret void
}\n' "$CUDA_TRIPLE" > huge_local_array.ll
huge_global() {  # TRIPLE ADDRSPACE ELEMENTS KERNEL-CC
  printf '%s\n@g = %s global [%s x i64] zeroinitializer, align 8
define %s void @k(ptr %%p) {
  %%q = getelementptr [%s x i64], ptr %s @g, i64 0, i64 5
  %%v = load i64, ptr %s %%q
  store i64 %%v, ptr %%p
  ret void
}\n' "$1" "$2" "$3" "$4" "$3" "$2" "$2"
}
huge_global "$CUDA_TRIPLE" 'addrspace(1)' 2305843009213693951 ptx_kernel > huge_global_cuda.ll
huge_global "$CPU_TRIPLE" '' 2305843009213693951 '' > huge_global_cpu.ll
huge_global "$CPU_TRIPLE" '' 4611686018427387904 '' > wrapping_global_cpu.ll
sed 's/1073741824 x float/4611686018427387904 x float/g' huge_shared_array.ll > wrapping_shared_array.ll
# Named structs that each hold two of the one before: 2^61 bytes, sized in
# 61 steps, not 2^61.
{ echo "$CPU_TRIPLE"
  awk 'BEGIN { print "%t0 = type { i8, i8 }"
               for (i = 1; i < 61; i++) printf "%%t%d = type { %%t%d, %%t%d }\n", i, i - 1, i - 1
               print "@g = global %t60 zeroinitializer" }'
  echo "$body_cpu"; } > struct_dag_global_cpu.ll
printf '%s\ndefine void @k(ptr %%p, i64 %%i) {
  %%l = alloca [600000000 x i32], align 4
  %%a = getelementptr [600000000 x i32], ptr %%l, i64 0, i64 %%i
  store volatile i32 1, ptr %%a
  %%v = load volatile i32, ptr %%a
  store i32 %%v, ptr %%p
  ret void
}\n' "$CPU_TRIPLE" > huge_stack_object_cpu.ll
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .global .align 8 .b8 g[18446744073709551608];
.visible .entry k(.param .u64 p) {\n.reg .b64 %%rd<4>;\nld.param.u64 %%rd1, [p];\nld.global.u64 %%rd2, [g+40];
st.global.u64 [%%rd1], %%rd2;\nret;\n}\n' > huge_global.ptx
printf '__device__ long long g[2305843009213693951];\nextern "C" __global__ void k(long long* p) { *p = g[5]; }\n' \
  > huge_device_array.cu
# NVRTC declares a __managed__ variable with .attribute(.managed) before its type.
printf '__managed__ long long m[2305843009213693951];\nextern "C" __global__ void k(long long* p) { *p = m[5]; }\n' \
  > huge_managed_array.cu

cp "$data/cpu/runtime_calls.ll" runtime_calls_cpu.ll

# ------------------------------------------------ modules the linker rejects
# TLS and non-TLS data in one named section (LLVM's own
# elf-unique-sections-by-flags test): llc accepts it, lld does not.
printf '%s\n@tls = thread_local global i32 10, section "s4", align 4
@data = global i32 10, section "s4", align 4
define i32 @k() {\n  %%v = load i32, ptr @data\n  ret i32 %%v\n}\n' "$CPU_TRIPLE" > section_flags_cpu.ll

# ------------------------------------------------------------------ nesting
deep=100000
{ echo "$CPU_TRIPLE"; printf '@g = global '; repeat $deep '[1 x '; printf 'i32'; repeat $deep ']'
  printf ' zeroinitializer\n%s\n' "$body_cpu"; } > deep_array_type.ll
{ echo "$CUDA_TRIPLE"; printf '@g = addrspace(1) global '; repeat $deep '{ '; printf 'i32'
  repeat $deep ' }'; printf ' zeroinitializer\n%s\n' "$body_cuda"; } > deep_struct_type_cuda.ll
# Named types nest without brackets: %t0 = { %t1 }, %t1 = { %t2 }, ...
{ echo "$CPU_TRIPLE"
  awk -v n=$deep 'BEGIN { for (i = 0; i < n; i++) printf "%%t%d = type { %%t%d }\n", i, i + 1
                          printf "%%t%d = type { i32 }\n@g = global %%t0 zeroinitializer\n", n }'
  echo "$body_cpu"; } > deep_named_types.ll
{ echo "$CPU_TRIPLE"; printf '@g = global [4 x i8] zeroinitializer\n@h = global '
  repeat $deep 'ptr getelementptr (i8, '; printf 'ptr @g'; repeat $deep ', i64 1)'
  printf '\n%s\n' "$body_cpu"; } > deep_constant_expression.ll
# The same depth in bitcode, where no text parser stands in the way: opt
# folds a chain of 10,000 instructions on a global's address into one
# constant expression 10,000 levels deep.
awk -v n=10000 -v triple="$CPU_TRIPLE" 'BEGIN {
  print triple; print "@g = global i64 0\ndefine i64 @k() {\n  %a0 = ptrtoint ptr @g to i64"
  for (i = 1; i < n; i++) printf "  %%a%d = %s i64 %%a%d, %d\n", i, (i % 2 ? "mul" : "xor"), i - 1, 3 + i % 5
  printf "  ret i64 %%a%d\n}\n", n - 1 }' > chain.ll
"$OPT" -passes=instsimplify chain.ll -o deep_constant_expression.bc
# Shared subexpressions: x*x, then that squared, ... 24 times. Small in
# bitcode, 2^24 nodes when printed (the canonical IR digest prints).
awk -v n=24 -v triple="$CPU_TRIPLE" 'BEGIN {
  print triple; print "@g = global i64 0\ndefine i64 @k() {\n  %a0 = ptrtoint ptr @g to i64"
  for (i = 1; i <= n; i++) printf "  %%a%d = mul i64 %%a%d, %%a%d\n", i, i - 1, i - 1
  printf "  ret i64 %%a%d\n}\n", n }' > dag.ll
"$OPT" -passes=instsimplify dag.ll -o constant_dag.bc
rm -f chain.ll dag.ll
# One bit flipped in that bitcode (found by tests/fuzz): a value id of ~2^28
# makes LLVM 19's reader grow its value list to gigabytes (16 GiB RSS for
# llvm-dis-19) before it fails. These crashers are checked with llvm-dis under
# a 1 GiB address-space limit (where that allocation fails at once), so a
# layout change in LLVM's bitcode that moves the byte shows up here.
cp deep_constant_expression.bc bitcode_memory_blowup.bc
flip_bit bitcode_memory_blowup.bc 11427 0
# Two more single-byte changes the fuzzer found: the reader recursing until
# the stack overflows, and a null dereference in its metadata loader.
cp deep_constant_expression.bc bitcode_reader_stack_overflow.bc
printf '\x1d' | dd of=bitcode_reader_stack_overflow.bc bs=1 seek=1705 count=1 conv=notrunc status=none
cp base_cpu.bc bitcode_metadata_null_deref.bc
flip_bit bitcode_metadata_null_deref.bc 1952 0
# An attribute list that asks for 32 GiB at once.
cp base_cpu.bc bitcode_attribute_blowup.bc
printf '\xdf' | dd of=bitcode_attribute_blowup.bc bs=1 seek=390 count=1 conv=notrunc status=none
# A constant array of a bad element type (SIGSEGV in ArrayType::get). Not
# checked: llvm-dis reads it lazily and survives; the daemon's reader does not.
cp deep_constant_expression.bc bitcode_constant_array_segv.bc
printf '\x63\x6d' | dd of=bitcode_constant_array_segv.bc bs=1 seek=22060 count=2 conv=notrunc status=none
for f in bitcode_memory_blowup.bc bitcode_reader_stack_overflow.bc bitcode_metadata_null_deref.bc \
         bitcode_attribute_blowup.bc; do
  set +e
  { (ulimit -v 1048576; "$LLVM_DIS" "$f" -o discarded.ll); rc=$?; } 2>/dev/null
  set -e
  if ((rc <= 128)); then
    echo "generate.sh: warning: $f no longer crashes llvm-dis (exit $rc); LLVM's bitcode layout moved?" >&2
  fi
done
# Metadata nesting by forward reference: !0 = !{!1}, !1 = !{!2}, ...
{ echo "$CPU_TRIPLE"; printf 'define void @k() {\n  ret void, !foo !0\n}\n'
  awk -v n=$deep 'BEGIN { for (i = 0; i < n; i++) printf "!%d = !{!%d}\n", i, i + 1
                          printf "!%d = !{}\n", n }'; } > deep_metadata_chain.ll

# ----------------------------------------------------------------- big ones
long_name=$(repeat 1048576 'a')
printf '%s\ndefine void @%s(ptr %%p) {\n  store i32 1, ptr %%p\n  ret void\n}\n' \
  "$CPU_TRIPLE" "$long_name" > long_identifier_cpu.ll
printf '%s\ndefine ptx_kernel void @%s(ptr %%p) {\n  store i32 1, ptr %%p\n  ret void\n}\n' \
  "$CUDA_TRIPLE" "$long_name" > long_identifier_cuda.ll
# 60,000 instructions in one block: 12,000 groups of address, load, multiply,
# address, store (an unrolled scale loop).
many_instructions() {
  awk -v triple="$1" -v cc="$2" 'BEGIN {
    print triple; printf "define %svoid @big(ptr %%x, ptr %%y, float %%a) {\nentry:\n", cc
    for (i = 0; i < 12000; i++) {
      printf "  %%p%d = getelementptr inbounds float, ptr %%x, i64 %d\n", i, i
      printf "  %%l%d = load float, ptr %%p%d, align 4\n", i, i
      printf "  %%m%d = fmul float %%l%d, %%a\n", i, i
      printf "  %%q%d = getelementptr inbounds float, ptr %%y, i64 %d\n", i, i
      printf "  store float %%m%d, ptr %%q%d, align 4\n", i, i
    }
    print "  ret void\n}" }'
}
many_instructions "$CPU_TRIPLE" "" > many_instructions_cpu.ll
many_instructions "$CUDA_TRIPLE" "ptx_kernel " > many_instructions_cuda.ll

# ------------------------------------------ inputs that crash LLVM 19 itself
# (the daemon survives them only once compiles run in worker processes)
kernel() { printf '%s\n%s\n' "$CUDA_TRIPLE" "$1" > "$2"; }
kernel 'define ptx_kernel void @k(ptr addrspace(1) %p, i256 %a) {
  store i256 %a, ptr addrspace(1) %p
  ret void
}' crash_i256_kernel_param.ll
kernel 'define ptx_kernel void @k(ptr addrspace(1) %p, fp128 %a) {
  store fp128 %a, ptr addrspace(1) %p
  ret void
}' crash_fp128_kernel_param.ll
kernel 'define i256 @f(ptr addrspace(1) %p) noinline {
  %a = load i256, ptr addrspace(1) %p
  ret i256 %a
}
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %b = call i256 @f(ptr addrspace(1) %p)
  store i256 %b, ptr addrspace(1) %p
  ret void
}' crash_i256_return.ll
kernel 'define ptx_kernel void @k(ptr addrspace(1) %p) {
  %a = load fp128, ptr addrspace(1) %p
  %q = fmul fp128 %a, %a
  store fp128 %q, ptr addrspace(1) %p
  ret void
}' fatal_fp128_arithmetic.ll
kernel 'define ptx_kernel void @k(ptr addrspace(1) %p, double %a) {
  %b = fptoui double %a to i256
  store i256 %b, ptr addrspace(1) %p
  ret void
}' fatal_fptoui_i256.ll
kernel 'declare i64 @llvm.read_register.i64(metadata)
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %v = call i64 @llvm.read_register.i64(metadata !0)
  store i64 %v, ptr addrspace(1) %p
  ret void
}
!0 = !{!"sp"}' fatal_read_register_cuda.ll
kernel 'declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)
define ptx_kernel void @k(ptr addrspace(1) %p, i32 %n) {
  %s = call ptr @llvm.stacksave.p0()
  %a = alloca i32, i32 %n
  store volatile i32 1, ptr %a
  call void @llvm.stackrestore.p0(ptr %s)
  store ptr %s, ptr addrspace(1) %p
  ret void
}' fatal_stacksave_cuda.ll
kernel 'define ptx_kernel void @k(ptr addrspace(1) %p, ptr addrspace(1) %t) {
entry:
  store ptr blockaddress(@k, %a), ptr addrspace(1) %p
  %d = load volatile ptr, ptr addrspace(1) %t
  indirectbr ptr %d, [label %a, label %b]
a:
  store i32 1, ptr addrspace(1) %p
  ret void
b:
  ret void
}' fatal_indirectbr_cuda.ll
printf '%s\n%s\n' "$CPU_TRIPLE" 'declare <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16>, <16 x i16>)
define void @k(ptr %p, <16 x i16> %a) {
  %v = call <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16> %a, <16 x i16> %a)
  store <8 x i32> %v, ptr %p
  ret void
}' > fatal_avx2_intrinsic_without_avx2.ll
printf '%s\n%s\n' "$CPU_TRIPLE" 'declare x86_amx @llvm.x86.tileloadd64.internal(i16, i16, ptr, i64)
declare void @llvm.x86.tilestored64.internal(i16, i16, ptr, i64, x86_amx)
define void @k(ptr %p) {
  %t = call x86_amx @llvm.x86.tileloadd64.internal(i16 8, i16 8, ptr %p, i64 64)
  call void @llvm.x86.tilestored64.internal(i16 8, i16 8, ptr %p, i64 64, x86_amx %t)
  ret void
}' > fatal_amx_intrinsic_without_amx.ll
printf '%s\n%s\n' "$CPU_TRIPLE" 'declare i64 @llvm.read_register.i64(metadata)
define void @k(ptr %p) {
  %v = call i64 @llvm.read_register.i64(metadata !0)
  store i64 %v, ptr %p
  ret void
}
!0 = !{!"foo"}' > fatal_read_register_cpu.ll

rm -f base_cpu.ll base_cuda.ll base_cpu.bc

# ------------------------------------------ PTX (sent as source kind PTX)
sed 's/mul\.lo\.s32/mul.lo.q32/' ptx.ptx > ptx_syntax_error.ptx
sed 's/%r6, %tid\.x/%r99, %tid.x/' ptx.ptx > ptx_undeclared_register.ptx
sed 's/^\.target sm_75/.target sm_90/' ptx.ptx > ptx_newer_target.ptx
grep -v '^\.version' ptx.ptx > ptx_no_version.ptx
grep -v '^\.target' ptx.ptx > ptx_no_target.ptx
{ cat ptx.ptx; printf '\0'; } > ptx_nul.ptx
{ cat ptx.ptx; printf '// \xff\xfe\n'; } > ptx_not_utf8.ptx
cp "$data/cuda/saxpy.ll" llvm_ir_as_ptx.ptx
cp ptx.ptx ptx_old_sm.ptx
cp ptx.ptx ptx_for_cpu.ptx

# ------------------------------------- NVVM IR (sent as source kind NVVM IR)
printf 'target triple = "nvptx64-nvidia-cuda"\ndefine void @k(float* %%p {\n  ret void\n}\n' > nvvm_parse_error.nvvm
cp "$data/cuda/saxpy.ll" llvm19_ir_as_nvvm.nvvm  # opaque pointers: not libNVVM's dialect
: > nvvm_empty.nvvm

# ------------------------------------ CUDA C++ (sent as source kind CUDA C++)
printf '__global__ void k(float* x) {\n  x[0] = 1.0f\n}\n' > cuda_syntax_error.cu
printf '#include "/etc/hostname"\n__global__ void k(float* x) { x[0] = 1; }\n' > cuda_absolute_include.cu
printf '#include "../secret.cuh"\n__global__ void k(float* x) { x[0] = 1; }\n' > cuda_parent_include.cu
printf '#define HEADER "util.cuh"\n#include HEADER\n__global__ void k(float* x) { x[0] = 1; }\n' \
  > cuda_computed_include.cu
printf 'const char* s = R"(a"/*)";\n#include "/etc/hostname"\n// */\n' > cuda_include_after_raw_string.cu
printf '#include "not_sent.cuh"\n__global__ void k(float* x) { x[0] = 1; }\n' > cuda_missing_header.cu
printf '__device__ float twice(float x) { return 2 * x; }\n' > cuda_no_kernel.cu
{ printf '__global__ void k(float* x) { x[0] = 1; }\n'; printf '\0'; } > cuda_nul.cu
: > cuda_empty.cu
cp cuda_no_kernel.cu cuda_for_cpu.cu

# ------------------------------------------------------------------- AMDGPU
AMDGPU_TRIPLE='target triple = "amdgcn-amd-amdhsa"'
sed 's/amdgcn-amd-amdhsa/nvptx64-nvidia-cuda/' "$data/amdgpu/saxpy.ll" > amdgpu_nvptx_triple.ll
sed 's/amdgcn-amd-amdhsa/amdgcn-amd-amdpal/' "$data/amdgpu/saxpy.ll" > amdgpu_pal_triple.ll
printf '%s\ndefine ptx_kernel void @k() { ret void }\n' "$AMDGPU_TRIPLE" > amdgpu_ptx_kernel.ll
printf '%s\ndefine void @f() { ret void }\n' "$AMDGPU_TRIPLE" > amdgpu_no_kernel.ll
# amdgpu_load_store AS GLOBAL: a kernel that copies @g (GLOBAL, in address space AS) out.
amdgpu_load_store() {
  printf '%s\n%s\ndefine amdgpu_kernel void @k(ptr addrspace(1) %%p) {\n' "$AMDGPU_TRIPLE" "$2"
  printf '  %%v = load i32, ptr addrspace(%s) @g\n  store i32 %%v, ptr addrspace(1) %%p\n  ret void\n}\n' "$1"
}
amdgpu_load_store 3 '@g = addrspace(3) global i32 7' > amdgpu_lds_initializer.ll
amdgpu_load_store 5 '@g = addrspace(5) global i32 0' > amdgpu_private_global.ll
amdgpu_load_store 3 '@g = addrspace(3) global [20000 x i32] undef' > amdgpu_lds_too_big.ll
printf '%s\ndefine amdgpu_kernel void @k() {\n  call void asm sideeffect ".incbin \\22/etc/passwd\\22", ""()\n  ret void\n}\n' \
  "$AMDGPU_TRIPLE" > amdgpu_incbin_asm.ll
printf '%s\nmodule asm ".include \\22/etc/passwd\\22"\ndefine amdgpu_kernel void @k() { ret void }\n' \
  "$AMDGPU_TRIPLE" > amdgpu_module_asm.ll
cp "$data/amdgpu/math.ll" amdgpu_ocml_unlinked.ll
cp "$data/amdgpu/saxpy.ll" amdgpu_unknown_processor.ll
cp "$data/amdgpu/saxpy.ll" amdgpu_xnack_on_gfx1100.ll
cp "$data/amdgpu/block_reduce.ll" amdgpu_good.ll
cat > amdgpu_mfma_on_gfx1100.ll <<EOF
$AMDGPU_TRIPLE
declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float, float, <32 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %p, float %a) {
  %v = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float %a, float %a, <32 x float> zeroinitializer, i32 0, i32 0, i32 0)
  store <32 x float> %v, ptr addrspace(1) %p
  ret void
}
EOF
cat > amdgpu_sdot4_on_gfx900.ll <<EOF
$AMDGPU_TRIPLE
declare i32 @llvm.amdgcn.sdot4(i32, i32, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %a) {
  %v = call i32 @llvm.amdgcn.sdot4(i32 %a, i32 %a, i32 %a, i1 false)
  store i32 %v, ptr addrspace(1) %p
  ret void
}
EOF

# Every file MANIFEST names must exist now.
missing=0
while read -r file _; do
  [[ -z $file || $file == \#* ]] && continue
  [[ -e $file ]] || { echo "generate.sh: MANIFEST names $file, which was not generated" >&2; missing=1; }
done < "$here/MANIFEST"
((missing == 0)) || exit 1

# llvm-dis writes into discarded.ll, a scratch file in this work directory,
# never into a device: a tool that fails removes its output file, and as root
# that would remove the device node itself.
rm -f discarded.ll
rm -rf "$out"
mv "$work" "$out"
trap - EXIT

#!/usr/bin/env bash
# Builds the libFuzzer targets (if needed) and runs each for SECONDS from a
# seed corpus: the repository's test kernels plus the malformed-input corpus
# (tests/data/bad). Needs clang-19 and libclang-rt-19-dev (deploy/install-deps.sh).
#
# Usage: tests/fuzz/run.sh SECONDS [TARGET]
#   TARGET: request_decode, ir_front_door, ptx_text or lean_frame (default: all, one after the other)
#   QDCACHE_FUZZ_KEEP_GOING=1: do not stop at the first crash (libFuzzer's
#   fork mode; every crash is saved).
# Per target, under build-fuzz/fuzz/TARGET/: corpus/ (grows across runs),
# crashes/ (reproducers: run the fuzz binary with the file as argument), log.
set -euo pipefail
if (($# < 1 || $# > 2)); then
  echo "usage: $0 SECONDS [request_decode|ir_front_door|ptx_text|lean_frame]" >&2
  exit 2
fi
seconds=$1
targets=${2:-request_decode ir_front_door ptx_text lean_frame}
cd "$(dirname "$0")/../.."
root=$(pwd)
build=$root/build-fuzz

[[ -f $build/CMakeCache.txt ]] || cmake --preset fuzz
cmake --build "$build" -j "${QDCACHE_BUILD_JOBS:-2}" \
  --target fuzz_request_decode fuzz_ir_front_door fuzz_ptx_text fuzz_lean_frame qdcache_fuzz_request_seeds

bad=$build/fuzz/bad-corpus
if [[ ! -d $bad || tests/data/bad/generate.sh -nt $bad ]]; then
  tests/data/bad/generate.sh "$bad"
fi
kernels=(tests/data/cpu/*.ll tests/data/cuda/*.ll)
ptx_seeds=(tests/data/ptx/*.ptx "$bad"/*.ptx)

# libLLVM has no frame pointers: without the slow unwinder, leak reports
# (and tests/lsan.supp's patterns) see only the allocating frame.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:fast_unwind_on_malloc=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp}

for target in $targets; do
  dir=$build/fuzz/$target
  mkdir -p "$dir/corpus" "$dir/crashes"
  rm -rf "$dir/seeds"
  mkdir -p "$dir/seeds"
  args=(-max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -max_len=65536
        -print_final_stats=1 -artifact_prefix="$dir/crashes/")
  case $target in
    ir_front_door)
      for f in "${kernels[@]}"; do cp "$f" "$dir/seeds/$(basename "$(dirname "$f")")_$(basename "$f")"; done
      # The bad corpus, except the LLVM crashers: they would end every run
      # at once (they are known; see README.md).
      for f in "$bad"/*; do
        case $(basename "$f") in crash_* | fatal_* | deep_metadata_chain.ll) continue ;; esac
        cp "$f" "$dir/seeds/"
      done
      args+=(-dict="$root/tests/fuzz/ir.dict")
      ;;
    ptx_text)
      for f in "${ptx_seeds[@]}"; do cp "$f" "$dir/seeds/"; done
      ;;
    request_decode)
      "$build/tests/fuzz/qdcache_fuzz_request_seeds" "$dir/seeds" "${kernels[@]}" \
        "$bad/empty.ll" "$bad/utf16.ll" "$bad/embedded_nul.ll" "$bad/bad_magic.bc"
      ;;
    lean_frame)
      # The request seeds' lookups, each behind a lean request header.
      rm -rf "$dir/requests"
      mkdir -p "$dir/requests"
      "$build/tests/fuzz/qdcache_fuzz_request_seeds" "$dir/requests" "${kernels[@]}"
      for f in "$dir/requests"/*; do
        n=$(stat -c %s "$f")
        header=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x\\x01\\x00\\x00\\x00' \
          $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))
        { printf "$header"; cat "$f"; } >"$dir/seeds/$(basename "$f")"
      done
      ;;
    *)
      echo "unknown fuzz target $target" >&2
      exit 2
      ;;
  esac
  if [[ ${QDCACHE_FUZZ_KEEP_GOING:-0} == 1 ]]; then
    args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  echo "== fuzz_$target for ${seconds}s (log: $dir/log)"
  set +e
  "$build/tests/fuzz/fuzz_$target" "${args[@]}" "$dir/corpus" "$dir/seeds" 2>&1 | tee "$dir/log"
  status=${PIPESTATUS[0]}
  set -e
  ((status == 0)) || { echo "fuzz_$target stopped with status $status; see $dir/crashes" >&2; exit "$status"; }
done

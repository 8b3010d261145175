; LLVM 19's NVPTX backend segfaults lowering an fp128 kernel argument
; (SelectionDAG::FoldConstantArithmetic from SelectionDAGISel::LowerArguments).
; The verifier accepts it. Used to check that a compiler crash costs one
; worker process, not the daemon.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %p, fp128 %x) {
  %r = fadd fp128 %x, %x
  store fp128 %r, ptr %p
  ret void
}

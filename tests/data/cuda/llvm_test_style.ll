; Shaped like LLVM's own llvm/test/CodeGen/NVPTX/*.ll inputs: no datalayout,
; explicit global address space pointers, the kernel marked only through
; !nvvm.annotations, a maxntid annotation, and a device function call.
target triple = "nvptx64-nvidia-cuda"

define internal float @scale(float %v, float %s) {
  %r = fmul float %v, %s
  ret float %r
}

define void @scale_kernel(ptr addrspace(1) %out, ptr addrspace(1) %in, float %s) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %idx = zext i32 %tid to i64
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %idx
  %v = load float, ptr addrspace(1) %pin, align 4
  %r = call float @scale(float %v, float %s)
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %idx
  store float %r, ptr addrspace(1) %pout, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @scale_kernel, !"kernel", i32 1}
!1 = !{ptr @scale_kernel, !"maxntidx", i32 128}

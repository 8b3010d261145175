; saxpy in LLVM 14 syntax (typed pointers, the NVPTX datalayout of that era
; without i128:128). Tests assemble it with llvm-as-14 at test time to get
; old-format bitcode that LLVM 19 must auto-upgrade.
target datalayout = "e-i64:64-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @saxpy(i32 %n, float %a, float* nocapture readonly %x, float* nocapture %y) {
entry:
  %ctaid = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %in.range = icmp slt i32 %i, %n
  br i1 %in.range, label %body, label %exit

body:
  %idx = sext i32 %i to i64
  %px = getelementptr inbounds float, float* %x, i64 %idx
  %py = getelementptr inbounds float, float* %y, i64 %idx
  %vx = load float, float* %px, align 4
  %vy = load float, float* %py, align 4
  %ax = fmul float %vx, %a
  %r = fadd float %ax, %vy
  store float %r, float* %py, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{void (i32, float, float*, float*)* @saxpy, !"kernel", i32 1}

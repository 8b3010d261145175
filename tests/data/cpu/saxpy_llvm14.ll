; saxpy in LLVM 14 syntax (typed pointers, the x86-64 datalayout of that era
; without i128:128). Tests assemble it with llvm-as-14 at test time.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define void @saxpy(i64 %n, float %a, float* nocapture readonly %x, float* nocapture %y) {
entry:
  %nonempty = icmp sgt i64 %n, 0
  br i1 %nonempty, label %loop, label %exit

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, float* %x, i64 %i
  %py = getelementptr inbounds float, float* %y, i64 %i
  %vx = load float, float* %px, align 4
  %vy = load float, float* %py, align 4
  %ax = fmul float %vx, %a
  %r = fadd float %ax, %vy
  store float %r, float* %py, align 4
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

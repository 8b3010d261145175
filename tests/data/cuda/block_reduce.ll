source_filename = "cuda/block_reduce.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ12block_reduceE7partial = internal unnamed_addr addrspace(3) global [256 x float] undef, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @block_reduce(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %mul = shl nsw i32 %1, 8
  %add = add nuw nsw i32 %mul, %0
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %cond.true, label %cond.end

cond.true:                                        ; preds = %entry
  %idxprom = zext nneg i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %idxprom
  %2 = load float, ptr %arrayidx, align 4
  br label %cond.end

cond.end:                                         ; preds = %cond.true, %entry
  %cond = phi contract float [ %2, %cond.true ], [ 0.000000e+00, %entry ]
  %idxprom2 = zext nneg i32 %0 to i64
  %arrayidx3 = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ12block_reduceE7partial to ptr), i64 0, i64 %idxprom2
  store float %cond, ptr %arrayidx3, align 4
  tail call void @llvm.nvvm.barrier0()
  br label %for.body

for.cond.cleanup:                                 ; preds = %if.end
  %cmp12 = icmp eq i32 %0, 0
  br i1 %cmp12, label %if.then13, label %if.end17

for.body:                                         ; preds = %if.end, %cond.end
  %stride.027 = phi i32 [ 128, %cond.end ], [ %shr, %if.end ]
  %cmp5 = icmp ult i32 %0, %stride.027
  br i1 %cmp5, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  %add6 = add nuw nsw i32 %stride.027, %0
  %idxprom7 = zext nneg i32 %add6 to i64
  %arrayidx8 = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ12block_reduceE7partial to ptr), i64 0, i64 %idxprom7
  %3 = load float, ptr %arrayidx8, align 4
  %4 = load float, ptr %arrayidx3, align 4
  %add11 = fadd contract float %3, %4
  store float %add11, ptr %arrayidx3, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body
  tail call void @llvm.nvvm.barrier0()
  %shr = lshr i32 %stride.027, 1
  %cmp4.not = icmp ult i32 %stride.027, 2
  br i1 %cmp4.not, label %for.cond.cleanup, label %for.body, !llvm.loop !5

if.then13:                                        ; preds = %for.cond.cleanup
  %5 = load float, ptr addrspacecast (ptr addrspace(3) @_ZZ12block_reduceE7partial to ptr), align 4
  %idxprom15 = zext nneg i32 %1 to i64
  %arrayidx16 = getelementptr inbounds float, ptr %out, i64 %idxprom15
  store float %5, ptr %arrayidx16, align 4
  br label %if.end17

if.end17:                                         ; preds = %if.then13, %for.cond.cleanup
  ret void
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0, !1}
!llvm.module.flags = !{!2, !3, !4}

!0 = !{ptr @block_reduce, !"kernel", i32 1}
!1 = !{ptr @block_reduce, !"maxntidx", i32 256}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = distinct !{!5, !6, !7}
!6 = !{!"llvm.loop.mustprogress"}
!7 = !{!"llvm.loop.unroll.disable"}

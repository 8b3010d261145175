source_filename = "cuda/stencil2d.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @stencil2d(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i32 noundef %w, i32 noundef %h) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul nuw nsw i32 %0, %1
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add nuw nsw i32 %mul, %2
  %3 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %mul5 = mul nuw nsw i32 %3, %4
  %5 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %add7 = add nuw nsw i32 %mul5, %5
  %cmp.not = icmp slt i32 %add, %w
  %cmp8.not = icmp slt i32 %add7, %h
  %or.cond70 = select i1 %cmp.not, i1 %cmp8.not, i1 false
  br i1 %or.cond70, label %if.end, label %cleanup44

if.end:                                           ; preds = %entry
  %mul9 = mul nsw i32 %add7, %w
  %add10 = add nuw nsw i32 %mul9, %add
  %cmp11 = icmp eq i32 %add, 0
  %cmp13 = icmp eq i32 %add7, 0
  %or.cond = select i1 %cmp11, i1 true, i1 %cmp13
  %sub = add nsw i32 %w, -1
  %cmp15 = icmp eq i32 %add, %sub
  %or.cond71 = select i1 %or.cond, i1 true, i1 %cmp15
  %sub17 = add nsw i32 %h, -1
  %cmp18 = icmp eq i32 %add7, %sub17
  %or.cond72 = select i1 %or.cond71, i1 true, i1 %cmp18
  %idxprom = zext nneg i32 %add10 to i64
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %idxprom
  %6 = load float, ptr %arrayidx, align 4
  br i1 %or.cond72, label %cleanup44.sink.split, label %if.end22

if.end22:                                         ; preds = %if.end
  %sub25 = sub nsw i32 %add10, %w
  %idxprom26 = sext i32 %sub25 to i64
  %arrayidx27 = getelementptr inbounds float, ptr %in, i64 %idxprom26
  %7 = load float, ptr %arrayidx27, align 4
  %add28 = fadd contract float %6, %7
  %add29 = add nuw nsw i32 %add10, %w
  %idxprom30 = zext nneg i32 %add29 to i64
  %arrayidx31 = getelementptr inbounds float, ptr %in, i64 %idxprom30
  %8 = load float, ptr %arrayidx31, align 4
  %add32 = fadd contract float %add28, %8
  %9 = sext i32 %add10 to i64
  %10 = getelementptr float, ptr %in, i64 %9
  %arrayidx35 = getelementptr i8, ptr %10, i64 4
  %11 = load float, ptr %arrayidx35, align 4
  %add36 = fadd contract float %add32, %11
  %arrayidx39 = getelementptr i8, ptr %10, i64 -4
  %12 = load float, ptr %arrayidx39, align 4
  %add40 = fadd contract float %add36, %12
  %mul41 = fmul contract float %add40, 0x3FC99999A0000000
  br label %cleanup44.sink.split

cleanup44.sink.split:                             ; preds = %if.end22, %if.end
  %.sink = phi float [ %mul41, %if.end22 ], [ %6, %if.end ]
  %arrayidx21 = getelementptr inbounds float, ptr %out, i64 %idxprom
  store float %.sink, ptr %arrayidx21, align 4
  br label %cleanup44

cleanup44:                                        ; preds = %cleanup44.sink.split, %entry
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2, !3}

!0 = !{ptr @stencil2d, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}

source_filename = "cpu/stencil2d.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @stencil2d(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i64 noundef %w, i64 noundef %h) local_unnamed_addr #0 {
entry:
  %cmp61 = icmp sgt i64 %h, 0
  br i1 %cmp61, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp259 = icmp sgt i64 %w, 0
  %sub = add nsw i64 %w, -1
  %sub10 = add nsw i64 %h, -1
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond.cleanup3, %for.cond1.preheader.lr.ph
  %y.062 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %inc29, %for.cond.cleanup3 ]
  br i1 %cmp259, label %for.body4.lr.ph, label %for.cond.cleanup3

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %mul = mul nuw nsw i64 %y.062, %w
  %cmp6 = icmp eq i64 %y.062, 0
  %cmp11 = icmp eq i64 %y.062, %sub10
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %if.end, %for.cond1.preheader
  %inc29 = add nuw nsw i64 %y.062, 1
  %exitcond63.not = icmp eq i64 %inc29, %h
  br i1 %exitcond63.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !3

for.body4:                                        ; preds = %if.end, %for.body4.lr.ph
  %x.060 = phi i64 [ 0, %for.body4.lr.ph ], [ %inc, %if.end ]
  %add = add nuw nsw i64 %x.060, %mul
  %cmp5 = icmp eq i64 %x.060, 0
  %or.cond = or i1 %cmp6, %cmp5
  %cmp8 = icmp eq i64 %x.060, %sub
  %or.cond57 = select i1 %or.cond, i1 true, i1 %cmp8
  %or.cond58 = select i1 %or.cond57, i1 true, i1 %cmp11
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %add
  %0 = load float, ptr %arrayidx, align 4
  br i1 %or.cond58, label %if.end, label %if.else

if.else:                                          ; preds = %for.body4
  %sub14 = sub nsw i64 %add, %w
  %arrayidx15 = getelementptr inbounds float, ptr %in, i64 %sub14
  %1 = load float, ptr %arrayidx15, align 4
  %add16 = fadd float %0, %1
  %arrayidx18 = getelementptr float, ptr %arrayidx, i64 %w
  %2 = load float, ptr %arrayidx18, align 4
  %add19 = fadd float %add16, %2
  %arrayidx21 = getelementptr i8, ptr %arrayidx, i64 4
  %3 = load float, ptr %arrayidx21, align 4
  %add22 = fadd float %add19, %3
  %arrayidx24 = getelementptr i8, ptr %arrayidx, i64 -4
  %4 = load float, ptr %arrayidx24, align 4
  %add25 = fadd float %add22, %4
  %mul26 = fmul float %add25, 0x3FC99999A0000000
  br label %if.end

if.end:                                           ; preds = %if.else, %for.body4
  %mul26.sink = phi float [ %mul26, %if.else ], [ %0, %for.body4 ]
  %arrayidx27 = getelementptr inbounds float, ptr %out, i64 %add
  store float %mul26.sink, ptr %arrayidx27, align 4
  %inc = add nuw nsw i64 %x.060, 1
  %exitcond.not = icmp eq i64 %inc, %w
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !6
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }

!llvm.module.flags = !{!0, !1, !2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"uwtable", i32 2}
!3 = distinct !{!3, !4, !5}
!4 = !{!"llvm.loop.mustprogress"}
!5 = !{!"llvm.loop.unroll.disable"}
!6 = distinct !{!6, !4, !5}

source_filename = "cpu/runtime_calls.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @h_add(i64 noundef %n, ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %y, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 0
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds half, ptr %x, i64 %i.09
  %0 = load half, ptr %arrayidx, align 2
  %arrayidx1 = getelementptr inbounds half, ptr %y, i64 %i.09
  %1 = load half, ptr %arrayidx1, align 2
  %unpromotion = fadd half %0, %1
  %arrayidx3 = getelementptr inbounds half, ptr %out, i64 %i.09
  store half %unpromotion, ptr %arrayidx3, align 2
  %inc = add nuw nsw i64 %i.09, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !3
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @h_mul(i64 noundef %n, ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %y, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 0
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds half, ptr %x, i64 %i.09
  %0 = load half, ptr %arrayidx, align 2
  %arrayidx1 = getelementptr inbounds half, ptr %y, i64 %i.09
  %1 = load half, ptr %arrayidx1, align 2
  %unpromotion = fmul half %0, %1
  %arrayidx3 = getelementptr inbounds half, ptr %out, i64 %i.09
  store half %unpromotion, ptr %arrayidx3, align 2
  %inc = add nuw nsw i64 %i.09, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !6
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @h_from_f32(i64 noundef %n, ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.06 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %i.06
  %0 = load float, ptr %arrayidx, align 4
  %conv = fptrunc float %0 to half
  %arrayidx1 = getelementptr inbounds half, ptr %out, i64 %i.06
  store half %conv, ptr %arrayidx1, align 2
  %inc = add nuw nsw i64 %i.06, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !7
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @h_from_f64(i64 noundef %n, ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.06 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %in, i64 %i.06
  %0 = load double, ptr %arrayidx, align 8
  %conv = fptrunc double %0 to half
  %arrayidx1 = getelementptr inbounds half, ptr %out, i64 %i.06
  store half %conv, ptr %arrayidx1, align 2
  %inc = add nuw nsw i64 %i.06, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !8
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @h_to_f64(i64 noundef %n, ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.06 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds half, ptr %in, i64 %i.06
  %0 = load half, ptr %arrayidx, align 2
  %conv = fpext half %0 to double
  %arrayidx1 = getelementptr inbounds double, ptr %out, i64 %i.06
  store double %conv, ptr %arrayidx1, align 8
  %inc = add nuw nsw i64 %i.06, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @h_sum(i64 noundef %n, ptr nocapture noundef readonly %x, ptr nocapture noundef writeonly %sum) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %s.0.lcssa = phi half [ 0xH0000, %entry ], [ %unpromotion, %for.body ]
  store half %s.0.lcssa, ptr %sum, align 2
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.07 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %s.06 = phi half [ %unpromotion, %for.body ], [ 0xH0000, %entry ]
  %arrayidx = getelementptr inbounds half, ptr %x, i64 %i.07
  %0 = load half, ptr %arrayidx, align 2
  %unpromotion = fadd half %s.06, %0
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !10
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @b_add(i64 noundef %n, ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %y, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 0
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds bfloat, ptr %x, i64 %i.09
  %0 = load bfloat, ptr %arrayidx, align 2
  %arrayidx1 = getelementptr inbounds bfloat, ptr %y, i64 %i.09
  %1 = load bfloat, ptr %arrayidx1, align 2
  %unpromotion = fadd bfloat %0, %1
  %arrayidx3 = getelementptr inbounds bfloat, ptr %out, i64 %i.09
  store bfloat %unpromotion, ptr %arrayidx3, align 2
  %inc = add nuw nsw i64 %i.09, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @b_mul(i64 noundef %n, ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %y, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 0
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds bfloat, ptr %x, i64 %i.09
  %0 = load bfloat, ptr %arrayidx, align 2
  %arrayidx1 = getelementptr inbounds bfloat, ptr %y, i64 %i.09
  %1 = load bfloat, ptr %arrayidx1, align 2
  %unpromotion = fmul bfloat %0, %1
  %arrayidx3 = getelementptr inbounds bfloat, ptr %out, i64 %i.09
  store bfloat %unpromotion, ptr %arrayidx3, align 2
  %inc = add nuw nsw i64 %i.09, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @b_from_f32(i64 noundef %n, ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.06 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %i.06
  %0 = load float, ptr %arrayidx, align 4
  %conv = fptrunc float %0 to bfloat
  %arrayidx1 = getelementptr inbounds bfloat, ptr %out, i64 %i.06
  store bfloat %conv, ptr %arrayidx1, align 2
  %inc = add nuw nsw i64 %i.06, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !13
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @b_from_f64(i64 noundef %n, ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.06 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %in, i64 %i.06
  %0 = load double, ptr %arrayidx, align 8
  %conv = fptrunc double %0 to bfloat
  %arrayidx1 = getelementptr inbounds bfloat, ptr %out, i64 %i.06
  store bfloat %conv, ptr %arrayidx1, align 2
  %inc = add nuw nsw i64 %i.06, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @b_to_f64(i64 noundef %n, ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.06 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds bfloat, ptr %in, i64 %i.06
  %0 = load bfloat, ptr %arrayidx, align 2
  %conv = fpext bfloat %0 to double
  %arrayidx1 = getelementptr inbounds double, ptr %out, i64 %i.06
  store double %conv, ptr %arrayidx1, align 8
  %inc = add nuw nsw i64 %i.06, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !15
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @b_sum(i64 noundef %n, ptr nocapture noundef readonly %x, ptr nocapture noundef writeonly %sum) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i64 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %s.0.lcssa = phi bfloat [ 0xR0000, %entry ], [ %unpromotion, %for.body ]
  store bfloat %s.0.lcssa, ptr %sum, align 2
  ret void

for.body:                                         ; preds = %for.body, %entry
  %i.07 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %s.06 = phi bfloat [ %unpromotion, %for.body ], [ 0xR0000, %entry ]
  %arrayidx = getelementptr inbounds bfloat, ptr %x, i64 %i.07
  %0 = load bfloat, ptr %arrayidx, align 2
  %unpromotion = fadd bfloat %s.06, %0
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !16
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write) uwtable
define void @i128_divmod(i64 noundef %a_hi, i64 noundef %a_lo, i64 noundef %b_hi, i64 noundef %b_lo, ptr nocapture noundef writeonly %out) local_unnamed_addr #1 {
entry:
  %conv = zext i64 %a_hi to i128
  %shl = shl nuw i128 %conv, 64
  %conv1 = zext i64 %a_lo to i128
  %or = or disjoint i128 %shl, %conv1
  %conv2 = zext i64 %b_hi to i128
  %shl3 = shl nuw i128 %conv2, 64
  %conv4 = zext i64 %b_lo to i128
  %or5 = or disjoint i128 %shl3, %conv4
  %div = sdiv i128 %or, %or5
  %0 = mul i128 %div, %or5
  %rem.decomposed = sub i128 %or, %0
  %shr = lshr i128 %div, 64
  %conv6 = trunc nuw i128 %shr to i64
  store i64 %conv6, ptr %out, align 8
  %conv7 = trunc i128 %div to i64
  %arrayidx8 = getelementptr inbounds i8, ptr %out, i64 8
  store i64 %conv7, ptr %arrayidx8, align 8
  %shr9 = lshr i128 %rem.decomposed, 64
  %conv10 = trunc nuw i128 %shr9 to i64
  %arrayidx11 = getelementptr inbounds i8, ptr %out, i64 16
  store i64 %conv10, ptr %arrayidx11, align 8
  %conv12 = trunc i128 %rem.decomposed to i64
  %arrayidx13 = getelementptr inbounds i8, ptr %out, i64 24
  store i64 %conv12, ptr %arrayidx13, align 8
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write) uwtable
define void @i128_from_f64(double noundef %d, ptr nocapture noundef writeonly %out) local_unnamed_addr #1 {
entry:
  %conv = fptosi double %d to i128
  %shr = lshr i128 %conv, 64
  %conv1 = trunc nuw i128 %shr to i64
  store i64 %conv1, ptr %out, align 8
  %conv2 = trunc i128 %conv to i64
  %arrayidx3 = getelementptr inbounds i8, ptr %out, i64 8
  store i64 %conv2, ptr %arrayidx3, align 8
  ret void
}

; Function Attrs: mustprogress nofree nounwind willreturn uwtable
define void @long_double_math(double noundef %x, i32 noundef %e, double noundef %y, double noundef %z, ptr nocapture noundef writeonly %out, ptr nocapture noundef writeonly %exponent) local_unnamed_addr #2 {
entry:
  %conv = fpext double %x to x86_fp80
  %call = tail call x86_fp80 @ldexpl(x86_fp80 noundef %conv, i32 noundef %e) #6
  %conv1 = fptrunc x86_fp80 %call to double
  store double %conv1, ptr %out, align 8
  %call2 = tail call x86_fp80 @frexpl(x86_fp80 noundef %conv, ptr noundef %exponent) #6
  %conv3 = fptrunc x86_fp80 %call2 to double
  %arrayidx4 = getelementptr inbounds i8, ptr %out, i64 8
  store double %conv3, ptr %arrayidx4, align 8
  %conv5 = fpext double %y to x86_fp80
  %conv6 = fpext double %z to x86_fp80
  %0 = tail call x86_fp80 @llvm.fma.f80(x86_fp80 %conv, x86_fp80 %conv5, x86_fp80 %conv6)
  %conv7 = fptrunc x86_fp80 %0 to double
  %arrayidx8 = getelementptr inbounds i8, ptr %out, i64 16
  store double %conv7, ptr %arrayidx8, align 8
  ret void
}

; Function Attrs: mustprogress nofree nounwind willreturn
declare x86_fp80 @ldexpl(x86_fp80 noundef, i32 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nofree nounwind willreturn memory(argmem: write)
declare x86_fp80 @frexpl(x86_fp80 noundef, ptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare x86_fp80 @llvm.fma.f80(x86_fp80, x86_fp80, x86_fp80) #5

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { mustprogress nofree nounwind willreturn uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { mustprogress nofree nounwind willreturn "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #4 = { mustprogress nofree nounwind willreturn memory(argmem: write) "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { nounwind }

!llvm.module.flags = !{!0, !1, !2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"uwtable", i32 2}
!3 = distinct !{!3, !4, !5}
!4 = !{!"llvm.loop.mustprogress"}
!5 = !{!"llvm.loop.unroll.disable"}
!6 = distinct !{!6, !4, !5}
!7 = distinct !{!7, !4, !5}
!8 = distinct !{!8, !4, !5}
!9 = distinct !{!9, !4, !5}
!10 = distinct !{!10, !4, !5}
!11 = distinct !{!11, !4, !5}
!12 = distinct !{!12, !4, !5}
!13 = distinct !{!13, !4, !5}
!14 = distinct !{!14, !4, !5}
!15 = distinct !{!15, !4, !5}
!16 = distinct !{!16, !4, !5}

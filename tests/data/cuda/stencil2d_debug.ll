source_filename = "cuda/stencil2d.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @stencil2d(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i32 noundef %w, i32 noundef %h) local_unnamed_addr #0 !dbg !8 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !11
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !15
  %mul = mul nuw nsw i32 %0, %1, !dbg !18
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !19
  %add = add nuw nsw i32 %mul, %2, !dbg !22
  %3 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y(), !dbg !23
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y(), !dbg !26
  %mul5 = mul nuw nsw i32 %3, %4, !dbg !29
  %5 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y(), !dbg !30
  %add7 = add nuw nsw i32 %mul5, %5, !dbg !33
  %cmp.not = icmp slt i32 %add, %w, !dbg !34
  %cmp8.not = icmp slt i32 %add7, %h
  %or.cond70 = select i1 %cmp.not, i1 %cmp8.not, i1 false, !dbg !35
  br i1 %or.cond70, label %if.end, label %cleanup44, !dbg !35

if.end:                                           ; preds = %entry
  %mul9 = mul nsw i32 %add7, %w, !dbg !36
  %add10 = add nuw nsw i32 %mul9, %add, !dbg !37
  %cmp11 = icmp eq i32 %add, 0, !dbg !38
  %cmp13 = icmp eq i32 %add7, 0
  %or.cond = select i1 %cmp11, i1 true, i1 %cmp13, !dbg !39
  %sub = add nsw i32 %w, -1
  %cmp15 = icmp eq i32 %add, %sub
  %or.cond71 = select i1 %or.cond, i1 true, i1 %cmp15, !dbg !39
  %sub17 = add nsw i32 %h, -1
  %cmp18 = icmp eq i32 %add7, %sub17
  %or.cond72 = select i1 %or.cond71, i1 true, i1 %cmp18, !dbg !39
  %idxprom = zext nneg i32 %add10 to i64, !dbg !40
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %idxprom, !dbg !40
  %6 = load float, ptr %arrayidx, align 4, !dbg !40
  br i1 %or.cond72, label %cleanup44.sink.split, label %if.end22, !dbg !39

if.end22:                                         ; preds = %if.end
  %sub25 = sub nsw i32 %add10, %w, !dbg !41
  %idxprom26 = sext i32 %sub25 to i64, !dbg !42
  %arrayidx27 = getelementptr inbounds float, ptr %in, i64 %idxprom26, !dbg !42
  %7 = load float, ptr %arrayidx27, align 4, !dbg !42
  %add28 = fadd contract float %6, %7, !dbg !43
  %add29 = add nuw nsw i32 %add10, %w, !dbg !44
  %idxprom30 = zext nneg i32 %add29 to i64, !dbg !45
  %arrayidx31 = getelementptr inbounds float, ptr %in, i64 %idxprom30, !dbg !45
  %8 = load float, ptr %arrayidx31, align 4, !dbg !45
  %add32 = fadd contract float %add28, %8, !dbg !46
  %9 = sext i32 %add10 to i64, !dbg !47
  %10 = getelementptr float, ptr %in, i64 %9, !dbg !47
  %arrayidx35 = getelementptr i8, ptr %10, i64 4, !dbg !47
  %11 = load float, ptr %arrayidx35, align 4, !dbg !47
  %add36 = fadd contract float %add32, %11, !dbg !48
  %arrayidx39 = getelementptr i8, ptr %10, i64 -4, !dbg !49
  %12 = load float, ptr %arrayidx39, align 4, !dbg !49
  %add40 = fadd contract float %add36, %12, !dbg !50
  %mul41 = fmul contract float %add40, 0x3FC99999A0000000, !dbg !51
  br label %cleanup44.sink.split, !dbg !52

cleanup44.sink.split:                             ; preds = %if.end22, %if.end
  %.sink = phi float [ %mul41, %if.end22 ], [ %6, %if.end ]
  %arrayidx21 = getelementptr inbounds float, ptr %out, i64 %idxprom, !dbg !40
  store float %.sink, ptr %arrayidx21, align 4, !dbg !40
  br label %cleanup44, !dbg !52

cleanup44:                                        ; preds = %cleanup44.sink.split, %entry
  ret void, !dbg !52
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

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6, !7}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "cuda/stencil2d.cu", directory: ".")
!2 = !{ptr @stencil2d, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = distinct !DISubprogram(name: "stencil2d", scope: !1, file: !1, line: 5, type: !9, scopeLine: 5, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 10, column: 42, scope: !12, inlinedAt: !14)
!12 = distinct !DISubprogram(name: "block_x", scope: !13, file: !13, line: 10, type: !9, scopeLine: 10, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!13 = !DIFile(filename: "cuda/nvptx_builtins.h", directory: ".")
!14 = distinct !DILocation(line: 6, column: 11, scope: !8)
!15 = !DILocation(line: 12, column: 46, scope: !16, inlinedAt: !17)
!16 = distinct !DISubprogram(name: "block_dim_x", scope: !13, file: !13, line: 12, type: !9, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!17 = distinct !DILocation(line: 6, column: 23, scope: !8)
!18 = !DILocation(line: 6, column: 21, scope: !8)
!19 = !DILocation(line: 8, column: 43, scope: !20, inlinedAt: !21)
!20 = distinct !DISubprogram(name: "thread_x", scope: !13, file: !13, line: 8, type: !9, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!21 = distinct !DILocation(line: 6, column: 39, scope: !8)
!22 = !DILocation(line: 6, column: 37, scope: !8)
!23 = !DILocation(line: 11, column: 42, scope: !24, inlinedAt: !25)
!24 = distinct !DISubprogram(name: "block_y", scope: !13, file: !13, line: 11, type: !9, scopeLine: 11, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!25 = distinct !DILocation(line: 7, column: 11, scope: !8)
!26 = !DILocation(line: 13, column: 46, scope: !27, inlinedAt: !28)
!27 = distinct !DISubprogram(name: "block_dim_y", scope: !13, file: !13, line: 13, type: !9, scopeLine: 13, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!28 = distinct !DILocation(line: 7, column: 23, scope: !8)
!29 = !DILocation(line: 7, column: 21, scope: !8)
!30 = !DILocation(line: 9, column: 43, scope: !31, inlinedAt: !32)
!31 = distinct !DISubprogram(name: "thread_y", scope: !13, file: !13, line: 9, type: !9, scopeLine: 9, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!32 = distinct !DILocation(line: 7, column: 39, scope: !8)
!33 = !DILocation(line: 7, column: 37, scope: !8)
!34 = !DILocation(line: 8, column: 9, scope: !8)
!35 = !DILocation(line: 8, column: 14, scope: !8)
!36 = !DILocation(line: 9, column: 13, scope: !8)
!37 = !DILocation(line: 9, column: 17, scope: !8)
!38 = !DILocation(line: 10, column: 9, scope: !8)
!39 = !DILocation(line: 10, column: 14, scope: !8)
!40 = !DILocation(line: 0, scope: !8)
!41 = !DILocation(line: 14, column: 33, scope: !8)
!42 = !DILocation(line: 14, column: 28, scope: !8)
!43 = !DILocation(line: 14, column: 26, scope: !8)
!44 = !DILocation(line: 14, column: 45, scope: !8)
!45 = !DILocation(line: 14, column: 40, scope: !8)
!46 = !DILocation(line: 14, column: 38, scope: !8)
!47 = !DILocation(line: 14, column: 52, scope: !8)
!48 = !DILocation(line: 14, column: 50, scope: !8)
!49 = !DILocation(line: 14, column: 64, scope: !8)
!50 = !DILocation(line: 14, column: 62, scope: !8)
!51 = !DILocation(line: 14, column: 17, scope: !8)
!52 = !DILocation(line: 15, column: 1, scope: !8)

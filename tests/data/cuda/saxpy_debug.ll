source_filename = "cuda/saxpy.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @saxpy(i32 noundef %n, float noundef %a, ptr nocapture noundef readonly %x, ptr nocapture noundef %y) local_unnamed_addr #0 !dbg !8 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !11
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !15
  %mul = mul nuw nsw i32 %0, %1, !dbg !18
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !19
  %add = add nuw nsw i32 %mul, %2, !dbg !22
  %cmp = icmp slt i32 %add, %n, !dbg !23
  br i1 %cmp, label %if.then, label %if.end, !dbg !24

if.then:                                          ; preds = %entry
  %idxprom = zext nneg i32 %add to i64, !dbg !25
  %arrayidx = getelementptr inbounds float, ptr %x, i64 %idxprom, !dbg !25
  %3 = load float, ptr %arrayidx, align 4, !dbg !25
  %mul3 = fmul contract float %3, %a, !dbg !26
  %arrayidx5 = getelementptr inbounds float, ptr %y, i64 %idxprom, !dbg !27
  %4 = load float, ptr %arrayidx5, align 4, !dbg !27
  %add6 = fadd contract float %mul3, %4, !dbg !28
  store float %add6, ptr %arrayidx5, align 4, !dbg !29
  br label %if.end, !dbg !30

if.end:                                           ; preds = %if.then, %entry
  ret void, !dbg !31
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6, !7}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "cuda/saxpy.cu", directory: ".")
!2 = !{ptr @saxpy, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = distinct !DISubprogram(name: "saxpy", scope: !1, file: !1, line: 4, type: !9, scopeLine: 4, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!9 = !DISubroutineType(types: !10)
!10 = !{}
!11 = !DILocation(line: 10, column: 42, scope: !12, inlinedAt: !14)
!12 = distinct !DISubprogram(name: "block_x", scope: !13, file: !13, line: 10, type: !9, scopeLine: 10, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!13 = !DIFile(filename: "cuda/nvptx_builtins.h", directory: ".")
!14 = distinct !DILocation(line: 5, column: 11, scope: !8)
!15 = !DILocation(line: 12, column: 46, scope: !16, inlinedAt: !17)
!16 = distinct !DISubprogram(name: "block_dim_x", scope: !13, file: !13, line: 12, type: !9, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!17 = distinct !DILocation(line: 5, column: 23, scope: !8)
!18 = !DILocation(line: 5, column: 21, scope: !8)
!19 = !DILocation(line: 8, column: 43, scope: !20, inlinedAt: !21)
!20 = distinct !DISubprogram(name: "thread_x", scope: !13, file: !13, line: 8, type: !9, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!21 = distinct !DILocation(line: 5, column: 39, scope: !8)
!22 = !DILocation(line: 5, column: 37, scope: !8)
!23 = !DILocation(line: 6, column: 9, scope: !8)
!24 = !DILocation(line: 6, column: 7, scope: !8)
!25 = !DILocation(line: 6, column: 25, scope: !8)
!26 = !DILocation(line: 6, column: 23, scope: !8)
!27 = !DILocation(line: 6, column: 32, scope: !8)
!28 = !DILocation(line: 6, column: 30, scope: !8)
!29 = !DILocation(line: 6, column: 19, scope: !8)
!30 = !DILocation(line: 6, column: 14, scope: !8)
!31 = !DILocation(line: 7, column: 1, scope: !8)

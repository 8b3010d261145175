source_filename = "cpu/saxpy.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @saxpy(i64 noundef %n, float noundef %a, ptr nocapture noundef readonly %x, ptr nocapture noundef %y) local_unnamed_addr #0 !dbg !8 {
entry:
    #dbg_value(i64 %n, !21, !DIExpression(), !27)
    #dbg_value(float %a, !22, !DIExpression(), !27)
    #dbg_value(ptr %x, !23, !DIExpression(), !27)
    #dbg_value(ptr %y, !24, !DIExpression(), !27)
    #dbg_value(i64 0, !25, !DIExpression(), !28)
  %cmp8 = icmp sgt i64 %n, 0, !dbg !29
  br i1 %cmp8, label %for.body, label %for.cond.cleanup, !dbg !31

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void, !dbg !32

for.body:                                         ; preds = %for.body, %entry
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
    #dbg_value(i64 %i.09, !25, !DIExpression(), !28)
  %arrayidx = getelementptr inbounds float, ptr %x, i64 %i.09, !dbg !33
  %0 = load float, ptr %arrayidx, align 4, !dbg !33
  %arrayidx1 = getelementptr inbounds float, ptr %y, i64 %i.09, !dbg !34
  %1 = load float, ptr %arrayidx1, align 4, !dbg !34
  %2 = tail call float @llvm.fmuladd.f32(float %a, float %0, float %1), !dbg !35
  store float %2, ptr %arrayidx1, align 4, !dbg !36
  %inc = add nuw nsw i64 %i.09, 1, !dbg !37
    #dbg_value(i64 %inc, !25, !DIExpression(), !28)
  %exitcond.not = icmp eq i64 %inc, %n, !dbg !29
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !dbg !31, !llvm.loop !38
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #1

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "cpu/saxpy.c", directory: ".", checksumkind: CSK_MD5, checksum: "2abf825861fdf96fd5a87d57953fb573")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 2}
!7 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!8 = distinct !DISubprogram(name: "saxpy", scope: !1, file: !1, line: 4, type: !9, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !20)
!9 = !DISubroutineType(types: !10)
!10 = !{null, !11, !16, !17, !19}
!11 = !DIDerivedType(tag: DW_TAG_typedef, name: "int64_t", file: !12, line: 27, baseType: !13)
!12 = !DIFile(filename: "/usr/include/x86_64-linux-gnu/bits/stdint-intn.h", directory: "", checksumkind: CSK_MD5, checksum: "55bcbdc3159515ebd91d351a70d505f4")
!13 = !DIDerivedType(tag: DW_TAG_typedef, name: "__int64_t", file: !14, line: 44, baseType: !15)
!14 = !DIFile(filename: "/usr/include/x86_64-linux-gnu/bits/types.h", directory: "", checksumkind: CSK_MD5, checksum: "d108b5f93a74c50510d7d9bc0ab36df9")
!15 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!16 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!17 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !18, size: 64)
!18 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !16)
!19 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !16, size: 64)
!20 = !{!21, !22, !23, !24, !25}
!21 = !DILocalVariable(name: "n", arg: 1, scope: !8, file: !1, line: 4, type: !11)
!22 = !DILocalVariable(name: "a", arg: 2, scope: !8, file: !1, line: 4, type: !16)
!23 = !DILocalVariable(name: "x", arg: 3, scope: !8, file: !1, line: 4, type: !17)
!24 = !DILocalVariable(name: "y", arg: 4, scope: !8, file: !1, line: 4, type: !19)
!25 = !DILocalVariable(name: "i", scope: !26, file: !1, line: 5, type: !11)
!26 = distinct !DILexicalBlock(scope: !8, file: !1, line: 5, column: 3)
!27 = !DILocation(line: 0, scope: !8)
!28 = !DILocation(line: 0, scope: !26)
!29 = !DILocation(line: 5, column: 25, scope: !30)
!30 = distinct !DILexicalBlock(scope: !26, file: !1, line: 5, column: 3)
!31 = !DILocation(line: 5, column: 3, scope: !26)
!32 = !DILocation(line: 6, column: 1, scope: !8)
!33 = !DILocation(line: 5, column: 46, scope: !30)
!34 = !DILocation(line: 5, column: 53, scope: !30)
!35 = !DILocation(line: 5, column: 51, scope: !30)
!36 = !DILocation(line: 5, column: 40, scope: !30)
!37 = !DILocation(line: 5, column: 30, scope: !30)
!38 = distinct !{!38, !31, !39, !40, !41}
!39 = !DILocation(line: 5, column: 56, scope: !26)
!40 = !{!"llvm.loop.mustprogress"}
!41 = !{!"llvm.loop.unroll.disable"}

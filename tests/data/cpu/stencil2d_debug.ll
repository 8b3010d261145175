source_filename = "cpu/stencil2d.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define void @stencil2d(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i64 noundef %w, i64 noundef %h) local_unnamed_addr #0 !dbg !8 {
entry:
    #dbg_value(ptr %in, !21, !DIExpression(), !34)
    #dbg_value(ptr %out, !22, !DIExpression(), !34)
    #dbg_value(i64 %w, !23, !DIExpression(), !34)
    #dbg_value(i64 %h, !24, !DIExpression(), !34)
    #dbg_value(i64 0, !25, !DIExpression(), !35)
  %cmp61 = icmp sgt i64 %h, 0, !dbg !36
  br i1 %cmp61, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup, !dbg !37

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp259 = icmp sgt i64 %w, 0
  %sub = add nsw i64 %w, -1
  %sub10 = add nsw i64 %h, -1
  br label %for.cond1.preheader, !dbg !37

for.cond1.preheader:                              ; preds = %for.cond.cleanup3, %for.cond1.preheader.lr.ph
  %y.062 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %inc29, %for.cond.cleanup3 ]
    #dbg_value(i64 %y.062, !25, !DIExpression(), !35)
    #dbg_value(i64 0, !27, !DIExpression(), !38)
  br i1 %cmp259, label %for.body4.lr.ph, label %for.cond.cleanup3, !dbg !39

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %mul = mul nuw nsw i64 %y.062, %w
  %cmp6 = icmp eq i64 %y.062, 0
  %cmp11 = icmp eq i64 %y.062, %sub10
  br label %for.body4, !dbg !39

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void, !dbg !40

for.cond.cleanup3:                                ; preds = %if.end, %for.cond1.preheader
  %inc29 = add nuw nsw i64 %y.062, 1, !dbg !41
    #dbg_value(i64 %inc29, !25, !DIExpression(), !35)
  %exitcond63.not = icmp eq i64 %inc29, %h, !dbg !36
  br i1 %exitcond63.not, label %for.cond.cleanup, label %for.cond1.preheader, !dbg !37, !llvm.loop !42

for.body4:                                        ; preds = %if.end, %for.body4.lr.ph
  %x.060 = phi i64 [ 0, %for.body4.lr.ph ], [ %inc, %if.end ]
    #dbg_value(i64 %x.060, !27, !DIExpression(), !38)
  %add = add nuw nsw i64 %x.060, %mul, !dbg !46
    #dbg_value(i64 %add, !31, !DIExpression(), !47)
  %cmp5 = icmp eq i64 %x.060, 0, !dbg !48
  %or.cond = or i1 %cmp6, %cmp5, !dbg !50
  %cmp8 = icmp eq i64 %x.060, %sub
  %or.cond57 = select i1 %or.cond, i1 true, i1 %cmp8, !dbg !50
  %or.cond58 = select i1 %or.cond57, i1 true, i1 %cmp11, !dbg !50
  %arrayidx = getelementptr inbounds float, ptr %in, i64 %add, !dbg !51
  %0 = load float, ptr %arrayidx, align 4, !dbg !51
  br i1 %or.cond58, label %if.end, label %if.else, !dbg !50

if.else:                                          ; preds = %for.body4
  %sub14 = sub nsw i64 %add, %w, !dbg !52
  %arrayidx15 = getelementptr inbounds float, ptr %in, i64 %sub14, !dbg !54
  %1 = load float, ptr %arrayidx15, align 4, !dbg !54
  %add16 = fadd float %0, %1, !dbg !55
  %arrayidx18 = getelementptr float, ptr %arrayidx, i64 %w, !dbg !56
  %2 = load float, ptr %arrayidx18, align 4, !dbg !56
  %add19 = fadd float %add16, %2, !dbg !57
  %arrayidx21 = getelementptr i8, ptr %arrayidx, i64 4, !dbg !58
  %3 = load float, ptr %arrayidx21, align 4, !dbg !58
  %add22 = fadd float %add19, %3, !dbg !59
  %arrayidx24 = getelementptr i8, ptr %arrayidx, i64 -4, !dbg !60
  %4 = load float, ptr %arrayidx24, align 4, !dbg !60
  %add25 = fadd float %add22, %4, !dbg !61
  %mul26 = fmul float %add25, 0x3FC99999A0000000, !dbg !62
  br label %if.end

if.end:                                           ; preds = %if.else, %for.body4
  %mul26.sink = phi float [ %mul26, %if.else ], [ %0, %for.body4 ]
  %arrayidx27 = getelementptr inbounds float, ptr %out, i64 %add, !dbg !51
  store float %mul26.sink, ptr %arrayidx27, align 4, !dbg !51
  %inc = add nuw nsw i64 %x.060, 1, !dbg !63
    #dbg_value(i64 %inc, !27, !DIExpression(), !38)
  %exitcond.not = icmp eq i64 %inc, %w, !dbg !64
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !dbg !39, !llvm.loop !65
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "cpu/stencil2d.c", directory: ".", checksumkind: CSK_MD5, checksum: "cf58bd5b7b7e07c6319b4d320e722246")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 2}
!7 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!8 = distinct !DISubprogram(name: "stencil2d", scope: !1, file: !1, line: 5, type: !9, scopeLine: 5, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !20)
!9 = !DISubroutineType(types: !10)
!10 = !{null, !11, !14, !15, !15}
!11 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !12, size: 64)
!12 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !13)
!13 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!14 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !13, size: 64)
!15 = !DIDerivedType(tag: DW_TAG_typedef, name: "int64_t", file: !16, line: 27, baseType: !17)
!16 = !DIFile(filename: "/usr/include/x86_64-linux-gnu/bits/stdint-intn.h", directory: "", checksumkind: CSK_MD5, checksum: "55bcbdc3159515ebd91d351a70d505f4")
!17 = !DIDerivedType(tag: DW_TAG_typedef, name: "__int64_t", file: !18, line: 44, baseType: !19)
!18 = !DIFile(filename: "/usr/include/x86_64-linux-gnu/bits/types.h", directory: "", checksumkind: CSK_MD5, checksum: "d108b5f93a74c50510d7d9bc0ab36df9")
!19 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!20 = !{!21, !22, !23, !24, !25, !27, !31}
!21 = !DILocalVariable(name: "in", arg: 1, scope: !8, file: !1, line: 5, type: !11)
!22 = !DILocalVariable(name: "out", arg: 2, scope: !8, file: !1, line: 5, type: !14)
!23 = !DILocalVariable(name: "w", arg: 3, scope: !8, file: !1, line: 5, type: !15)
!24 = !DILocalVariable(name: "h", arg: 4, scope: !8, file: !1, line: 5, type: !15)
!25 = !DILocalVariable(name: "y", scope: !26, file: !1, line: 6, type: !15)
!26 = distinct !DILexicalBlock(scope: !8, file: !1, line: 6, column: 3)
!27 = !DILocalVariable(name: "x", scope: !28, file: !1, line: 7, type: !15)
!28 = distinct !DILexicalBlock(scope: !29, file: !1, line: 7, column: 5)
!29 = distinct !DILexicalBlock(scope: !30, file: !1, line: 6, column: 35)
!30 = distinct !DILexicalBlock(scope: !26, file: !1, line: 6, column: 3)
!31 = !DILocalVariable(name: "i", scope: !32, file: !1, line: 8, type: !15)
!32 = distinct !DILexicalBlock(scope: !33, file: !1, line: 7, column: 37)
!33 = distinct !DILexicalBlock(scope: !28, file: !1, line: 7, column: 5)
!34 = !DILocation(line: 0, scope: !8)
!35 = !DILocation(line: 0, scope: !26)
!36 = !DILocation(line: 6, column: 25, scope: !30)
!37 = !DILocation(line: 6, column: 3, scope: !26)
!38 = !DILocation(line: 0, scope: !28)
!39 = !DILocation(line: 7, column: 5, scope: !28)
!40 = !DILocation(line: 16, column: 1, scope: !8)
!41 = !DILocation(line: 6, column: 30, scope: !30)
!42 = distinct !{!42, !37, !43, !44, !45}
!43 = !DILocation(line: 15, column: 3, scope: !26)
!44 = !{!"llvm.loop.mustprogress"}
!45 = !{!"llvm.loop.unroll.disable"}
!46 = !DILocation(line: 8, column: 25, scope: !32)
!47 = !DILocation(line: 0, scope: !32)
!48 = !DILocation(line: 9, column: 13, scope: !49)
!49 = distinct !DILexicalBlock(scope: !32, file: !1, line: 9, column: 11)
!50 = !DILocation(line: 9, column: 18, scope: !49)
!51 = !DILocation(line: 0, scope: !49)
!52 = !DILocation(line: 12, column: 39, scope: !53)
!53 = distinct !DILexicalBlock(scope: !49, file: !1, line: 11, column: 14)
!54 = !DILocation(line: 12, column: 34, scope: !53)
!55 = !DILocation(line: 12, column: 32, scope: !53)
!56 = !DILocation(line: 12, column: 46, scope: !53)
!57 = !DILocation(line: 12, column: 44, scope: !53)
!58 = !DILocation(line: 12, column: 58, scope: !53)
!59 = !DILocation(line: 12, column: 56, scope: !53)
!60 = !DILocation(line: 12, column: 70, scope: !53)
!61 = !DILocation(line: 12, column: 68, scope: !53)
!62 = !DILocation(line: 12, column: 23, scope: !53)
!63 = !DILocation(line: 7, column: 32, scope: !33)
!64 = !DILocation(line: 7, column: 27, scope: !33)
!65 = distinct !{!65, !39, !66, !44, !45}
!66 = !DILocation(line: 14, column: 5, scope: !28)

source_filename = "amdgpu/block_reduce.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@_ZZ12block_reduceE7partial = internal unnamed_addr addrspace(3) global [256 x float] undef, align 16
@__hip_cuid_a7e8cf1bc37edba2 = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @__hip_cuid_a7e8cf1bc37edba2 to ptr)], section "llvm.metadata"

; Function Attrs: convergent mustprogress nofree norecurse nounwind
define protected amdgpu_kernel void @block_reduce(ptr addrspace(1) nocapture noundef readonly %in.coerce, ptr addrspace(1) nocapture noundef writeonly %out.coerce, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %1 = tail call noundef i32 @llvm.amdgcn.workgroup.id.x()
  %mul = shl i32 %1, 8
  %add = add i32 %mul, %0
  %cmp = icmp ult i32 %add, %n
  br i1 %cmp, label %cond.true, label %cond.end

cond.true:                                        ; preds = %entry
  %idxprom = zext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr addrspace(1) %in.coerce, i64 %idxprom
  %2 = load float, ptr addrspace(1) %arrayidx, align 4
  br label %cond.end

cond.end:                                         ; preds = %cond.true, %entry
  %cond = phi contract float [ %2, %cond.true ], [ 0.000000e+00, %entry ]
  %arrayidx5 = getelementptr inbounds [256 x float], ptr addrspace(3) @_ZZ12block_reduceE7partial, i32 0, i32 %0
  store float %cond, ptr addrspace(3) %arrayidx5, align 4
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br label %for.body

for.cond.cleanup:                                 ; preds = %if.end
  %cmp14 = icmp eq i32 %0, 0
  br i1 %cmp14, label %if.then15, label %if.end19

for.body:                                         ; preds = %if.end, %cond.end
  %stride.029 = phi i32 [ 128, %cond.end ], [ %shr, %if.end ]
  %cmp7 = icmp ult i32 %0, %stride.029
  br i1 %cmp7, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  %add8 = add nuw nsw i32 %stride.029, %0
  %arrayidx10 = getelementptr inbounds [256 x float], ptr addrspace(3) @_ZZ12block_reduceE7partial, i32 0, i32 %add8
  %3 = load float, ptr addrspace(3) %arrayidx10, align 4
  %4 = load float, ptr addrspace(3) %arrayidx5, align 4
  %add13 = fadd contract float %3, %4
  store float %add13, ptr addrspace(3) %arrayidx5, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %shr = lshr i32 %stride.029, 1
  %cmp6.not = icmp ult i32 %stride.029, 2
  br i1 %cmp6.not, label %for.cond.cleanup, label %for.body, !llvm.loop !4

if.then15:                                        ; preds = %for.cond.cleanup
  %5 = load float, ptr addrspace(3) @_ZZ12block_reduceE7partial, align 16
  %idxprom17 = zext i32 %1 to i64
  %arrayidx18 = getelementptr inbounds float, ptr addrspace(1) %out.coerce, i64 %idxprom17
  store float %5, ptr addrspace(1) %arrayidx18, align 4
  br label %if.end19

if.end19:                                         ; preds = %if.then15, %for.cond.cleanup
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define protected amdgpu_kernel void @scale(ptr addrspace(1) nocapture noundef %data.coerce, float noundef %factor, i32 noundef %n) local_unnamed_addr #1 {
entry:
  %0 = tail call noundef i32 @llvm.amdgcn.workgroup.id.x()
  %1 = tail call align 8 dereferenceable(256) ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %2 = getelementptr inbounds i8, ptr addrspace(4) %1, i64 12
  %3 = load i16, ptr addrspace(4) %2, align 4, !range !7, !invariant.load !8, !noundef !8
  %conv.i = zext nneg i16 %3 to i32
  %mul = mul i32 %0, %conv.i
  %4 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %add = add i32 %mul, %4
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr addrspace(1) %data.coerce, i64 %idxprom
  %5 = load float, ptr addrspace(1) %arrayidx, align 4
  %mul4 = fmul contract float %5, %factor
  store float %mul4, ptr addrspace(1) %arrayidx, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #2

; Function Attrs: convergent nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef align 4 ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr() #2

attributes #0 = { convergent mustprogress nofree norecurse nounwind "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "amdgpu-flat-work-group-size"="1,1024" "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nofree nounwind willreturn }

!llvm.module.flags = !{!0, !1, !2, !3}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 2}
!4 = distinct !{!4, !5, !6}
!5 = !{!"llvm.loop.mustprogress"}
!6 = !{!"llvm.loop.unroll.disable"}
!7 = !{i16 1, i16 1025}
!8 = !{}

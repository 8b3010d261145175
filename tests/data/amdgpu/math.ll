source_filename = "amdgpu/math.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__hip_cuid_3d578fa576c8d85 = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @__hip_cuid_3d578fa576c8d85 to ptr)], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @wave(ptr addrspace(1) nocapture noundef readonly %x.coerce, ptr addrspace(1) nocapture noundef writeonly %y.coerce, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef i32 @llvm.amdgcn.workgroup.id.x()
  %1 = tail call align 8 dereferenceable(256) ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %2 = getelementptr inbounds i8, ptr addrspace(4) %1, i64 12
  %3 = load i16, ptr addrspace(4) %2, align 4, !range !4, !invariant.load !5, !noundef !5
  %conv.i = zext nneg i16 %3 to i32
  %mul = mul i32 %0, %conv.i
  %4 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x()
  %add = add i32 %mul, %4
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr addrspace(1) %x.coerce, i64 %idxprom
  %5 = load float, ptr addrspace(1) %arrayidx, align 4
  %fneg = fneg contract float %5
  %call5 = tail call contract float @__ocml_exp_f32(float noundef %fneg) #3
  %6 = load float, ptr addrspace(1) %arrayidx, align 4
  %call8 = tail call contract float @__ocml_sin_f32(float noundef %6) #3
  %mul9 = fmul contract float %call5, %call8
  %arrayidx11 = getelementptr inbounds float, ptr addrspace(1) %y.coerce, i64 %idxprom
  store float %mul9, ptr addrspace(1) %arrayidx11, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: convergent nounwind
declare hidden float @__ocml_exp_f32(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare hidden float @__ocml_sin_f32(float noundef) local_unnamed_addr #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef align 4 ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #2

attributes #0 = { convergent mustprogress norecurse nounwind "amdgpu-flat-work-group-size"="1,1024" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent nounwind "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 2}
!4 = !{i16 1, i16 1025}
!5 = !{}

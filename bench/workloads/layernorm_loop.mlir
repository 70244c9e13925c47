// A VPU-heavy decode loop for the record/replay benchmark: an 8x128
// activation stays in VMEM and is layer-normalized (mean, variance, scale by
// gamma) once per step, %steps = 80000 times: about 1.04 M instructions that
// read only 8 KiB of HBM, so the trace is dominated by its PC sequence.
//
//   y = (x - mean(x)) / sqrt(var(x) + eps) * gamma      (per row)

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

func.func @main(%x: memref<8x128xf32, #hbm>, %gamma: memref<8x128xf32, #hbm>,
                %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 80000 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %gv = accel.alloc : memref<8x128xf32, #vmem>
  %t = accel.alloc : memref<8x128xf32, #vmem>
  %s = accel.alloc : memref<8x1xf32, #vmem>
  %n = accel.alloc : memref<8x1xf32, #vmem>
  %eps = accel.alloc : memref<8x1xf32, #vmem>
  accel.vfill %n, 128.0 : memref<8x1xf32, #vmem>
  accel.vfill %eps, 1.0e-5 : memref<8x1xf32, #vmem>
  %tx = accel.dma_start %x, %xv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  %tg = accel.dma_start %gamma, %gv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  accel.dma_wait %tg
  scf.for %i = %c0 to %steps step %c1 {
    accel.vreduce_sum %xv, %s : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %s, %n, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vsub %xv, %s, %xv : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vmul %xv, %xv, %t : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vreduce_sum %t, %s : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %s, %n, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vadd %s, %eps, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vsqrt %s, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %xv, %s, %xv : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vmul %xv, %gv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %to = accel.dma_start %xv, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}

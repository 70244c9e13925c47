//===- Passes.td - conversions into the accel dialect ------*- tablegen -*-===//

#ifndef ACCEL_CONVERSION_PASSES_TD
#define ACCEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToAccel : Pass<"convert-linalg-to-accel"> {
  let summary = "Convert linalg and memref ops on accel tiles to accel ops";
  let description = [{
    The last step of a frontend: after tiling and bufferization every
    operand is a static 1-D or 2-D f32 memref in `#accel.space<hbm>` or
    `#accel.space<vmem>` (docs/isa.md, "Tiles"), and each op becomes the
    unit that executes it:

      - `memref.copy` and `linalg.copy` between HBM and VMEM (or within
        VMEM): `accel.dma_start` then `accel.dma_wait` (a synchronous copy;
        the FDO passes move the WAIT and the ISSUE later).
      - `linalg.fill` of a VMEM tile with an f32 constant: `accel.vfill`.
      - `linalg.matmul` on VMEM tiles (C += A * B): `accel.matmul
        {accumulate}`; when the last write of C before it is a
        `linalg.fill` with 0.0 that nothing reads in between, the fill is
        dropped and the matmul overwrites C (`accumulate` unset).
      - elementwise `linalg.generic` and named elementwise ops
        (`linalg.add`, `linalg.exp`, `linalg.elementwise`, ...): all loops
        parallel, every operand a VMEM tile of the output's shape or an
        Rx1 column broadcast along the rows (`(i, j) -> (i, 0)`), a body of
        `arith.addf`, `subf`, `mulf`, `divf`, `maximumf`, `maxnumf`,
        `negf`, `math.exp`, `math.sqrt` and f32 constants. Each body op
        becomes one VPU op (`vadd`, `vsub`, `vmul`, `vdiv`, `vmax`,
        `vexp`, `vsqrt`; `negf` is a `vmul` by a -1 column); intermediate
        values get VMEM temporaries (`accel.alloc`), constants a filled
        column, and only the last op writes the output, so an output that
        is also an input is read before it is overwritten.

    Anything else that still touches memory fails with one error at the op
    naming what is not supported (a tensor operand: run
    one-shot-bufferize first; an HBM operand of a compute op: stage it
    through VMEM; a row broadcast `(i, j) -> (j)`, which the VPU does not
    have; a reduction; a body op without a VPU counterpart; a non-f32
    element type; a dynamic shape).
  }];
  let dependentDialects = ["accel::AccelDialect"];
}

def ConvertMemorySpacesToAccel
    : Pass<"convert-memory-spaces-to-accel", "mlir::ModuleOp"> {
  let summary = "Put memrefs in accel's memory spaces: HBM by default, "
                "VMEM for one numbered space";
  let description = [{
    Upstream passes leave memrefs without a memory space (function
    arguments, results of bufferization) or in a numbered fast space
    (`affine-data-copy-generate="generate-dma fast-mem-space=1"`). This
    pass rewrites every memref type in the module, in function signatures,
    op results and block arguments alike: no memory space (or space 0)
    becomes `#accel.space<hbm>`, the space numbered `vmem-space` becomes
    `#accel.space<vmem>`. Then `memref.alloc` of a VMEM buffer becomes
    `accel.alloc` (static VMEM allocation) and its `memref.dealloc` goes.

    Any other memory space, and a VMEM `memref.alloc` that accel.alloc
    cannot express (a dynamic size, a non-identity layout), is one error at
    the op or function that holds it.
  }];
  let options = [
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space that is VMEM (upstream's fast memory "
           "space)">
  ];
  let dependentDialects = ["accel::AccelDialect"];
}

#endif // ACCEL_CONVERSION_PASSES_TD

//===- AccelOps.td - accel dialect operations --------------*- tablegen -*-===//

#ifndef ACCEL_OPS_TD
#define ACCEL_OPS_TD

include "accel/Dialect/Accel/AccelDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// VMEM allocation
//===----------------------------------------------------------------------===//

def Accel_AllocOp : Accel_Op<"alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocate a static VMEM buffer";
  let description = [{
    Reserves a statically shaped f32 buffer in VMEM. Lowering assigns every
    allocation a fixed VMEM address (a bump allocator over the function) and
    rejects programs whose allocations exceed the configured VMEM capacity.

    ```mlir
    %w = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
    ```
  }];
  let results = (outs Res<AnyMemRef, "", [MemAlloc<DefaultResource>]>:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

def Accel_DmaStartOp : Accel_Op<"dma_start"> {
  let summary = "ISSUE an asynchronous DMA between HBM and VMEM";
  let description = [{
    Starts copying `src` to `dst` (equal shapes, f32, unit innermost stride)
    and returns at once with a token (seed 000 §5.2, Fig. 3: ISSUE). The copy
    travels the link (source memory, destination memory): it first pays the
    link's constant, non-accumulative base latency, then waits in the link's
    FIFO and transfers at the link bandwidth. `dst` must not be read before
    the matching `accel.dma_wait`.

    ```mlir
    %t = accel.dma_start %w_tile, %w : memref<128x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst);
  let results = (outs Accel_TokenType:$token);
  let assemblyFormat = [{
    $src `,` $dst attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Accel_DmaWaitOp : Accel_Op<"dma_wait"> {
  let summary = "WAIT until a DMA has completed";
  let description = [{
    Blocks the scalar core until the DMA of `token` has completed (seed 000
    Fig. 3: WAIT). Stall cycles spent here are split into base-latency and
    transfer-latency stalls as in seed 000 Fig. 4.

    ```mlir
    accel.dma_wait %t
    ```
  }];
  let arguments = (ins Accel_TokenType:$token);
  let assemblyFormat = "$token attr-dict";
}

def Accel_LoadOp : Accel_Op<"load"> {
  let summary = "Scalar load of an i32 from VMEM into an index";
  let description = [{
    Reads one i32 element of a VMEM buffer into a scalar register (the
    scalar unit's `sld`), e.g. a loop bound or a table entry that a DMA
    brought in. Data-dependent control flow and DMA addresses start here
    (seed 000 §5.2.1: node addresses loaded by setup DMAs).

    ```mlir
    %n = accel.load %table[%c3] : memref<16xi32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "buffer", [MemRead]>:$buffer,
                       Variadic<Index>:$indices);
  let results = (outs Index:$result);
  let assemblyFormat = "$buffer `[` $indices `]` attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// MXU
//===----------------------------------------------------------------------===//

def Accel_MatmulOp : Accel_Op<"matmul"> {
  let summary = "MXU matrix multiply on VMEM tiles: C (+)= A * B";
  let description = [{
    Computes `c = a * b`, or `c += a * b` with `accumulate`, on the MXU, a
    weight-stationary systolic array. Shapes: a is MxK, b is KxN (contiguous),
    c is MxN; all f32 in VMEM. Latency model: docs/isa.md ("MXU").

    ```mlir
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "lhs", [MemRead]>:$a,
                       Arg<AnyMemRef, "rhs", [MemRead]>:$b,
                       Arg<AnyMemRef, "accumulator", [MemRead, MemWrite]>:$c,
                       UnitAttr:$accumulate);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// VPU
//===----------------------------------------------------------------------===//

class Accel_VBinaryOp<string mnemonic, string what>
    : Accel_Op<mnemonic> {
  let summary = "VPU elementwise " # what # " of two VMEM tiles";
  let description = [{
    `out = x }] # what # [{ y` elementwise on the VPU. All operands are f32
    VMEM tiles of one shape, except that `y` may be a RxM column (M = 1) that
    is broadcast along the columns of `x`.
  }];
  let arguments = (ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                       Arg<AnyMemRef, "y", [MemRead]>:$y,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out);
  let assemblyFormat = [{
    $x `,` $y `,` $out attr-dict `:` type($x) `,` type($y) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VAddOp : Accel_VBinaryOp<"vadd", "+">;
def Accel_VSubOp : Accel_VBinaryOp<"vsub", "-">;
def Accel_VMulOp : Accel_VBinaryOp<"vmul", "*">;
def Accel_VDivOp : Accel_VBinaryOp<"vdiv", "/">;
def Accel_VMaxOp : Accel_VBinaryOp<"vmax", "max">;

class Accel_VUnaryOp<string mnemonic, string what>
    : Accel_Op<mnemonic> {
  let summary = "VPU elementwise " # what # " of a VMEM tile";
  let description = [{
    `out = }] # what # [{(x)` elementwise on the VPU; f32 VMEM tiles of one
    shape.
  }];
  let arguments = (ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out);
  let assemblyFormat = [{
    $x `,` $out attr-dict `:` type($x) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VExpOp : Accel_VUnaryOp<"vexp", "exp">;
def Accel_VSqrtOp : Accel_VUnaryOp<"vsqrt", "sqrt">;
def Accel_VCopyOp : Accel_VUnaryOp<"vcopy", "copy">;

class Accel_VReduceOp<string mnemonic, string what>
    : Accel_Op<mnemonic> {
  let summary = "VPU row " # what # " reduction of a VMEM tile";
  let description = [{
    `out[r, 0] = }] # what # [{(x[r, :])` on the VPU: x is RxC, out is Rx1.
  }];
  let arguments = (ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out);
  let assemblyFormat = [{
    $x `,` $out attr-dict `:` type($x) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VReduceSumOp : Accel_VReduceOp<"vreduce_sum", "sum">;
def Accel_VReduceMaxOp : Accel_VReduceOp<"vreduce_max", "max">;

def Accel_VFillOp : Accel_Op<"vfill"> {
  let summary = "VPU fill of a VMEM tile with a constant";
  let description = [{
    ```mlir
    accel.vfill %acc, 0.0 : memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "out", [MemWrite]>:$out, F32Attr:$value);
  let assemblyFormat = "$out `,` $value attr-dict `:` type($out)";
  let hasVerifier = 1;
}

#endif // ACCEL_OPS_TD

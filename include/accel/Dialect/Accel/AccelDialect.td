//===- AccelDialect.td - accel dialect definition ----------*- tablegen -*-===//

#ifndef ACCEL_DIALECT_TD
#define ACCEL_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Accel_Dialect : Dialect {
  let name = "accel";
  let summary = "An accelerator dialect: HBM/VMEM buffers, DMA, MXU and VPU";
  let description = [{
    The accel dialect models a TPU-like accelerator in the terms of SnR
    (Zarkadas et al., SoCC '25) §5: data lives in HBM and is moved by an asynchronous DMA
    engine (`accel.dma_start` is the ISSUE, `accel.dma_wait` the WAIT) into
    VMEM, the on-chip scratchpad, where the MXU (matrix unit) and the VPU
    (vector unit) compute on tiles. Buffers are builtin memrefs whose memory
    space is `#accel.space<hbm>` or `#accel.space<vmem>`; tiles of larger
    buffers are taken with upstream `memref.subview`. Scalar control uses
    upstream `arith`, `scf` and `func`.

    Every op that lowers to machine code may carry `accel.op_id`, a stable
    integer in [1, 2^31 - 1] assigned by `--accel-assign-op-ids`;
    metrics.json is keyed by it.
  }];
  let cppNamespace = "::accel";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // accel.op_id on any op must be an integer in [1, getMaxOpId()].
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The largest op id: ids are 32-bit unsigned fields of the program
    /// image's origin table (docs/isa.md), kept below 2^31.
    static constexpr int64_t getMaxOpId() { return 2147483647; }
    /// Checks that `value`, the accel.op_id of `op`, is an integer in
    /// [1, getMaxOpId()]; otherwise an error on `op`.
    static ::mlir::LogicalResult verifyOpId(::mlir::Operation *op,
                                            ::mlir::Attribute value);
    /// Name of the stable op id attribute.
    static constexpr ::llvm::StringLiteral getOpIdAttrName() {
      return ::llvm::StringLiteral("accel.op_id");
    }
  }];
}

class Accel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Accel_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Attributes and types
//===----------------------------------------------------------------------===//

def Accel_MemorySpace : I32EnumAttr<"MemorySpace", "accel memory space", [
    I32EnumAttrCase<"HBM", 0, "hbm">,
    I32EnumAttrCase<"VMEM", 1, "vmem">
  ]> {
  let cppNamespace = "::accel";
  let genSpecializedAttr = 0;
}

def Accel_MemorySpaceAttr : EnumAttr<Accel_Dialect, Accel_MemorySpace, "space"> {
  let summary = "Memory space of a buffer: HBM (off-chip) or VMEM (on-chip)";
  let assemblyFormat = "`<` $value `>`";
}

/// arith.cmpf's predicates, in its numbering (the ISA's vpu.cmp encodes the
/// number, docs/isa.md).
def Accel_CmpPredicate : I32EnumAttr<"CmpPredicate",
    "vcmp predicate: IEEE 754 comparison, ordered (o*) or unordered (u*)", [
    I32EnumAttrCase<"AlwaysFalse", 0, "false">,
    I32EnumAttrCase<"OEQ", 1, "oeq">, I32EnumAttrCase<"OGT", 2, "ogt">,
    I32EnumAttrCase<"OGE", 3, "oge">, I32EnumAttrCase<"OLT", 4, "olt">,
    I32EnumAttrCase<"OLE", 5, "ole">, I32EnumAttrCase<"ONE", 6, "one">,
    I32EnumAttrCase<"ORD", 7, "ord">, I32EnumAttrCase<"UEQ", 8, "ueq">,
    I32EnumAttrCase<"UGT", 9, "ugt">, I32EnumAttrCase<"UGE", 10, "uge">,
    I32EnumAttrCase<"ULT", 11, "ult">, I32EnumAttrCase<"ULE", 12, "ule">,
    I32EnumAttrCase<"UNE", 13, "une">, I32EnumAttrCase<"UNO", 14, "uno">,
    I32EnumAttrCase<"AlwaysTrue", 15, "true">
  ]> {
  let cppNamespace = "::accel";
}

def Accel_TokenType : TypeDef<Accel_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "Completion token of an in-flight DMA";
  let description = [{
    Returned by `accel.dma_start` (the ISSUE) and consumed by
    `accel.dma_wait` (the WAIT). In machine code it is the DMA id register.
  }];
}

#endif // ACCEL_DIALECT_TD

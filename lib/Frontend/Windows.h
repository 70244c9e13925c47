//===- Windows.h - Convolution and pooling windows as tap sums --*- C++ -*-===//
//
// accel-decompose-linalg's convolutions, depthwise convolutions and pooling
// windows (Windows.cpp): each is a sum over its kernel taps of shifted
// reads of the input, on the MXU (matmuls) or the VPU (elementwise ops).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_FRONTEND_WINDOWS_H
#define ACCEL_LIB_FRONTEND_WINDOWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <optional>

namespace accel {

/// How a stride-1 window's taps are cut (Windows.cpp, emitTapTiles): tiles
/// of at most `rows` flattened rows (whole output rows) whose accumulator
/// stays in VMEM (memory space `vmemSpace`; 0: no tiles) across the taps
/// when a tile takes at most a quarter of `vmemBytes`, and each image's
/// pixels in VMEM when they take at most an eighth; the pass's tile-rows,
/// vmem-space and vmem-bytes options.
struct TapTiling {
  int64_t rows = 128;
  unsigned vmemSpace = 1;
  uint64_t vmemBytes = 32 << 20;
};

/// The input, filter and init types of `conv` when it works on tensors of
/// static shapes; nullopt otherwise.
template <typename ConvOp>
std::optional<std::array<mlir::RankedTensorType, 3>>
getStaticConvTypes(ConvOp conv) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  std::array<mlir::RankedTensorType, 3> types = {
      llvm::dyn_cast<mlir::RankedTensorType>(conv.getInputs()[0].getType()),
      llvm::dyn_cast<mlir::RankedTensorType>(conv.getInputs()[1].getType()),
      llvm::dyn_cast<mlir::RankedTensorType>(conv.getOutputs()[0].getType())};
  for (mlir::RankedTensorType t : types)
    if (!t || !t.hasStaticShape())
      return std::nullopt;
  return types;
}

/// A 2-D convolution (`linalg.conv_2d_nhwc_hwcf`, any strides and
/// dilations, static shapes, on tensors) as a sum of shifted matmuls, one
/// contraction per kernel tap (kh, kw): the input pixels the tap reads
/// times the tap's C x F filter, accumulated into the output. With stride
/// 1 the taps run over flattened rows in tiles of whole output rows (see
/// Passes.td, accel-decompose-linalg); otherwise accel-tile-linalg runs
/// the n and oh loops one iteration at a time around an OW x C by C x F
/// matmul. Returns whether `conv` was rewritten (not when a type is not
/// static or a tap would read past the input).
bool rewriteConvAsShiftedMatmuls(mlir::IRRewriter &rewriter,
                                 mlir::linalg::Conv2DNhwcHwcfOp conv,
                                 const TapTiling &tiling);

/// A depthwise convolution (`linalg.depthwise_conv_2d_nhwc_hwc`, any
/// strides and dilations, static shapes, on float tensors) as a sum of
/// shifted elementwise products on the VPU, the tap's C weights broadcast
/// along the pixels. Returns whether `conv` was rewritten.
bool rewriteDepthwiseAsShiftedProducts(
    mlir::IRRewriter &rewriter, mlir::linalg::DepthwiseConv2DNhwcHwcOp conv,
    const TapTiling &tiling);

/// A float pooling window on NHWC (`linalg.pooling_nhwc_max`, `_min`,
/// `_sum`; any strides and dilations, static shapes, on tensors) as one
/// elementwise maximum, minimum or sum per window tap on the VPU. Returns
/// whether `pool` was rewritten (false for any other op).
bool rewritePoolingAsShiftedReduce(mlir::IRRewriter &rewriter,
                                   mlir::Operation *pool,
                                   const TapTiling &tiling);

} // namespace accel

#endif // ACCEL_LIB_FRONTEND_WINDOWS_H

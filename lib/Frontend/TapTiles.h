//===- TapTiles.h - A window's taps in tiles of output rows -----*- C++ -*-===//
//
// The parts of Windows.cpp's tap reductions that TapTiles.cpp builds: a
// window's shape (ConvWindow), one tap's elementwise op, an image's pixel
// rows in VMEM, and the taps in tiles of whole output rows with a VMEM
// accumulator (emitTapTiles).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_FRONTEND_TAPTILES_H
#define ACCEL_LIB_FRONTEND_TAPTILES_H

#include "Windows.h"

#include "llvm/ADT/SmallBitVector.h"

namespace accel::windows {

/// A 2-D convolution's window: strides and dilations (1 when absent), and
/// its kernel and output sizes.
struct ConvWindow {
  int64_t stride[2] = {1, 1}, dilation[2] = {1, 1};
  int64_t kh = 0, kw = 0, n = 0, oh = 0, ow = 0;
};

/// Combines one tap's input pixel (and its weight, null for a pooling
/// window) into the accumulator, in a linalg.generic body; returns the new
/// accumulator value.
using TapCombiner = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value pixel, mlir::Value tap,
    mlir::Value acc)>;

/// The tap (kh, kw)'s weights, built at the insertion point; none for a
/// pooling window.
using TapOf = llvm::function_ref<mlir::Value(int64_t, int64_t)>;

/// The pixel rows (rows x C) of one image of a flattened input, built at
/// the builder's insertion point inside the loop over images.
using ImageRows = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value image)>;

/// One tap of a window: `combine(pixels, tap, acc)` elementwise over
/// `ins` (the pixels, then the tap's weights when `hasTap`) into `acc`, a
/// linalg.generic with `maps` and `iterators`; returns its result.
mlir::Value emitTapOp(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ValueRange ins, mlir::Value acc,
                      llvm::ArrayRef<mlir::AffineMap> maps,
                      llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                      TapCombiner combine, bool hasTap);

/// `maps` without the results that read one of the loops `loops`, and
/// without those loops (the others renumbered).
llvm::SmallVector<mlir::AffineMap>
dropLoops(llvm::ArrayRef<mlir::AffineMap> maps,
          const llvm::SmallBitVector &loops, mlir::MLIRContext *ctx);

/// Image `image` of `input` (N x H x W x C, static) as its H*W rows of C
/// in a new VMEM tensor of `rowsType` (rows x C, rows >= H*W; memory space
/// `vmemSpace`). When `input` is a tensor.pad with a constant value and
/// static pads that leave N and C alone (the frontend's halo), the tensor
/// is filled with that value and the unpadded rows go in at their places
/// (one copy per input row, or one for the whole image when W is not
/// padded), so the padded image never exists in HBM; otherwise the rows
/// are copied as they are (one copy) and any rows past them are zero.
mlir::Value emitImageInVmem(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value input, mlir::Value image,
                            mlir::RankedTensorType rowsType,
                            unsigned vmemSpace);

/// The taps of emitTapReduce (Windows.cpp) in tiles of whole output rows,
/// for each image n (its pixel rows `imageRows(n)`: H*W (+ extra) x C, the
/// image in VMEM or a slice of the flattened input in HBM; elements of
/// `inElem`, `w` pixels of `c` channels to an image row). With `flat`
/// (stride 1), an output row is W accumulator rows (OW wanted, W - OW read
/// across the row's end) and a tile of R = `tiling.rows` / W output rows
/// takes one op per tap over its R*W contiguous pixel rows from oh0*W + the
/// tap's offset; otherwise an output row is OW accumulator rows, a tile one
/// output row, and each tap reads that row's pixels (image row oh*sh +
/// i*dh, every sw-th pixel from j*dw) as strided rows. The accumulator
/// tile is in VMEM (a `bufferization.alloc_tensor` in `tiling.vmemSpace`):
/// it starts at `fillValue`, or at zero with the init's rows of OW copied
/// in, takes every tap in turn (`combine`, with the weights `tapOf`), and
/// its output rows' OW columns are copied into the N x OH x OW x F result.
/// So a convolution's accumulator leaves VMEM once per tile instead of
/// going through HBM once per tap, its matmuls run back to back, and the
/// result is as dense as `init`. `maps` and `iterators` are over (n, oh,
/// ow, rest...). Returns the result, or null (nothing created) when
/// `tiling.vmemSpace` is 0, an output row is longer than a tile, or a
/// tile's accumulator, pixels and tap take more than a quarter of VMEM.
mlir::Value emitTapTiles(mlir::IRRewriter &rewriter, mlir::Location loc,
                         mlir::Type inElem, ImageRows imageRows,
                         mlir::Value init, mlir::Value fillValue,
                         const ConvWindow &window, int64_t w, int64_t c,
                         TapOf tapOf, llvm::ArrayRef<mlir::AffineMap> maps,
                         llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                         TapCombiner combine, const TapTiling &tiling,
                         bool flat);

} // namespace accel::windows

#endif // ACCEL_LIB_FRONTEND_TAPTILES_H

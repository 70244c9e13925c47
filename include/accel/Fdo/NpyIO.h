//===- NpyIO.h - HBM arguments from and to NumPy .npy files -----*- C++ -*-===//
//
// Real tensors in and out of a simulated run: `--input NAME=FILE.npy` gives
// an HBM argument its initial contents, `--output-dir DIR` writes every HBM
// argument's final contents. The files are read and written with xtensor's
// NumPy reader and writer (xtensor/xnpy.hpp, Debian's libxtensor-dev).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FDO_NPYIO_H
#define ACCEL_FDO_NPYIO_H

#include "accel/Fdo/Run.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace accel {

/// Parses the argument NAME of `--input NAME=FILE`: the argument's position
/// N, or argN / %argN. Errors name the entry function's arguments.
llvm::Expected<unsigned> parseArgumentName(mlir::func::FuncOp entry,
                                           llvm::StringRef name);

/// Reads `--input` spec `spec` ("NAME=FILE.npy") for the entry function
/// `entry`: FILE must be a C-order .npy file whose shape is the argument's
/// shape and whose dtype is the argument's element type: f32 '<f4', i32
/// '<i4'; bf16 either its bit patterns ('<u2', as `a.view(np.uint16)`
/// saves them, or '<V2' / '|V2', as NumPy saves ml_dtypes.bfloat16) or f32
/// values ('<f4'), rounded to nearest even and counted in
/// HbmInput::roundedValues. Errors (one line, naming the spec): a
/// malformed spec, an unknown argument, a non-HBM argument, an unreadable
/// or truncated file, a dtype or shape mismatch.
llvm::Expected<HbmInput> loadHbmInput(mlir::func::FuncOp entry,
                                      llvm::StringRef spec);

/// Writes DIR/argN.npy for every HBM argument of `entry`, from the final
/// contents `r.hbmBuffers` (RunOptions::keepHbm), with the argument's shape
/// and dtype ('<f4', '<i4'; a bf16 argument as '<f4', widened exactly, so
/// NumPy reads it without ml_dtypes); each file goes through a temporary and
/// a rename. Errors: the directory or a file cannot be written.
llvm::Error writeHbmOutputs(llvm::StringRef dir, mlir::func::FuncOp entry,
                            const RunResult &r);

} // namespace accel

#endif // ACCEL_FDO_NPYIO_H

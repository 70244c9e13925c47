//===- NpyIO.h - HBM arguments from and to NumPy .npy files -----*- C++ -*-===//
//
// Real tensors in and out of a simulated run: `--input NAME=FILE.npy` gives
// an HBM argument its initial contents, `--output-dir DIR` writes every HBM
// argument's final contents. The files are written with xtensor's NumPy
// writer (xtensor/xnpy.hpp, Debian's libxtensor-dev) and read by accel's own
// header parser, which checks the header against the file's
// size and the argument before allocating anything (docs/inputs.md).
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

class StagedFiles;

/// Parses the argument NAME of `--input NAME=FILE`: the argument's position
/// N, or argN / %argN. Errors name the entry function's arguments.
llvm::Expected<unsigned> parseArgumentName(mlir::func::FuncOp entry,
                                           llvm::StringRef name);

/// The most dimensions a .npy shape may have (NumPy's NPY_MAXDIMS).
constexpr size_t kMaxNpyRank = 64;

/// The header of a NumPy .npy file (format versions 1.0, 2.0 and 3.0).
struct NpyHeader {
  unsigned major = 1;        ///< the format version (1, 2 or 3)
  std::string descr;         ///< the dtype string: '<f4', '<i4', ...
  bool fortranOrder = false; ///< column-major data
  std::vector<uint64_t> shape;
  uint64_t elements = 1;   ///< the product of `shape`
  uint64_t dataOffset = 0; ///< bytes before the data (magic + header)
};

/// Parses and checks the header of the .npy file `bytes` (its whole
/// contents) without allocating for its data: the magic, the version
/// (1.0-3.0), the header length (within the file), the header dict (a
/// Python literal with exactly the keys 'descr' (a string), 'fortran_order'
/// (True or False) and 'shape' (a tuple of at most kMaxNpyRank non-negative
/// integers: `(8.0, 128)` or `(-1,)` is an error, not (8, 128)), only spaces
/// after it) and the element count (overflow-checked). Errors, one line
/// starting "is not a NumPy .npy file: " and naming the byte at fault
/// ("header byte 50: 'shape' must be a tuple of non-negative integers").
llvm::Expected<NpyHeader> parseNpyHeader(llvm::StringRef bytes);

/// The element type of an HBM argument, which chooses the dtypes it reads.
enum class NpyElement : uint8_t { F32, I32, BF16 };

/// The contents of the .npy file `bytes` (named `path` in errors) for the
/// argument %arg`argIndex` with elements `element` and shape `argShape`:
/// parseNpyHeader, then the dtype, the order and the shape against the
/// argument, then the data size (the element count times 4 bytes, or 2 for
/// bf16 bit patterns) against the bytes after the header, all before
/// anything is allocated; then the data is copied (f32 rounded to bf16 for
/// a bf16 argument). HbmInput::source is "'PATH'". Errors, one line
/// starting "'PATH' ": parseNpyHeader's, a dtype, order or shape mismatch,
/// "is truncated (its header promises N bytes of data)", "has bytes after
/// its data". The entry point of loadHbmInput and of fuzz/fuzz-npy.cpp.
llvm::Expected<HbmInput> readNpyInput(llvm::StringRef bytes,
                                      llvm::StringRef path, unsigned argIndex,
                                      NpyElement element,
                                      llvm::ArrayRef<int64_t> argShape);

/// Reads `--input` spec `spec` ("NAME=FILE.npy") for the entry function
/// `entry`: FILE must be a C-order .npy file whose shape is the argument's
/// shape and whose dtype is the argument's element type: f32 '<f4', i32
/// '<i4'; bf16 either its bit patterns ('<u2', as `a.view(np.uint16)`
/// saves them, or '<V2' / '|V2', as NumPy saves ml_dtypes.bfloat16) or f32
/// values ('<f4'), rounded to nearest even and counted in
/// HbmInput::roundedValues. FILE is read with accel::readInputFile (kind
/// Npy: a regular file of at most 16 GiB, a pipe of at most 1 GiB; no
/// device) and checked by readNpyInput. Errors (one line, naming the
/// spec): a malformed spec, an unknown argument, a non-HBM argument, an
/// unreadable file, readNpyInput's.
llvm::Expected<HbmInput> loadHbmInput(mlir::func::FuncOp entry,
                                      llvm::StringRef spec);

/// The shapes the command line gives the program's arguments, for the
/// frontend's accel-bind-shapes (its `shapes`, "ARG=D0xD1x...", "ARG=()"
/// for rank 0): the shape of each `--input` NAME=FILE.npy (its header only;
/// NAME is N, argN or %argN), then each `--bind` NAME=D0xD1x.... An
/// --input whose name, file or header is bad gives no shape (loadHbmInput
/// reports it, with the program's arguments). Errors (one line, naming the
/// specs): a malformed --bind, a --bind for an argument an --input or
/// another --bind gives.
llvm::Expected<std::vector<std::string>>
getShapeBindings(llvm::ArrayRef<std::string> inputSpecs,
                 llvm::ArrayRef<std::string> bindSpecs);

/// Writes DIR/argN.npy for every HBM argument of `entry`, from the final
/// contents `r.hbmBuffers` (RunOptions::keepHbm), with the argument's shape
/// and dtype ('<f4', '<i4'; a bf16 argument as '<f4', widened exactly, so
/// NumPy reads it without ml_dtypes); each file goes through a temporary and
/// a rename. With `staged`, the files are only written to their temporaries
/// in `staged` (StagedFiles::add), to be renamed by its commit() together
/// with the other outputs of the command (docs/output.md). On a system of
/// several chips these are chip 0's; chip C's (C >= 1,
/// RunResult::chipHbmBuffers) go to DIR/chipC/argN.npy. Errors: the
/// directory or a file cannot be written.
llvm::Error writeHbmOutputs(llvm::StringRef dir, mlir::func::FuncOp entry,
                            const RunResult &r,
                            StagedFiles *staged = nullptr);

} // namespace accel

#endif // ACCEL_FDO_NPYIO_H

//===- Nesting.h - Bounded nesting of MLIR text before it is parsed -*- C++
//-*-===//
//
// MLIR's parser recurses once per nested region, attribute or type: a few
// thousand nested scf.for (or brackets) overflow the stack inside libMLIR
// before any accel code runs. Tools check the text first and refuse inputs
// nested deeper than any real program with one located error.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_NESTING_H
#define ACCEL_SUPPORT_NESTING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace accel {

/// Deepest nesting of `{`, `(` and `[` (outside strings and `//` comments)
/// that accel's tools accept in MLIR text.
constexpr unsigned kMaxMlirNesting = 256;

/// The offset of the first opening bracket of `open` (closed by the
/// bracket at the same index of `close`) that makes `text` nest deeper than
/// `maxDepth`, or StringRef::npos. Double-quoted strings (with backslash
/// escapes) and, with `lineComments`, `//` comments are skipped. The JSON
/// reader and checkMlirNesting share it.
size_t findTooDeep(llvm::StringRef text, unsigned maxDepth,
                   llvm::StringRef open, llvm::StringRef close,
                   bool lineComments);

/// Checks that `text` nests `{`, `(` and `[` at most `maxDepth` deep.
/// Error: "SOURCE:LINE:COL: nesting deeper than N braces, parentheses and
/// brackets (regions, attributes, types)", at the first bracket too deep.
llvm::Error checkMlirNesting(llvm::StringRef text, llvm::StringRef source,
                             unsigned maxDepth = kMaxMlirNesting);

} // namespace accel

#endif // ACCEL_SUPPORT_NESTING_H

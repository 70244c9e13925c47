//===- Nesting.h - Bounded nesting of MLIR text before it is parsed -*- C++
//-*-===//
//
// MLIR's parser recurses once per nested region, attribute or type: a few
// thousand nested scf.for (or brackets) overflow the stack inside libMLIR
// before any accel code runs. Tools check the text first and refuse inputs
// nested deeper than any real program with one located error; and text on
// which an upstream op parser crashes (findBadIntegerList).
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

/// The offset of the first character that breaks the value after
/// `permutation =` or `dimensions =` (whole words, outside strings and `//`
/// comments): the value must be a list of integers of at most 18 digits
/// (`[1, 0]`, `[]`), or an `array<` or a `dense<` attribute; or
/// StringRef::npos. MLIR 22's parsers of linalg.transpose and
/// linalg.broadcast read such a value as a list and crash (a null
/// attribute) when it is none.
size_t findBadIntegerList(llvm::StringRef text);

/// Checks that `text` nests `{`, `(` and `[` at most `maxDepth` deep, and
/// has no value findBadIntegerList finds. Errors: "SOURCE:LINE:COL: nesting
/// deeper than N braces, parentheses and brackets (regions, attributes,
/// types)", at the first bracket too deep; "SOURCE:LINE:COL: expected a
/// list of integers ('[1, 0]') after 'permutation =' or 'dimensions ='", at
/// the character that breaks it.
llvm::Error checkMlirNesting(llvm::StringRef text, llvm::StringRef source,
                             unsigned maxDepth = kMaxMlirNesting);

} // namespace accel

#endif // ACCEL_SUPPORT_NESTING_H

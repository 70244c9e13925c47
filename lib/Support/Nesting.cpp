//===- Nesting.cpp - Bounded nesting of MLIR and JSON text ----------------===//

#include "accel/Support/Nesting.h"

using namespace accel;

size_t accel::findTooDeep(llvm::StringRef text, unsigned maxDepth,
                          llvm::StringRef open, llvm::StringRef close,
                          bool lineComments) {
  unsigned depth = 0;
  bool inString = false, escaped = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inComment) {
      inComment = c != '\n';
      continue;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (lineComments && c == '/' && i + 1 < text.size() &&
             text[i + 1] == '/')
      inComment = true;
    else if (open.contains(c)) {
      if (++depth > maxDepth)
        return i;
    } else if (close.contains(c) && depth > 0)
      --depth;
  }
  return llvm::StringRef::npos;
}

llvm::Error accel::checkMlirNesting(llvm::StringRef text,
                                    llvm::StringRef source, unsigned maxDepth) {
  size_t at = findTooDeep(text, maxDepth, "{([", "})]", /*lineComments=*/true);
  if (at == llvm::StringRef::npos)
    return llvm::Error::success();
  llvm::StringRef before = text.take_front(at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t col = lineStart == llvm::StringRef::npos ? at + 1 : at - lineStart;
  return llvm::createStringError(
      "%s:%zu:%zu: nesting deeper than %u braces, parentheses and brackets "
      "(regions, attributes, types)",
      source.str().c_str(), line, col, maxDepth);
}

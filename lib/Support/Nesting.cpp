//===- Nesting.cpp - Bounded nesting of MLIR text -------------------------===//

#include "accel/Support/Nesting.h"

using namespace accel;

llvm::Error accel::checkMlirNesting(llvm::StringRef text,
                                    llvm::StringRef source,
                                    unsigned maxDepth) {
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  bool inString = false, escaped = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      inComment = false;
      continue;
    }
    if (inComment)
      continue;
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
    } else if (c == '{' || c == '(' || c == '[') {
      if (++depth > maxDepth)
        return llvm::createStringError(
            "%s:%u:%zu: nesting deeper than %u braces, parentheses and "
            "brackets (regions, attributes, types)",
            source.str().c_str(), line, i - lineStart + 1, maxDepth);
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return llvm::Error::success();
}

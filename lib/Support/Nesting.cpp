//===- Nesting.cpp - Bounded nesting of MLIR and JSON text ----------------===//

#include "accel/Support/Nesting.h"

#include "llvm/ADT/StringExtras.h"

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

/// "LINE:COL" of byte `at` of `text` (1-based).
static std::pair<size_t, size_t> lineAndColumn(llvm::StringRef text,
                                               size_t at) {
  llvm::StringRef before = text.take_front(at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t col = lineStart == llvm::StringRef::npos ? at + 1 : at - lineStart;
  return {line, col};
}

size_t accel::findBadIntegerList(llvm::StringRef text) {
  bool inString = false, escaped = false, inComment = false;
  auto isIdent = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  };
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
    if (c == '"') {
      inString = true;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
      continue;
    }
    if (i > 0 && isIdent(text[i - 1]))
      continue;
    llvm::StringRef rest = text.drop_front(i);
    size_t word = rest.starts_with("permutation")  ? 11
                  : rest.starts_with("dimensions") ? 10
                                                   : 0;
    if (!word || (rest.size() > word && isIdent(rest[word])))
      continue;
    llvm::StringRef value = rest.drop_front(word).ltrim();
    if (!value.consume_front("="))
      continue;
    value = value.ltrim();
    if (value.starts_with("array<") || value.starts_with("dense<"))
      continue; // the generic form: an attribute, parsed as one
    // The custom form: `[` integers separated by commas `]`, each one that
    // fits 64 bits (18 digits at most), whitespace anywhere between.
    if (!value.consume_front("["))
      return text.size() - value.size();
    value = value.ltrim();
    if (value.consume_front("]"))
      continue;
    while (true) {
      value.consume_front("-");
      size_t digits = 0;
      while (digits < value.size() && llvm::isDigit(value[digits]))
        ++digits;
      if (digits == 0 || digits > 18)
        return text.size() - value.size();
      value = value.drop_front(digits).ltrim();
      if (value.consume_front("]"))
        break;
      if (!value.consume_front(","))
        return text.size() - value.size();
      value = value.ltrim();
    }
  }
  return llvm::StringRef::npos;
}

llvm::Error accel::checkMlirNesting(llvm::StringRef text,
                                    llvm::StringRef source, unsigned maxDepth) {
  size_t at = findTooDeep(text, maxDepth, "{([", "})]", /*lineComments=*/true);
  if (at != llvm::StringRef::npos) {
    auto [line, col] = lineAndColumn(text, at);
    return llvm::createStringError(
        "%s:%zu:%zu: nesting deeper than %u braces, parentheses and brackets "
        "(regions, attributes, types)",
        source.str().c_str(), line, col, maxDepth);
  }
  at = findBadIntegerList(text);
  if (at != llvm::StringRef::npos) {
    auto [line, col] = lineAndColumn(text, at);
    return llvm::createStringError(
        "%s:%zu:%zu: expected a list of integers ('[1, 0]') after "
        "'permutation =' or 'dimensions ='",
        source.str().c_str(), line, col);
  }
  return llvm::Error::success();
}

//===- FdoPipelines.cpp - The FDO loop's pass pipelines -------------------===//
//
// The textual pass pipelines of an FDO iteration and of its trial
// (FdoOptions::passPipeline, trialPipeline): parsed as mlir-opt's command
// line nests them (a function pass runs on each func.func), checked once
// before the loop runs, and split into one pipeline per pass so that each
// pass's changes and failures are its own.
//
//===----------------------------------------------------------------------===//

#include "FdoPipelines.h"
#include "accel/Fdo/FdoLoop.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace accel;

/// One textual pipeline per pass of `pm`.
static std::vector<std::string> splitPasses(OpPassManager &pm) {
  std::vector<std::string> texts;
  for (Pass &pass : pm.getPasses()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    pass.printAsTextualPipeline(os);
    texts.push_back(text);
  }
  return texts;
}

/// The elements of a textual pipeline: `text` split at its commas outside
/// braces (pass options) and parentheses (nested pass managers).
static llvm::SmallVector<llvm::StringRef> splitTopLevel(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> parts;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '{')
      ++depth;
    else if (c == ')' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(text.slice(begin, i).trim());
      begin = i + 1;
    }
  }
  parts.push_back(text.drop_front(begin).trim());
  return parts;
}

std::string accel::detail::getPassArgument(llvm::StringRef text) {
  text = text.trim();
  size_t open = text.find_first_of("({");
  if (open == llvm::StringRef::npos)
    return text.str();
  if (text[open] == '{')
    return text.take_front(open).str();
  if (!text.ends_with(")"))
    return "";
  llvm::StringRef inner = text.slice(open + 1, text.size() - 1);
  if (splitTopLevel(inner).size() != 1)
    return "";
  return getPassArgument(inner);
}

/// Parses `text` (a pipeline on builtin.module) into `pm`; errors carry
/// MLIR's parser diagnostics on one line. A textual pipeline nests only
/// explicitly, so each top-level element that does not run on
/// builtin.module but does on func.func (a function pass: accel-hoist-dma)
/// is nested first, as mlir-opt's --PASS flags and upstream's implicit
/// nesting do: "accel-hoist-dma,cse" is
/// "func.func(accel-hoist-dma),cse".
static llvm::Error parsePipeline(llvm::StringRef text, OpPassManager &pm) {
  // An empty element (",", "a,,b", a trailing comma, only blanks) names no
  // pass: MLIR's parser would take some of them as an empty pipeline.
  llvm::SmallVector<llvm::StringRef> parts = splitTopLevel(text);
  for (auto [index, part] : llvm::enumerate(parts))
    if (part.empty())
      return llvm::createStringError(
          "element " + std::to_string(index + 1) + " of " +
          std::to_string(parts.size()) + " in '" + text.str() +
          "' is empty: a pass pipeline is passes separated by single commas "
          "(e.g. 'accel-hoist-dma,cse')");
  // Whether the registered pass `arg` runs on func.func and not on
  // builtin.module (its anchor; the options do not matter).
  auto isFunctionPass = [](llvm::StringRef arg) {
    const PassInfo *info = PassInfo::lookup(arg);
    if (!info)
      return false;
    auto quiet = [](const llvm::Twine &) { return failure(); };
    OpPassManager onModule("builtin.module"), onFunc("func.func");
    return failed(info->addToPipeline(onModule, "", quiet)) &&
           succeeded(info->addToPipeline(onFunc, "", quiet));
  };
  std::string nested;
  for (llvm::StringRef part : parts) {
    if (!nested.empty())
      nested += ",";
    llvm::StringRef arg = part.take_until([](char c) { return c == '{'; });
    if (isFunctionPass(arg.trim()))
      nested += ("func.func(" + part + ")").str();
    else
      nested += part.str();
  }
  std::string err;
  llvm::raw_string_ostream errs(err);
  if (failed(parsePassPipeline(nested, pm, errs)))
    return llvm::createStringError(
        llvm::join(llvm::split(llvm::StringRef(err).trim(), "\n\n"), "; "));
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::string>>
accel::getFdoPassPipelines(MLIRContext *context, const FdoOptions &options,
                           const sim::MachineConfig &config) {
  (void)context;
  OpPassManager pm("builtin.module");
  if (options.passPipeline.empty()) {
    FdoPipelineOptions o;
    o.vmemCapacity = config.vmemBytes;
    o.vmemPage = config.vmemPageBytes;
    buildAccelFdoPipeline(pm, o);
  } else if (auto e = parsePipeline(options.passPipeline, pm)) {
    return std::move(e);
  }
  return splitPasses(pm);
}

llvm::Expected<std::vector<std::string>>
accel::getFdoTrialPipelines(MLIRContext *context, const FdoOptions &options) {
  (void)context;
  std::string text = options.trialPipeline.value_or(
      options.passPipeline.empty() ? "accel-schedule,cse" : "");
  OpPassManager pm("builtin.module");
  if (text.empty())
    return std::vector<std::string>();
  if (auto e = parsePipeline(text, pm))
    return std::move(e);
  return splitPasses(pm);
}

llvm::Error accel::checkFdoPipelines(MLIRContext *context,
                                     const FdoOptions &options,
                                     const sim::MachineConfig &config) {
  if (auto texts = getFdoPassPipelines(context, options, config); !texts)
    return llvm::createStringError("--passes: " +
                                   llvm::toString(texts.takeError()));
  if (auto texts = getFdoTrialPipelines(context, options); !texts)
    return llvm::createStringError("--trial-passes: " +
                                   llvm::toString(texts.takeError()));
  return llvm::Error::success();
}

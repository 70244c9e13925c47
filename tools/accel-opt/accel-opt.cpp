//===- accel-opt.cpp - mlir-opt for accel programs ------------------------===//
//
// mlir-opt with the accel dialect and passes, and the upstream dialects and
// passes that frontend programs use (linalg, tensor, affine, bufferization,
// transform; accel/InitAccel.h). One convenience: the metrics file of
// --accel-attach-metrics may be given directly
// (--accel-attach-metrics=metrics.json), which is rewritten to the pass
// option form (--accel-attach-metrics=metrics=metrics.json).
//
// Unlike mlir-opt, -o FILE is written through a temporary file renamed over
// FILE when the run succeeds (accel/Support/Output.h): a failed or killed
// run leaves FILE as it was; a special file (/dev/stdout, a FIFO) is
// written directly.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Frontend/Frontend.h"
#include "accel/Frontend/Passes.h"
#include "accel/InitAccel.h"

#include "accel/Support/Input.h"
#include "accel/Support/Nesting.h"
#include "accel/Support/Output.h"
#include "accel/Version.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <string>
#include <vector>


namespace accel::test {
/// --accel-test-break (test/lib/TestFdoFailures.cpp), for tests.
void registerTestFdoFailuresPass();
/// --accel-test-memory-dependence (test/lib/TestMemoryDependence.cpp).
void registerTestMemoryDependencePass();
} // namespace accel::test

/// Registers the upstream frontend passes, accel's passes (the FDO
/// transforms, the conversions, the frontend) and pipelines. The test-only
/// passes (test/lib) exist when the command line `args` names one
/// (--accel-test-..., or in --pass-pipeline), so --help never lists them, as
/// a user's accel-opt should not offer them.
static void registerPasses(llvm::ArrayRef<std::string> args) {
  accel::registerFrontendPasses();
  accel::registerAccelPasses();
  accel::registerAccelConversionPasses();
  accel::registerAccelFrontendPasses();
  accel::registerFrontendPipeline();
  accel::registerAccelFdoPipeline();
  if (llvm::any_of(args, [](const std::string &a) {
        return a.find("accel-test-") != std::string::npos;
      })) {
    accel::test::registerTestFdoFailuresPass();
    accel::test::registerTestMemoryDependencePass();
  }
}

/// `--accel-attach-metrics=FILE` as `--accel-attach-metrics=metrics=FILE`:
/// the file alone is the pass's one option.
static void expandAttachMetrics(std::vector<std::string> &args) {
  for (std::string &a : args)
    for (const char *prefix :
         {"--accel-attach-metrics=", "-accel-attach-metrics="}) {
      std::string p = prefix;
      if (a.rfind(p, 0) == 0) {
        std::string value = a.substr(p.size());
        if (value.find('=') == std::string::npos && !value.empty() &&
            value.front() != '{')
          a = p + "metrics=" + value;
      }
    }
}

/// Whether `a` asks for the help (`--help`, or `--help-hidden` with the
/// hidden options).
static bool isHelpFlag(llvm::StringRef a) {
  a.consume_front("-");
  a.consume_front("-");
  return a == "help" || a == "help-hidden";
}

/// Prints the registered passes and pipelines in two lists, accel's (every
/// accel pass's argument contains "accel": --accel-..., --convert-...-to-accel;
/// test/accel-opt/help.test checks each generated pass reference's
/// passes are in it) and upstream MLIR's, laid out as MLIR's own pass list
/// (each pass with its options). The lists are the values of MLIR's
/// "Compiler passes to run" option, which the caller hides from LLVM's help.
static void printPassLists(llvm::raw_ostream &os,
                           const llvm::cl::Option &passList) {
  std::vector<llvm::StringRef> names;
  for (auto &kv : llvm::cl::getRegisteredOptions())
    if (kv.second == &passList)
      names.push_back(kv.first);
  llvm::sort(names);
  size_t width = passList.getOptionWidth();
  for (bool accelOnes : {true, false}) {
    os << (accelOnes ? "\naccel passes (--NAME or --pass-pipeline='...'):\n"
                     : "\nUpstream MLIR passes:\n");
    for (bool pipelines : {false, true}) {
      bool first = true;
      for (llvm::StringRef name : names) {
        if (name.contains("accel") != accelOnes)
          continue;
        const mlir::PassRegistryEntry *entry =
            pipelines ? static_cast<const mlir::PassRegistryEntry *>(
                            mlir::PassPipelineInfo::lookup(name))
                      : mlir::PassInfo::lookup(name);
        if (!entry)
          continue;
        if (first)
          os.indent(2) << (pipelines ? "Pipelines:\n" : "Passes:\n");
        first = false;
        os.flush();
        entry->printHelpStr(/*indent=*/4, width);
      }
    }
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  accel::initToolOutputs("accel-opt");
  llvm::cl::AddExtraVersionPrinter(accel::printVersion);
  mlir::DialectRegistry registry;
  accel::registerFrontendDialects(registry);
  std::vector<std::string> args(argv, argv + argc);
  registerPasses(args);
  expandAttachMetrics(args);
  // --help: LLVM's help with the pass list left out, then the pass list in
  // two parts (printPassLists).
  bool help = llvm::any_of(args, isHelpFlag);
  bool helpHidden = llvm::is_contained(args, "--help-hidden") ||
                    llvm::is_contained(args, "-help-hidden");
  llvm::erase_if(args, isHelpFlag);
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  cargs.push_back(nullptr);
  const char *overview =
      "accel optimizer driver: the accel dialect and its passes, with the "
      "upstream dialects and passes of a linalg/affine frontend\n";
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      int(args.size()), cargs.data(), overview, registry);
  if (help) {
    // The overview registerAndParseCLIOptions gave LLVM is gone with its
    // stack frame: parse the program name alone with one that lives on.
    static std::string header;
    header = (llvm::Twine(overview) + "\nAvailable Dialects: " +
              llvm::join(registry.getDialectNames(), ", "))
                 .str();
    llvm::cl::ParseCommandLineOptions(1, cargs.data(), header);
    llvm::cl::Option *passList =
        llvm::cl::getRegisteredOptions().lookup("accel-hoist-dma");
    if (passList)
      passList->setHiddenFlag(llvm::cl::ReallyHidden);
    llvm::cl::PrintHelpMessage(helpHidden, /*Categorized=*/true);
    if (passList)
      printPassLists(llvm::outs(), *passList);
    return 0;
  }
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        int(args.size()), cargs.data(), inputFile, outputFile, registry));
  // Bounded: /dev/zero or a never-ending pipe is an error, not a hang.
  auto read = accel::readInputFile(inputFile, accel::InputKind::Program);
  if (!read) {
    llvm::WithColor::error(llvm::errs(), "accel-opt")
        << "cannot open input file '" << inputFile
        << "': " << llvm::toString(read.takeError()) << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> file = std::move(*read);
  // MLIR's parser recurses per nesting level: refuse what would overflow
  // its stack.
  if (llvm::Error e = accel::checkMlirNesting(file->getBuffer(), inputFile)) {
    llvm::WithColor::error(llvm::errs(), "accel-opt")
        << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  // The run's diagnostics are already printed when it fails: a marker error
  // that only discards the temporary output.
  bool runFailed = false;
  llvm::Error e = accel::writeOutput(outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
    if (mlir::failed(
            mlir::MlirOptMain(os, std::move(file), registry, config))) {
      runFailed = true;
      return llvm::createStringError("the run failed");
    }
    return llvm::Error::success();
  });
  if (!e)
    return 0;
  std::string why = llvm::toString(std::move(e));
  if (!runFailed)
    llvm::WithColor::error(llvm::errs(), "accel-opt") << why << "\n";
  return 1;
}

//===- accel-translate.cpp - Translations to and from accel machine code --===//
//
// mlir-translate's command line (a flag per translation, registered with
// upstream's TranslateRegistration; -o, --split-input-file,
// --verify-diagnostics) with accel's translations:
//
//   accel-translate --mlir-to-accel-asm   FILE.mlir [-o F.lst]  listing
//   accel-translate --mlir-to-accel-image FILE.mlir -o F.bin    binary image
//   accel-translate --mlir-to-accel       FILE.mlir [-o F.mlir] frontend output
//   accel-translate --accel-image-to-asm  F.bin [-o F.lst]      disassembly
//
// An MLIR input goes through what `accel-replay run` does before it runs
// (accel/Fdo/Load.h): the chips it asks for, the frontend on linalg,
// tensor or affine input with the config's tile sizes, op ids; then the
// lowering (lib/Target/AccelToISA) of --entry with the config's
// capacities. The image and listing formats are in docs/isa.md.
//
// The output is written as accel's tools write files (accel/Support/
// Output.h): to a temporary beside -o, renamed at the end, so a failed or
// killed translation leaves no partial file; mlirTranslateMain's output
// file would abort on a full disk instead.
//
// Exit codes: 0 success; 1 bad input (a diagnostic with its location, or
// one error line) or an output that cannot be written.
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/Load.h"
#include "accel/Fdo/Run.h"
#include "accel/ISA/Isa.h"
#include "accel/InitAccel.h"
#include "accel/Target/AccelToISA.h"
#include "accel/Version.h"

#include "accel/Support/Input.h"
#include "accel/Support/Output.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace accel;
namespace cl = llvm::cl;

static cl::OptionCategory category("accel-translate options");
static cl::opt<std::string>
    configFile("config",
               cl::desc("Machine config JSON overriding the embedded default "
                        "(docs/config.md): the VMEM and HBM capacities, the "
                        "VMEM page and the MXU shape the frontend tiles for"),
               cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("Function to lower (default: "
                                               "main, or the only function)"),
                                      cl::value_desc("name"),
                                      cl::cat(category));

static LogicalResult fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "accel-translate") << msg << "\n";
  return failure();
}

/// The input as the program accel-replay runs: parsed, chips adopted, the
/// frontend run, op ids assigned. `config` is --config's, with the chips
/// of the program. nullptr after an error.
static OwningOpRef<ModuleOp> loadProgram(llvm::SourceMgr &sourceMgr,
                                         MLIRContext *context,
                                         sim::MachineConfig &config) {
  DialectRegistry registry;
  registerFrontendDialects(registry);
  context->appendDialectRegistry(registry);
  loadAccelDialects(*context);
  auto loaded = loadMachineConfig(configFile);
  if (!loaded) {
    (void)fail(llvm::toString(loaded.takeError()));
    return nullptr;
  }
  config = std::move(*loaded);
  OwningOpRef<ModuleOp> module;
  if (llvm::Error e = parseProgram(*context, sourceMgr, module)) {
    (void)fail(llvm::toString(std::move(e)));
    return nullptr;
  }
  if (!module || failed(prepareProgram(*module, config)))
    return nullptr;
  return module;
}

/// loadProgram, then the lowering; failure after an error.
static FailureOr<isa::Program> lowerProgram(llvm::SourceMgr &sourceMgr,
                                            MLIRContext *context) {
  sim::MachineConfig config;
  OwningOpRef<ModuleOp> module = loadProgram(sourceMgr, context, config);
  if (!module)
    return failure();
  return lowerToIsa(*module, getLoweringOptions(config, entryName));
}

/// Registers a translation that lowers its MLIR input (lowerProgram) and
/// writes the program with `emit`.
static void registerLowering(llvm::StringRef name, llvm::StringRef description,
                             void (*emit)(const isa::Program &,
                                          llvm::raw_ostream &)) {
  TranslateRegistration(
      name, description,
      [emit](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
             llvm::raw_ostream &os, MLIRContext *context) -> LogicalResult {
        FailureOr<isa::Program> program = lowerProgram(*sourceMgr, context);
        if (failed(program))
          return failure();
        emit(*program, os);
        return success();
      });
}

static void registerTranslations() {
  registerLowering("mlir-to-accel-asm",
                   "Lower an accel (or linalg, tensor, affine) program and "
                   "print its assembler listing",
                   [](const isa::Program &program, llvm::raw_ostream &os) {
                     program.printListing(os);
                   });
  registerLowering("mlir-to-accel-image",
                   "Lower an accel (or linalg, tensor, affine) program to its "
                   "binary image (ACCELBIN, docs/isa.md)",
                   [](const isa::Program &program, llvm::raw_ostream &os) {
                     std::vector<uint8_t> image = program.toImage();
                     os.write(reinterpret_cast<const char *>(image.data()),
                              image.size());
                   });
  static TranslateRegistration toAccel(
      "mlir-to-accel",
      "Print the accel program that run and fdo lower: the frontend's "
      "output for a linalg, tensor or affine input, with the op ids that "
      "metrics.json and report.txt name",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &os, MLIRContext *context) -> LogicalResult {
        sim::MachineConfig config;
        OwningOpRef<ModuleOp> module = loadProgram(*sourceMgr, context, config);
        if (!module)
          return failure();
        module->print(os, OpPrintingFlags().enableDebugInfo(true, false));
        os << "\n";
        return success();
      });
  static TranslateRegistration imageToAsm(
      "accel-image-to-asm",
      "Print the assembler listing of a binary image (disassembly)",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &os, MLIRContext *) -> LogicalResult {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        llvm::ArrayRef<uint8_t> bytes(
            reinterpret_cast<const uint8_t *>(buffer->getBufferStart()),
            buffer->getBufferSize());
        auto program = isa::Program::fromImage(bytes);
        if (!program)
          return fail(buffer->getBufferIdentifier() + ": " +
                      llvm::toString(program.takeError()));
        program->printListing(os);
        return success();
      });
}

/// Hides every option registered so far from --help: libLLVM's own (code
/// generation for other targets, ...), as are those of the MLIR printer
/// and context registered after it.
static void hideLibraryOptions() {
  for (auto &entry : cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    if (!name.starts_with("help") && name != "version")
      entry.second->setHiddenFlag(cl::ReallyHidden);
  }
}

/// Runs `translation` on `inputFile` (each chunk between `splitMarker`
/// lines on its own when it is not empty; with `verifyDiagnostics`, the
/// diagnostics checked against the input's expected-* comments) and writes
/// the result to `outputFile` whole, or nothing when it fails. The exit
/// code: 0, or 1 after the diagnostics or an error.
static int runTranslation(const Translation &translation,
                          llvm::StringRef inputFile, llvm::StringRef outputFile,
                          llvm::StringRef splitMarker, bool verifyDiagnostics) {
  // Bounded: /dev/zero or a never-ending pipe is an error, not a hang.
  auto read = readInputFile(inputFile, InputKind::Program);
  if (!read) {
    (void)fail("cannot open input file '" + inputFile +
               "': " + llvm::toString(read.takeError()));
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input = std::move(*read);
  auto processChunk = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                          const llvm::MemoryBufferRef &,
                          llvm::raw_ostream &os) -> LogicalResult {
    MLIRContext context;
    context.printOpOnDiagnostic(false);
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
    if (!verifyDiagnostics) {
      SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
      return translation(sourceMgr, os, &context);
    }
    SourceMgrDiagnosticVerifierHandler handler(*sourceMgr, &context);
    (void)translation(sourceMgr, os, &context);
    return handler.verify();
  };
  // The translation's diagnostics are printed when it fails: a marker
  // error that only discards the temporary output.
  bool translationFailed = false;
  llvm::Error e =
      writeOutput(outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
        LogicalResult result =
            splitMarker.empty()
                ? processChunk(std::move(input), llvm::MemoryBufferRef(), os)
                : splitAndProcessBuffer(std::move(input), processChunk, os,
                                        splitMarker, kDefaultSplitMarker);
        if (succeeded(result))
          return llvm::Error::success();
        translationFailed = true;
        return llvm::createStringError("the translation failed");
      });
  if (!e)
    return 0;
  std::string why = llvm::toString(std::move(e));
  if (!translationFailed)
    (void)fail(why);
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  accel::initToolOutputs("accel-translate");
  cl::AddExtraVersionPrinter(accel::printVersion);
  hideLibraryOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerTranslations();
  static cl::opt<const Translation *, false, TranslationParser> translation(
      "", cl::desc("Translation to perform"), cl::cat(category));
  static cl::opt<std::string> inputFile(cl::Positional,
                                        cl::desc("<input file>"), cl::init("-"),
                                        cl::cat(category));
  static cl::opt<std::string> outputFile(
      "o", cl::desc("Output file (default: stdout)"), cl::value_desc("file"),
      cl::init("-"), cl::cat(category));
  static cl::opt<std::string> splitInputFile(
      "split-input-file", cl::ValueOptional,
      cl::callback([&](const std::string &str) {
        // As mlir-translate: the flag alone splits on "// -----".
        if (str.empty())
          splitInputFile.setValue(kDefaultSplitMarker);
      }),
      cl::desc("Translate each chunk of the input between marker lines "
               "(default '// -----') on its own"),
      cl::init(""), cl::cat(category));
  static cl::opt<bool> verifyDiagnostics(
      "verify-diagnostics",
      cl::desc("Check the diagnostics against the input's expected-* "
               "comments (lit tests)"),
      cl::init(false), cl::cat(category));
  cl::ParseCommandLineOptions(
      argc, argv,
      "accel-translate: translations between accel programs (MLIR) and "
      "accel machine code (listings and binary images)\n");

  if (!translation) {
    (void)fail("no translation chosen: give one of --mlir-to-accel-asm, "
               "--mlir-to-accel-image, --mlir-to-accel, --accel-image-to-asm "
               "(see --help)");
    return 1;
  }
  return runTranslation(*translation, inputFile, outputFile, splitInputFile,
                        verifyDiagnostics);
}

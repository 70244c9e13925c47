//===- accel-gen.cpp - Random accel programs and machine configs ----------===//
//
//   accel-gen --seed N [--size S] [--drop=I,J] [-o prog.mlir]
//             [--config-out cfg.json] [--list]
//
// Writes a valid accel program (deterministic for a seed) and, with
// --config-out, the machine config it targets (docs/testing.md). --drop
// leaves top-level statements of the plan out, for test-case reduction.
// Exit codes: 0 success; 1 bad arguments, an unwritable output, or a
// generated program that fails the verifier (a generator bug).
//
//===----------------------------------------------------------------------===//

#include "accel/Gen/ProgramGenerator.h"
#include "accel/InitAccel.h"
#include "accel/Version.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

static llvm::cl::OptionCategory category("accel-gen options");
static llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Random seed"),
                                    llvm::cl::init(0),
                                    llvm::cl::cat(category));
static llvm::cl::opt<unsigned>
    size("size",
         llvm::cl::desc("Scales the number of statements and the loop trip "
                        "counts (>= 1, default 2)"),
         llvm::cl::init(2), llvm::cl::cat(category));
static llvm::cl::list<unsigned>
    drop("drop",
         llvm::cl::desc("Top-level statements of the plan to leave out "
                        "(comma-separated indices)"),
         llvm::cl::CommaSeparated, llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    outputFile("o", llvm::cl::desc("Output program (default: stdout)"),
               llvm::cl::value_desc("file"), llvm::cl::init("-"),
               llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    configOut("config-out",
              llvm::cl::desc("Write the machine config (JSON) to this file"),
              llvm::cl::value_desc("file"), llvm::cl::cat(category));
static llvm::cl::opt<bool> allocInLoops(
    "alloc-in-loops",
    llvm::cl::desc("Put some accel.alloc ops inside loops, as upstream copy "
                   "generation does (default true)"),
    llvm::cl::init(true), llvm::cl::cat(category));
static llvm::cl::opt<bool>
    bf16("bf16",
         llvm::cl::desc("Make about a quarter of the statements bf16 instead "
                        "of f32 (default true)"),
         llvm::cl::init(true), llvm::cl::cat(category));
static llvm::cl::opt<bool>
    listPlan("list",
             llvm::cl::desc("Print the plan's statements on stderr"),
             llvm::cl::cat(category));

static int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "accel-gen") << msg << "\n";
  return 1;
}

static int writeText(llvm::StringRef path,
                     llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::string err;
  auto file = openOutputFile(path, &err);
  if (!file)
    return fail(err);
  write(file->os());
  file->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::AddExtraVersionPrinter(accel::printVersion);
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "accel-gen: random accel programs for differential testing\n");
  if (size < 1)
    return fail("--size must be at least 1");

  DialectRegistry registry;
  accel::registerAccelDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  accel::gen::GenOptions options;
  options.seed = seed;
  options.size = size;
  options.drop.assign(drop.begin(), drop.end());
  options.allocInLoops = allocInLoops;
  options.bf16 = bf16;
  auto program = accel::gen::generateProgram(ctx, options);
  if (failed(program))
    return fail("seed " + llvm::Twine(seed) +
                ": the generated program does not verify (a generator bug)");

  if (listPlan)
    for (const std::string &line : program->summary)
      llvm::errs() << line << "\n";
  std::string dropText;
  for (unsigned d : drop)
    dropText += (dropText.empty() ? "" : ",") + std::to_string(d);
  if (int rc = writeText(outputFile, [&](llvm::raw_ostream &os) {
        os << "// accel-gen --seed " << seed << " --size " << size;
        if (!allocInLoops)
          os << " --alloc-in-loops=false";
        if (!bf16)
          os << " --bf16=false";
        if (!dropText.empty())
          os << " --drop=" << dropText;
        os << "\n// statements: " << program->numStatements << "\n";
        for (const std::string &line : program->summary)
          os << "// " << line << "\n";
        program->module->print(os);
      }))
    return rc;
  if (!configOut.empty())
    if (int rc = writeText(configOut, [&](llvm::raw_ostream &os) {
          os << program->machine.toJson(seed);
        }))
      return rc;
  return 0;
}

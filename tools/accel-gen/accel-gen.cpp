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
#include "accel/Support/Output.h"
#include "accel/Version.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

static llvm::cl::OptionCategory category("accel-gen options");
/// The largest --size.
static constexpr uint64_t kMaxSize = 1000;
static llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Random seed"),
                                    llvm::cl::init(0),
                                    llvm::cl::cat(category));
// 64-bit, so that a value past 2^32 gets the range check below rather
// than llvm::cl's unsigned parser.
static llvm::cl::opt<uint64_t>
    size("size",
         llvm::cl::desc("Scales the number of statements and the loop trip "
                        "counts (1 to 1000, default 2)"),
         llvm::cl::init(2), llvm::cl::cat(category));
static llvm::cl::list<uint64_t>
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

/// Writes `path` ("-": stdout) by the output rule (accel/Support/Output.h:
/// a temporary beside it, renamed into place); the exit code.
static int writeText(llvm::StringRef path,
                     llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (llvm::Error e = accel::writeOutput(path, [&](llvm::raw_ostream &os) {
        write(os);
        return llvm::Error::success();
      }))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  accel::initToolOutputs("accel-gen");
  llvm::cl::AddExtraVersionPrinter(accel::printVersion);
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "accel-gen: random accel programs for differential testing\n");
  // A plan has 2 to 2 + size statements, each with an equal share of VMEM:
  // past 1000 they no longer fit (and 2 + size would wrap).
  if (size < 1 || size > kMaxSize)
    return fail("--size must be in [1, " + llvm::Twine(kMaxSize) +
                "]; got " + llvm::Twine(uint64_t(size)));

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
  // A statement that is not in the plan cannot be left out.
  for (uint64_t d : drop)
    if (d >= program->numStatements)
      return fail("--drop: statement " + llvm::Twine(d) +
                  " is not in the plan: seed " + llvm::Twine(seed) +
                  " with --size " + llvm::Twine(uint64_t(size)) + " has " +
                  llvm::Twine(program->numStatements) +
                  " statements, 0 to " +
                  llvm::Twine(program->numStatements - 1));

  if (listPlan)
    for (const std::string &line : program->summary)
      llvm::errs() << line << "\n";
  std::string dropText;
  for (uint64_t d : drop)
    dropText += (dropText.empty() ? "" : ",") + std::to_string(d);
  if (int rc = writeText(outputFile, [&](llvm::raw_ostream &os) {
        os << "// accel-gen --seed " << seed << " --size " << size;
        if (!allocInLoops)
          os << " --alloc-in-loops=false";
        if (!bf16)
          os << " --bf16=false";
        if (!dropText.empty())
          os << " --drop=" << dropText;
        os << "\n// statements: " << program->numStatements
           << (program->vmemTight ? " (VMEM-tight: 7/8 of VMEM)" : "") << "\n";
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

//===- FdoLoop.cpp - The feedback-directed optimization loop --------------===//
//
// The feedback-directed loop of `accel-replay fdo` (README.md): run, attach the
// metrics, apply the FDO passes, check the result, re-run while it gets faster;
// each iteration's outputs, failures and reproducers.
//
// The pass instrumentation that counts each pass's changes, and FdoDriver,
// whose steps (transform, trial, execute, compare) share one iteration's
// state. The pipelines' parsing is FdoPipelines.cpp; fdo.json and the
// result's accessors FdoResult.cpp.
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/FdoLoop.h"
#include "FdoPipelines.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Profile/DmaTable.h"
#include "accel/Support/Json.h"
#include "accel/Support/Output.h"
#include "accel/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <mutex>

using namespace mlir;
using namespace accel;
using json = nlohmann::json;

namespace {
/// Sums what each accel pass reports of its runs (ReportsChanges; a pass
/// cloned for a nested pipeline reports per clone), keyed by pass argument.
class ChangeCollector : public PassInstrumentation {
public:
  void runAfterPass(Pass *pass, Operation *) override { collect(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { collect(pass); }

  /// Count name -> summed value, in declaration order.
  std::vector<std::pair<std::string, uint64_t>> take(llvm::StringRef arg) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sums.find(arg);
    if (it == sums.end())
      return {};
    auto r = std::move(it->second);
    sums.erase(it);
    return r;
  }

private:
  void collect(Pass *pass) {
    auto *reporter = dynamic_cast<const ReportsChanges *>(pass);
    if (!reporter)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    auto &sum = sums[pass->getArgument()];
    for (auto [i, count] : llvm::enumerate(reporter->getLastRunCounts())) {
      if (i == sum.size())
        sum.push_back({count.first, 0});
      sum[i].second += count.second;
    }
  }

  std::mutex mutex;
  llvm::StringMap<std::vector<std::pair<std::string, uint64_t>>> sums;
};

/// `file:line:col` for a file location (as the LLVM tools print them),
/// else MLIR's form.
std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
            ":" + llvm::Twine(file.getColumn()))
        .str();
  if (auto named = dyn_cast<NameLoc>(loc))
    return formatLocation(named.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    return formatLocation(fused.getLocations().front());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

/// Collects the text of the diagnostics emitted while it lives.
class DiagnosticCapture {
public:
  DiagnosticCapture(MLIRContext *context)
      : handler(context, [this](Diagnostic &d) {
          if (d.getSeverity() != DiagnosticSeverity::Error)
            return success(); // remarks and warnings: not failures
          if (!text.empty())
            text += "\n";
          llvm::raw_string_ostream os(text);
          os << formatLocation(d.getLocation()) << ": error: " << d;
          for (Diagnostic &note : d.getNotes())
            os << "\n"
               << formatLocation(note.getLocation()) << ": note: " << note;
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// Runs `fn` and reports whether it returned without a crash; a signal in
/// it (a pass or the verifier dereferencing invalid IR) is caught.
bool runSafely(llvm::function_ref<void()> fn) {
  static std::once_flag enabled;
  std::call_once(enabled, [] { llvm::CrashRecoveryContext::Enable(); });
  llvm::CrashRecoveryContext crc;
  return crc.RunSafely(fn);
}

/// Removes what one iteration's passes and metrics leave on the ops, so the
/// next iteration starts from its program and fresh metrics. `accel.pinned`
/// stays: it marks resident buffers and their loads, which later pins
/// reuse.
void clearFeedback(ModuleOp module) {
  module->walk([](Operation *op) {
    for (llvm::StringRef name :
         {"accel.hoisted", "accel.sunk", "accel.parallelized",
          "accel.pipelined", "accel.renamed", "accel.suggestions",
          "accel.backtail", "accel.min_slack", "accel.transfer_cycles",
          "accel.dma_cycles"})
      op->removeAttr(name);
  });
}

std::string iterationDir(llvm::StringRef dir, unsigned it) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, "iter" + std::to_string(it));
  return std::string(p);
}

/// Keeps a module that a crashed pass or invalid IR may have left in a state
/// its destructor cannot handle: it is never destroyed, and it stays
/// reachable from this list so that LeakSanitizer does not report it (the
/// list itself is never destroyed: LeakSanitizer checks after the static
/// destructors have run).
void abandonModule(OwningOpRef<ModuleOp> module) {
  static auto *abandoned = new std::vector<Operation *>();
  abandoned->push_back(module.release().getOperation());
}

/// What decides a run of `program` on the loop's machine and inputs: its
/// binary image (code, origins, buffers and their data, loops; docs/isa.md),
/// as a 128-bit hash and its size. Two programs with equal keys run alike
/// (the simulator is deterministic), whatever feedback attributes their
/// modules carried.
std::string getRunKey(const isa::Program &program) {
  std::vector<uint8_t> image = program.toImage();
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(image);
  return llvm::utohexstr(h.high64) + llvm::utohexstr(h.low64) + ":" +
         std::to_string(image.size());
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(true, false));
  return text;
}
} // namespace

namespace {
/// The loop's state between iterations.
class FdoDriver {
public:
  FdoDriver(ModuleOp input, const sim::MachineConfig &config,
            const FdoOptions &options)
      : input(input), context(input.getContext()), config(config),
        options(options) {}

  llvm::Expected<FdoResult> run();

private:
  /// Runs the passes `texts` on `module`, recording each in `runs`; on a
  /// rejected pass sets `it.failure`.
  void transform(llvm::ArrayRef<std::string> texts, ModuleOp module,
                 FdoIteration &it, std::vector<FdoPassRun> &runs);
  /// Gives new ops (second buffers, cloned DMAs) op ids; on failure sets
  /// `it.failure`.
  void assignOpIds(ModuleOp module, FdoIteration &it);
  /// A run and the key (getRunKey) of the program that ran. Kept for the
  /// best program so far without its timeline and HBM pages (memory in
  /// proportion to the run; a reused run is not compared again):
  /// `timelineFile` then names the timeline.json written for it, if any.
  struct KeyedRun {
    std::string key;
    RunResult result;
    std::string timelineFile;
  };
  /// transform, assignOpIds and execute, stopping at the first failure
  /// (in `it.failure`). Returns the run, if there was one.
  std::optional<KeyedRun> transformAndExecute(llvm::ArrayRef<std::string> texts,
                                              ModuleOp module, FdoIteration &it,
                                              std::vector<FdoPassRun> &runs,
                                              const KeyedRun *same);
  /// Runs the trial passes on a copy of `program` (transformed and run as
  /// `it`, with run `r`), lowers and runs the copy, and makes it the
  /// iteration's program if it is faster. A failing trial sets `it.failure`.
  void runTrial(OwningOpRef<ModuleOp> &program, FdoIteration &it,
                std::optional<KeyedRun> &r);
  /// Lowers, runs and compares `module`; fills `it`. Returns the run, or
  /// nullopt with `it.failure` set. A program that does not lower, faults
  /// or ends with other results gets a reproducer. When `same` ran a
  /// program with the same key (the passes changed nothing that lowering
  /// reads), its run is reused instead of simulated again: an equal program
  /// runs alike.
  std::optional<KeyedRun> execute(ModuleOp module, FdoIteration &it,
                                  const KeyedRun *same);
  /// With an output directory: writes iteration `index`'s reproducer.mlir,
  /// the comment lines `header` (each line prefixed with "// ") and then
  /// `module`, and records its path in `failure`. A write that fails leaves
  /// the path empty (the failure itself is what the loop reports).
  void writeReproducer(unsigned index, llvm::StringRef header, ModuleOp module,
                       FdoFailure &failure);
  llvm::Error writeIteration(const FdoIteration &it, const KeyedRun *r,
                             ModuleOp module);
  /// What lowerAndRun produced: the run (reused when `reused`), or the
  /// failure (lowering or a fault).
  struct Outcome {
    std::optional<KeyedRun> keyed;
    std::optional<FdoFailure> failure;
    bool reused = false;
  };
  /// execute's first step: lowers `module` and runs it, or reuses `same`'s
  /// run when the program's key is the same.
  Outcome lowerAndRun(ModuleOp module, FdoIteration &it, const KeyedRun *same);
  /// "The FDO loop's iteration N's program" (or trial program), for a
  /// reproducer's header.
  std::string describeProgram(const FdoIteration &it) const;
  /// The loop's state between iterations: the best program so far, its
  /// run (an iteration whose passes change nothing reuses it) and cycles.
  struct State {
    OwningOpRef<ModuleOp> current;
    std::optional<KeyedRun> currentRun;
    uint64_t bestCycles = 0;
  };
  /// Parses the pipelines and gives the input op ids. Errors: a bad
  /// pipeline, an input the op id pass rejects.
  llvm::Error prepare();
  /// Iteration `it.index` on `program` (a copy of the best program so
  /// far): iteration 0 runs it; a later one attaches the previous run's
  /// metrics, transforms and runs (reusing `currentRun` when nothing
  /// changed). Errors: metrics that cannot be attached.
  llvm::Expected<std::optional<KeyedRun>>
  runIteration(FdoIteration &it, ModuleOp program, const FdoResult &result,
               const KeyedRun *currentRun);
  /// Makes the last iteration of `result` (program `program`, run `r`) the
  /// best so far; its run is kept without its timeline and HBM pages.
  void keepBest(FdoResult &result, OwningOpRef<ModuleOp> program,
                std::optional<KeyedRun> r, State &state);
  /// With an output directory: best.mlir and fdo.json.
  llvm::Error writeResult(FdoResult &result);

  ModuleOp input;
  MLIRContext *context;
  const sim::MachineConfig &config;
  const FdoOptions &options;
  std::vector<std::string> passTexts, trialTexts;
  /// "trial: " while the trial passes' candidate is transformed and run.
  const char *stepPrefix = "";
  void step(const FdoIteration &it, llvm::StringRef what) {
    if (options.onStep)
      options.onStep(it.index, (stepPrefix + what).str());
  }
  std::shared_ptr<const std::map<uint64_t, std::vector<uint8_t>>> baselineHbm;
  std::vector<isa::Buffer> baselineBuffers;
};
} // namespace

void FdoDriver::transform(llvm::ArrayRef<std::string> texts, ModuleOp module,
                          FdoIteration &it, std::vector<FdoPassRun> &runs) {
  for (const std::string &text : texts) {
    PassManager pm(context);
    // Parsed before: cannot fail here.
    (void)parsePassPipeline(text, pm);
    // A nested pipeline (func.func(...)) has no argument of its own: the
    // name is that of the pass it runs.
    std::string arg = accel::detail::getPassArgument(text);
    std::string name = arg.empty() ? text : arg;
    // The verifier runs below, on its own, so that a failure names it.
    pm.enableVerifier(false);
    auto collector = std::make_unique<ChangeCollector>();
    ChangeCollector *stats = collector.get();
    pm.addInstrumentation(std::move(collector));
    // The IR this pass receives, for a reproducer if it fails.
    OwningOpRef<ModuleOp> before = module.clone();
    std::optional<FdoFailure> failure;
    {
      DiagnosticCapture capture(context);
      LogicalResult result = mlir::failure();
      if (!runSafely([&] { result = pm.run(module); }))
        failure = FdoFailure{FdoFailure::Kind::Crash, name,
                             "the pass crashed (signal caught)", ""};
      else if (failed(result))
        failure = FdoFailure{FdoFailure::Kind::Pass, name, capture.text, ""};
      else {
        LogicalResult verified = mlir::failure();
        if (!runSafely([&] { verified = verify(module); }))
          failure = FdoFailure{FdoFailure::Kind::Crash, name,
                               "the verifier crashed on the pass's output "
                               "(signal caught)",
                               ""};
        else if (failed(verified))
          failure =
              FdoFailure{FdoFailure::Kind::Verify, name, capture.text, ""};
      }
    }
    FdoPassRun run;
    run.name = name;
    run.statistics = stats->take(arg);
    if (!run.statistics.empty())
      run.changes = run.statistics.front().second;
    runs.push_back(std::move(run));
    if (failure) {
      // The reproducer: the pass's input and the pipeline to run on it.
      writeReproducer(it.index,
                      "The FDO loop's iteration " + std::to_string(it.index) +
                          " failed in this pass:\n"
                          "  accel-opt reproducer.mlir "
                          "--pass-pipeline='builtin.module(" +
                          text + ")'",
                      *before, *failure);
      it.failure = std::move(failure);
      return;
    }
  }
}

void FdoDriver::writeReproducer(unsigned index, llvm::StringRef header,
                                ModuleOp module, FdoFailure &failure) {
  if (options.outputDir.empty())
    return;
  llvm::SmallString<256> p(iterationDir(options.outputDir, index));
  llvm::sys::path::append(p, "reproducer.mlir");
  std::string text;
  llvm::SmallVector<llvm::StringRef> lines;
  header.split(lines, '\n');
  for (llvm::StringRef line : lines)
    text += ("// " + line + "\n").str();
  text += printModule(module);
  if (!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(p)) &&
      !writeOutput(p, text))
    failure.reproducer = std::string(p);
}

void FdoDriver::assignOpIds(ModuleOp module, FdoIteration &it) {
  PassManager pm(context);
  pm.addPass(createAccelAssignOpIds());
  DiagnosticCapture capture(context);
  if (failed(pm.run(module)))
    it.failure = FdoFailure{FdoFailure::Kind::Pass, "accel-assign-op-ids",
                            capture.text, ""};
}

std::optional<FdoDriver::KeyedRun> FdoDriver::transformAndExecute(
    llvm::ArrayRef<std::string> texts, ModuleOp module, FdoIteration &it,
    std::vector<FdoPassRun> &runs, const KeyedRun *same) {
  step(it, "transforming");
  transform(texts, module, it, runs);
  if (!it.failure)
    assignOpIds(module, it);
  if (it.failure)
    return std::nullopt;
  return execute(module, it, same);
}

void FdoDriver::runTrial(OwningOpRef<ModuleOp> &program, FdoIteration &it,
                         std::optional<KeyedRun> &r) {
  OwningOpRef<ModuleOp> candidate = program->clone();
  FdoIteration trial;
  trial.index = it.index;
  stepPrefix = "trial: ";
  std::optional<KeyedRun> tr = transformAndExecute(
      trialTexts, *candidate, trial, it.trialPasses, r ? &*r : nullptr);
  stepPrefix = "";
  if (trial.failure) {
    // As for any pass: the iteration is rejected and the loop stops.
    if (trial.failure->kind == FdoFailure::Kind::Crash ||
        trial.failure->kind == FdoFailure::Kind::Verify)
      abandonModule(std::move(candidate));
    if (trial.failure->pass.empty())
      trial.failure->message = "the trial passes' program (" +
                               llvm::join(trialTexts, ",") +
                               "): " + trial.failure->message;
    it.failure = std::move(trial.failure);
    if (trial.ran)
      it.trialCycles = trial.totalCycles;
    return;
  }
  it.trialCycles = trial.totalCycles;
  if (trial.totalCycles >= it.totalCycles)
    return;
  // The candidate is faster: it becomes the iteration's program.
  it.trialKept = true;
  for (const FdoPassRun &p : it.trialPasses)
    it.passes.push_back(p);
  it.totalCycles = trial.totalCycles;
  it.instructions = trial.instructions;
  it.dmaStallBaseCycles = trial.dmaStallBaseCycles;
  it.dmaStallTransferCycles = trial.dmaStallTransferCycles;
  it.mxuUtilization = trial.mxuUtilization;
  it.vmemBytes = trial.vmemBytes;
  it.resultsMatch = trial.resultsMatch;
  it.metrics = std::move(trial.metrics);
  it.dmas = std::move(trial.dmas);
  program = std::move(candidate);
  r = std::move(tr);
}

FdoDriver::Outcome FdoDriver::lowerAndRun(ModuleOp module, FdoIteration &it,
                                          const KeyedRun *same) {
  Outcome o;
  DiagnosticCapture capture(context);
  llvm::Expected<isa::Program> program =
      lowerModule(module, config, options.run.entry);
  if (!program) {
    llvm::consumeError(program.takeError());
    o.failure =
        FdoFailure{FdoFailure::Kind::Lower, "",
                   capture.text.empty() ? "lowering failed" : capture.text, ""};
    return o;
  }
  std::string key = getRunKey(*program);
  // Only a run whose results matched is kept for reuse (the loop stops at a
  // mismatch; a trial follows a matching run).
  o.reused = same && same->key == key;
  if (o.reused) {
    step(it, "unchanged program: reusing its run");
    o.keyed = *same;
    return o;
  }
  step(it, "running");
  // Iteration 0 may stop at the budget (a truncated run); a later one that
  // goes past it faults.
  RunOptions runOptions = options.run;
  runOptions.stopAtBudget = it.index == 0;
  llvm::Expected<RunResult> run =
      simulateProgram(std::move(*program), config, runOptions);
  if (run)
    o.keyed = KeyedRun{std::move(key), std::move(*run), ""};
  else
    o.failure = FdoFailure{FdoFailure::Kind::Fault, "",
                           llvm::toString(run.takeError()), ""};
  return o;
}

/// The iteration's numbers from its run `r`.
static void fillIteration(FdoIteration &it, const RunResult &r) {
  it.ran = true;
  it.truncated = r.summary.truncated;
  it.totalCycles = r.summary.totalCycles;
  it.instructions = r.summary.instructions;
  const json &m = *r.metrics;
  it.dmaStallBaseCycles = m["dma_stall_cycles"]["base"];
  it.dmaStallTransferCycles = m["dma_stall_cycles"]["transfer"];
  if (m.contains("units"))
    it.mxuUtilization = m["units"]["mxu"]["utilization"];
  it.vmemBytes = getPeakVmemBytes(r.program);
  it.metrics = r.metrics;
  it.dmas = r.dmas;
}

/// What attachMetrics reads of an iteration's "dmas".
static std::vector<DmaTimes> getDmaTimes(const FdoIteration &it) {
  std::vector<DmaTimes> times;
  if (!it.dmas)
    return times;
  for (const profile::DmaRow &row : it.dmas->getRows()) {
    const isa::Origin *o = it.dmas->getOrigin(row.record.issuePc);
    const sim::DmaTiming &t = row.record.timing;
    times.push_back({o ? int64_t(o->opId) : 0, int64_t(t.issue),
                     int64_t(t.transferStart), int64_t(t.complete)});
  }
  return times;
}

std::string FdoDriver::describeProgram(const FdoIteration &it) const {
  return llvm::StringRef(stepPrefix).empty()
             ? "The FDO loop's iteration " + std::to_string(it.index) +
                   "'s program"
             : "The FDO loop's iteration " + std::to_string(it.index) +
                   "'s trial program (" + llvm::join(trialTexts, ",") + ")";
}

std::optional<FdoDriver::KeyedRun>
FdoDriver::execute(ModuleOp module, FdoIteration &it, const KeyedRun *same) {
  Outcome o = lowerAndRun(module, it, same);
  // The program as it was lowered, and how to see the failure again.
  std::string origin = describeProgram(it);
  std::string rerun = "Run it with the fdo command's --config, --input and "
                      "--max-instructions options:\n"
                      "  accel-replay run reproducer.mlir";
  if (o.failure) {
    writeReproducer(it.index,
                    origin +
                        (o.failure->kind == FdoFailure::Kind::Lower
                             ? " did not lower:\n"
                             : " faulted:\n") +
                        o.failure->message + "\n" + rerun,
                    module, *o.failure);
    it.failure = std::move(o.failure);
    return std::nullopt;
  }
  const RunResult &r = o.keyed->result;
  fillIteration(it, r);
  if (it.index == 0) {
    baselineHbm = r.hbm;
    baselineBuffers = r.program.buffers;
  }
  std::optional<uint64_t> diff;
  if (!o.reused)
    diff = sim::compareHbm(*baselineHbm, *r.hbm, baselineBuffers);
  it.resultsMatch = !diff;
  if (diff) {
    it.failure = FdoFailure{FdoFailure::Kind::Mismatch, "",
                            "final HBM differs from iteration 0 at HBM "
                            "address 0x" +
                                llvm::utohexstr(*diff),
                            ""};
    writeReproducer(it.index,
                    origin + " ends with other results than iteration 0:\n" +
                        it.failure->message + "\n" + rerun +
                        "\nand compare its hbm hash with iteration 0's "
                        "(iter0/metrics.json)",
                    module, *it.failure);
  }
  return std::move(o.keyed);
}

llvm::Error FdoDriver::writeIteration(const FdoIteration &it, const KeyedRun *r,
                                      ModuleOp module) {
  if (options.outputDir.empty() || !r)
    return llvm::Error::success();
  std::string dir = iterationDir(options.outputDir, it.index);
  if (auto e = writeRunOutputs(dir, r->result, module))
    return e;
  if (r->result.timeline || r->timelineFile.empty())
    return llvm::Error::success();
  // A reused run: the timeline of its program, as written for it.
  auto text = llvm::MemoryBuffer::getFile(r->timelineFile);
  if (!text)
    return llvm::createStringError("cannot read '%s': %s",
                                   r->timelineFile.c_str(),
                                   text.getError().message().c_str());
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "timeline.json");
  return writeOutput(path, (*text)->getBuffer());
}

llvm::Error FdoDriver::prepare() {
  auto texts = getFdoPassPipelines(context, options, config);
  if (!texts)
    return texts.takeError();
  passTexts = std::move(*texts);
  auto trials = getFdoTrialPipelines(context, options);
  if (!trials)
    return trials.takeError();
  trialTexts = std::move(*trials);
  PassManager pm(context);
  pm.addPass(createAccelAssignOpIds());
  DiagnosticCapture capture(context);
  if (failed(pm.run(input)))
    return llvm::createStringError(capture.text.empty()
                                       ? std::string("the input is invalid")
                                       : capture.text);
  return llvm::Error::success();
}

llvm::Expected<std::optional<FdoDriver::KeyedRun>>
FdoDriver::runIteration(FdoIteration &it, ModuleOp program,
                        const FdoResult &result, const KeyedRun *currentRun) {
  unsigned index = it.index;
  std::optional<KeyedRun> r;
  if (index > 0) {
    // Feedback: attach the previous run's metrics, then transform.
    clearFeedback(program);
    {
      DiagnosticCapture capture(context);
      const FdoIteration &last = result.iterations.back();
      std::vector<DmaTimes> dmaTimes = getDmaTimes(last);
      if (failed(
              attachMetrics(program, *last.metrics, nullptr, false, &dmaTimes)))
        return llvm::createStringError("iteration " + std::to_string(index) +
                                       ": " + capture.text);
    }
    r = transformAndExecute(passTexts, program, it, it.passes, currentRun);
  } else {
    r = execute(program, it, nullptr);
  }
  return r;
}

void FdoDriver::keepBest(FdoResult &result, OwningOpRef<ModuleOp> program,
                         std::optional<KeyedRun> r, State &state) {
  unsigned index = result.iterations.back().index;
  result.bestIteration = index;
  state.bestCycles = result.iterations.back().totalCycles;
  result.bestProgram = program->clone();
  state.current = std::move(program);
  state.currentRun = std::move(r);
  if (!state.currentRun)
    return;
  if (state.currentRun->result.timeline && !options.outputDir.empty()) {
    llvm::SmallString<256> path(iterationDir(options.outputDir, index));
    llvm::sys::path::append(path, "timeline.json");
    state.currentRun->timelineFile = std::string(path);
  }
  state.currentRun->result.timeline.reset();
  state.currentRun->result.hbm.reset();
}

llvm::Error FdoDriver::writeResult(FdoResult &result) {
  if (options.outputDir.empty())
    return llvm::Error::success();
  llvm::SmallString<256> best(options.outputDir), fdo(options.outputDir);
  llvm::sys::path::append(best, "best.mlir");
  llvm::sys::path::append(fdo, "fdo.json");
  clearFeedback(*result.bestProgram);
  if (auto e = writeOutput(best, printModule(*result.bestProgram)))
    return e;
  return writeJsonFile(fdo, result.toJson(options, config));
}

llvm::Expected<FdoResult> FdoDriver::run() {
  if (auto e = prepare())
    return std::move(e);
  FdoResult result;
  State state;
  state.current = input.clone();
  for (unsigned index = 0; index <= options.iterations; ++index) {
    FdoIteration it;
    it.index = index;
    OwningOpRef<ModuleOp> program = state.current->clone();
    auto r = runIteration(it, *program, result,
                          state.currentRun ? &*state.currentRun : nullptr);
    if (!r)
      return r.takeError();
    if (index > 0 && !it.failure && !trialTexts.empty())
      runTrial(program, it, *r);
    if (index == 0 && it.failure)
      return llvm::createStringError("iteration 0: " + it.failure->message);
    if (auto e = writeIteration(it, *r ? &**r : nullptr, *program))
      return std::move(e);
    bool failedIt = it.failure.has_value();
    // A pass that crashed or left invalid IR may have left the module in a
    // state its destructor cannot handle: leak it instead.
    if (failedIt && (it.failure->kind == FdoFailure::Kind::Crash ||
                     it.failure->kind == FdoFailure::Kind::Verify))
      abandonModule(std::move(program));
    bool better =
        !failedIt && (index == 0 || it.totalCycles < state.bestCycles);
    result.iterations.push_back(std::move(it));
    if (options.onIteration)
      options.onIteration(result.iterations.back());
    // Not faster than the best: the passes are deterministic, so the next
    // iteration would start from the same program.
    if (failedIt || !better)
      break;
    keepBest(result, std::move(program), std::move(*r), state);
    // A partial run: no later iteration's results could be compared.
    if (result.iterations.back().truncated)
      break;
  }
  if (auto e = writeResult(result))
    return std::move(e);
  return result;
}

llvm::Expected<FdoResult> accel::runFdoLoop(ModuleOp module,
                                            const sim::MachineConfig &config,
                                            const FdoOptions &options) {
  return FdoDriver(module, config, options).run();
}

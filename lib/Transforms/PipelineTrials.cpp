//===- PipelineTrials.cpp - accel-pipeline-dma's trials that must lower ---===//
//
// Part of --accel-pipeline-dma (PipelineDriver.h): a loop is pipelined
// only after a trial on a copy of its function still lowers with room for
// the later passes (the lowering does not spill, and the schedule's
// register estimate only approximates what the prologue, kernel and
// epilogue need); a loop pipelined by hand is tried as the plain loop it
// pipelines; and a refused loop's stalled WAITs deferred across its back
// edge, when that still lowers.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"
#include "PipelineDriver.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

std::pair<OwningOpRef<ModuleOp>, scf::ForOp>
PipelineDriver::copyWithLoop(scf::ForOp loop) {
  unsigned index = 0, at = 0;
  function.walk([&](scf::ForOp l) {
    if (l == loop)
      at = index;
    ++index;
  });
  OwningOpRef<ModuleOp> copy = cloneIntoModule(function);
  scf::ForOp copyLoop;
  index = 0;
  copy->walk([&](scf::ForOp l) {
    if (index++ == at)
      copyLoop = l;
  });
  return {std::move(copy), copyLoop};
}

std::string PipelineDriver::pipelineChecked(scf::ForOp loop, bool lowersNow) {
  distanceCap = INT64_MAX;
  if (!lowersNow)
    return pipeline(loop);
  SmallVector<Operation *> originals;
  function.walk([&](scf::ForOp l) { originals.push_back(l); });
  unsigned index =
      llvm::find(originals, loop.getOperation()) - originals.begin();
  for (int64_t cap = std::max<int64_t>(1, maxDistance);; cap /= 2) {
    distanceCap = cap;
    OwningOpRef<ModuleOp> copy = cloneIntoModule(function);
    SmallVector<scf::ForOp> copies;
    copy->walk([&](scf::ForOp l) { copies.push_back(l); });
    for (auto [o, c] : llvm::zip(originals, copies))
      if (work.count(o))
        work[c.getOperation()] = work.lookup(o);
    int64_t marker = nextMarker;
    trial = true;
    std::string why = pipeline(copies[index]);
    trial = false;
    nextMarker = marker;
    std::string error;
    if (why.empty())
      error = lowersWithMargin(*copy);
    for (scf::ForOp c : copies)
      work.erase(c.getOperation());
    copy = nullptr;
    if (!why.empty())
      return why; // refused on its own: the real loop would be too
    if (error.empty())
      return pipeline(loop);
    if (cap <= 1)
      return "the pipelined program would not lower: " + error;
  }
}

std::string PipelineDriver::lowersWithMargin(ModuleOp copy) {
  StringRef name = function.getSymName();
  std::string error =
      checkLowers(copy, name, vmemCapacity, vmemPage, kScalarRegs * 7 / 8);
  if (!error.empty())
    return error;
  IRRewriter cseRewriter(copy.getContext());
  DominanceInfo dominance(copy);
  eliminateCommonSubExpressions(cseRewriter, dominance, copy);
  return checkLowers(copy, name, vmemCapacity, vmemPage, kScalarRegs);
}

std::string PipelineDriver::refuseDepipeline(scf::ForOp loop, std::string why) {
  if (emitRemarks)
    loop.emitRemark() << "pipelined by hand, not rewritten as the "
                         "plain loop: "
                      << why;
  return why;
}

std::string PipelineDriver::trialDepipeline(scf::ForOp loop, size_t ahead,
                                            bool lowersNow) {
  std::string why;
  // The trial halves the largest distance while the plain loop's
  // pipelined program does not lower (registers), as pipelineChecked.
  for (int64_t cap = std::max<int64_t>(1, maxDistance);; cap /= 2) {
    auto [copy, copyLoop] = copyWithLoop(loop);
    SmallVector<CarriedChain> copyChains;
    if (!findCarriedChains(copyLoop, copyChains).empty())
      return "its copy differs";
    scf::ForOp plain = depipelineCarried(copyLoop, copyChains);
    for (const CarriedChain &c : copyChains)
      if (why.empty())
        why = privatizeSlots(plain, c.issue, c.wait);
    if (!why.empty())
      return "as a plain loop, " + why;
    work[plain.getOperation()] = workPerIteration(plain);
    int64_t marker = nextMarker;
    trial = true;
    distanceCap = cap;
    distanceFloor = int64_t(ahead);
    why = pipeline(plain);
    distanceFloor = 1;
    trial = false;
    nextMarker = marker;
    work.erase(plain.getOperation());
    if (!why.empty())
      return "as a plain loop, " + why;
    if (!lowersNow)
      return "";
    std::string error = lowersWithMargin(*copy);
    if (error.empty())
      return "";
    if (cap <= 1)
      return "as a plain loop, the pipelined program would not "
             "lower: " +
             error;
  }
}

std::string PipelineDriver::depipelineChecked(scf::ForOp loop, bool lowersNow) {
  SmallVector<CarriedChain> chains;
  std::string why = findCarriedChains(loop, chains);
  if (!why.empty())
    return why; // not pipelined by hand: nothing to say
  // A loop this pass pipelined (in an earlier FDO iteration) already has
  // the distances its metrics asked for; re-pipelining it from scratch
  // loses its tuning (the Llama MLP: 1.6% slower).
  if (loop->hasAttr(kPipelinedKernelAttr))
    return "pipelined by this pass";
  for (const CarriedChain &c : chains)
    if (why.empty())
      why = checkCarriedChain(loop, c);
  if (!why.empty())
    return refuseDepipeline(loop, why);
  size_t ahead = 0;
  for (const CarriedChain &c : chains)
    ahead = std::max(ahead, c.args.size());
  why = trialDepipeline(loop, ahead, lowersNow);
  if (!why.empty())
    return refuseDepipeline(loop, why);
  Location loc = loop.getLoc();
  forgetLoops(loop);
  scf::ForOp plain = depipelineCarried(loop, chains);
  for (const CarriedChain &c : chains)
    (void)privatizeSlots(plain, c.issue, c.wait); // as on the copy
  work[plain.getOperation()] = workPerIteration(plain);
  tripsSeen[plain.getOperation()] = profiledTrips(plain);
  distanceFloor = int64_t(ahead);
  why = pipelineChecked(plain, lowersNow);
  distanceFloor = 1;
  if (emitRemarks) {
    InFlightDiagnostic remark =
        mlir::emitRemark(loc)
        << "pipelined by hand (DMAs issued " << ahead
        << " iteration(s) ahead), rewritten as the plain loop";
    if (why.empty())
      remark << " and pipelined";
    else
      remark << ", not pipelined: " << why;
  }
  return "";
}

SmallVector<std::string> PipelineDriver::deferChecked(scf::ForOp &loop,
                                                      bool lowersNow) {
  if (lowersNow) {
    auto [copy, trialLoop] = copyWithLoop(loop);
    if (deferWaitsAcrossBackEdge(trialLoop).empty() ||
        !lowersWithMargin(*copy).empty())
      return {};
  }
  forgetLoops(loop);
  return deferWaitsAcrossBackEdge(loop);
}

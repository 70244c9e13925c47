//===- FdoResult.cpp - An FDO loop's result and fdo.json ------------------===//
//
// What an FDO loop reports: each iteration's failure described, and
// fdo.json (docs/output.md): the iterations with their passes, runs and
// failures, and the summary with the best iteration's reductions and the
// lower bounds (docs/metrics.md#roofline).
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/FdoLoop.h"

#include <nlohmann/json.hpp>

#include <cmath>

using namespace accel;
using json = nlohmann::json;

std::string FdoFailure::describe() const {
  switch (kind) {
  case Kind::Pass:
    return "pass '" + pass + "' failed";
  case Kind::Crash:
    return "pass '" + pass + "' or the verifier after it crashed";
  case Kind::Verify:
    return "the IR did not verify after pass '" + pass + "'";
  case Kind::Lower:
    return "lowering failed";
  case Kind::Fault:
    return "the program faulted";
  case Kind::Mismatch:
    return "its results differ from iteration 0's";
  }
  llvm_unreachable("unknown failure kind");
}

llvm::StringRef FdoFailure::getKindName(Kind kind) {
  switch (kind) {
  case Kind::Pass:
    return "pass";
  case Kind::Crash:
    return "crash";
  case Kind::Verify:
    return "verify";
  case Kind::Lower:
    return "lower";
  case Kind::Fault:
    return "fault";
  case Kind::Mismatch:
    return "mismatch";
  }
  llvm_unreachable("unknown failure kind");
}

const FdoIteration *FdoResult::getFailedIteration() const {
  for (const FdoIteration &it : iterations)
    if (it.failure)
      return &it;
  return nullptr;
}

/// fdo.json's "transforms" of an iteration or its trial: each pass, the
/// changes it reported (null: it reports none) and its statistics.
static json getPassesJson(const std::vector<FdoPassRun> &runs) {
  json transforms = json::array();
  for (const FdoPassRun &p : runs) {
    json stats = json::object();
    for (auto &[name, value] : p.statistics)
      stats[name] = value;
    transforms.push_back(
        {{"pass", p.name},
         {"applied", p.changes ? json(*p.changes) : json(nullptr)},
         {"statistics", std::move(stats)}});
  }
  return transforms;
}

/// One element of fdo.json's "iterations": its passes, its trial, its
/// run's numbers and its failure.
static json getIterationJson(const FdoIteration &it) {
  json row = {{"iteration", it.index},
              {"transforms", getPassesJson(it.passes)}};
  if (!it.trialPasses.empty())
    row["trial"] = {
        {"transforms", getPassesJson(it.trialPasses)},
        {"total_cycles", it.trialCycles ? json(it.trialCycles) : json(nullptr)},
        {"kept", it.trialKept}};
  if (it.ran) {
    row["total_cycles"] = it.totalCycles;
    row["instructions"] = it.instructions;
    row["dma_stall_cycles"] = it.dmaStallBaseCycles + it.dmaStallTransferCycles;
    row["dma_stall_base_cycles"] = it.dmaStallBaseCycles;
    row["dma_stall_transfer_cycles"] = it.dmaStallTransferCycles;
    row["mxu_utilization"] = it.mxuUtilization;
    row["vmem_bytes"] = it.vmemBytes;
    row["results_match"] = it.resultsMatch;
    row["metrics"] = "iter" + std::to_string(it.index) + "/metrics.json";
    if (it.truncated)
      row["truncated"] = (*it.metrics)["truncated"];
  }
  if (it.failure) {
    const FdoFailure &f = *it.failure;
    row["failure"] = {{"kind", FdoFailure::getKindName(f.kind).str()},
                      {"pass", f.pass.empty() ? json(nullptr) : json(f.pass)},
                      {"message", f.message},
                      {"reproducer", f.reproducer.empty()
                                         ? json(nullptr)
                                         : json(f.reproducer)}};
  }
  return row;
}

/// The bounds of a run's metrics: on a system, those over every chip and
/// ICI link (docs/metrics.md, "Systems of chips"); else the chip's
/// roofline; null without the analyzer.
static const json *getBounds(const json &m) {
  if (auto s = m.find("system"); s != m.end() && s->contains("bound"))
    return m.contains("roofline") ? &(*s)["bound"] : nullptr;
  auto r = m.find("roofline");
  return r != m.end() ? &*r : nullptr;
}

/// The summary's lower bounds (docs/metrics.md#roofline), each the smaller
/// of iteration 0's (`first`) and the best program's: a transform such as
/// pinning removes work, so only the smaller one bounds both; and the best
/// cycles over each.
static void addBounds(json &summary, const FdoIteration &first,
                      const FdoIteration &best) {
  const json &m0 = *first.metrics, &mB = *best.metrics;
  const json *b0 = getBounds(m0), *bB = getBounds(mB);
  if (!b0 || !bB)
    return;
  double cN = best.totalCycles;
  bool system = m0.contains("system");
  auto smaller = [&](const char *key, const char *byKey) {
    const json &r =
        (*b0)[key].get<uint64_t>() <= (*bB)[key].get<uint64_t>() ? *b0 : *bB;
    return std::make_pair(r[key].get<uint64_t>(), r[byKey].get<std::string>());
  };
  auto ratio = [&](uint64_t bound) {
    return bound ? std::round(10000.0 * cN / double(bound)) / 10000.0 : 0.0;
  };
  auto [roof, roofBy] = system ? smaller("roofline_cycles", "roofline_by")
                               : smaller("lower_bound_cycles", "bound_by");
  auto [latency, latencyBy] =
      system ? smaller("lower_bound_cycles", "bound_by")
             : smaller("latency_lower_bound_cycles", "latency_bound_by");
  summary["lower_bound_cycles"] = roof;
  summary["bound_by"] = roofBy;
  summary["best_over_lower_bound"] = ratio(roof);
  summary["latency_lower_bound_cycles"] = latency;
  summary["latency_bound_by"] = latencyBy;
  summary["best_over_latency_bound"] = ratio(latency);
}

json FdoResult::toJson(const FdoOptions &options,
                       const sim::MachineConfig &config) const {
  json out = {{"schema", "accel-fdo"},
              {"schema_version", 4},
              {"input", options.inputName},
              {"config", {{"name", config.name}, {"hash", config.hash()}}},
              {"iterations", json::array()}};
  for (const FdoIteration &it : iterations)
    out["iterations"].push_back(getIterationJson(it));
  const FdoIteration &first = iterations.front(),
                     &best = iterations[bestIteration];
  double c0 = first.totalCycles, cN = best.totalCycles;
  double s0 = first.dmaStallBaseCycles + first.dmaStallTransferCycles;
  double sN = best.dmaStallBaseCycles + best.dmaStallTransferCycles;
  const FdoIteration *failedIt = getFailedIteration();
  json summary = {
      {"status", failedIt          ? "failed"
                 : first.truncated ? "truncated"
                                   : "ok"},
      {"best_iteration", bestIteration},
      {"best_program", "best.mlir"},
      {"iteration0_cycles", first.totalCycles},
      {"best_cycles", best.totalCycles},
      {"cycles_reduction", c0 ? 1.0 - cN / c0 : 0.0},
      {"dma_stall_reduction", s0 ? 1.0 - sN / s0 : 0.0},
      {"results_match",
       !failedIt || failedIt->failure->kind != FdoFailure::Kind::Mismatch}};
  if (failedIt)
    summary["failed_iteration"] = failedIt->index;
  addBounds(summary, first, best);
  out["summary"] = std::move(summary);
  return out;
}

//===- AttachMetrics.cpp - metrics.json back onto the IR ------------------===//
//
// The feedback step of ../shared/DESIGN.md §5: per-op metrics become
// attributes that transforms read as hints.
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/DmaStallAnalysis.h"
#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

namespace accel {
#define GEN_PASS_DEF_ACCELATTACHMETRICS
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using json = nlohmann::json;

static int64_t getInt(const json &o, const char *key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer())
    return 0;
  return it->get<int64_t>();
}

FailureOr<unsigned> accel::attachMetrics(ModuleOp module, const json &m,
                                         unsigned *numStale) {
  if (numStale)
    *numStale = 0;
  if (!m.is_object() || m.value("schema", "") != "accel-metrics" ||
      !m.contains("schema_version") || !m["schema_version"].is_number_integer()) {
    module.emitError("metrics: not an accel metrics.json (no \"schema\": "
                     "\"accel-metrics\" and \"schema_version\")");
    return failure();
  }
  if (m["schema_version"].get<int>() != analysis::kMetricsSchemaVersion) {
    module.emitError() << "metrics: schema_version "
                       << m["schema_version"].get<int>()
                       << " is not the version this build reads ("
                       << analysis::kMetricsSchemaVersion << ")";
    return failure();
  }
  const json &ops = m.contains("ops") ? m["ops"] : json::object();
  if (!ops.is_object()) {
    module.emitError("metrics: \"ops\" must be an object keyed by op id");
    return failure();
  }
  llvm::DenseMap<int64_t, Operation *> byId;
  module.walk([&](Operation *op) {
    if (auto id = op->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName()))
      byId[id.getInt()] = op;
  });
  Builder b(module.getContext());
  unsigned attached = 0;
  llvm::DenseSet<int64_t> used;
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    int64_t id = 0;
    if (!llvm::to_integer(it.key(), id) || !it->is_object()) {
      module.emitWarning() << "metrics: ignoring malformed ops entry '"
                           << it.key() << "'";
      continue;
    }
    auto found = byId.find(id);
    if (found == byId.end()) {
      module.emitWarning() << "metrics: stale op id " << id << " ("
                           << it->value("name", "?") << " at "
                           << it->value("loc", "?")
                           << "): no op in the module carries it";
      if (numStale)
        ++*numStale;
      continue;
    }
    Operation *op = found->second;
    used.insert(id);
    const json &o = *it;
    op->setAttr("accel.executions", b.getI64IntegerAttr(getInt(o, "executions")));
    if (o.contains("dmas")) {
      op->setAttr("accel.dma_count", b.getI64IntegerAttr(getInt(o, "dmas")));
      op->setAttr("accel.dma_bytes", b.getI64IntegerAttr(getInt(o, "bytes")));
      op->setAttr("accel.stall_base",
                  b.getI64IntegerAttr(getInt(o, "stall_base")));
      op->setAttr("accel.stall_transfer",
                  b.getI64IntegerAttr(getInt(o, "stall_transfer")));
      op->setAttr("accel.slack", b.getI64IntegerAttr(getInt(o, "slack")));
      if (o.contains("min_slack"))
        op->setAttr("accel.min_slack",
                    b.getI64IntegerAttr(getInt(o, "min_slack")));
    }
    // Cycles the op's ISSUEs waited for a free DMA slot (max_outstanding
    // DMAs in flight), so passes can tell a slot-bound DMA from a stalled
    // WAIT.
    if (o.contains("stall_slots"))
      op->setAttr("accel.stall_slots",
                  b.getI64IntegerAttr(getInt(o, "stall_slots")));
    ++attached;
  }
  // The longest transfer of each DMA op (completion minus transfer start,
  // in cycles, over its DMAs): what another DMA on its link waits if this
  // one is issued ahead of it (--accel-hoist-dma weighs it against slack).
  // Likewise the longest time from ISSUE to completion (base latency,
  // queueing and transfer), for --accel-schedule's machine model.
  if (m.contains("dmas") && m["dmas"].is_array()) {
    llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>> longest;
    for (const json &d : m["dmas"]) {
      if (!d.is_object() || !d.contains("op_id"))
        continue;
      int64_t issue = getInt(d, "issue");
      int64_t start = getInt(d, "transfer_start"), end = getInt(d, "complete");
      if (issue < 0 || start < issue || end < start)
        continue;
      auto &[transfer, total] = longest[getInt(d, "op_id")];
      transfer = std::max(transfer, end - start);
      total = std::max(total, end - issue);
    }
    for (auto [id, cycles] : longest) {
      auto found = byId.find(id);
      if (found == byId.end())
        continue;
      if (cycles.first > 0)
        found->second->setAttr("accel.transfer_cycles",
                               b.getI64IntegerAttr(cycles.first));
      if (cycles.second > 0)
        found->second->setAttr("accel.dma_cycles",
                               b.getI64IntegerAttr(cycles.second));
    }
  }
  // The DMA slots of the machine the metrics come from.
  if (m.contains("dma_slots") && m["dma_slots"].is_object() &&
      getInt(m["dma_slots"], "max_outstanding") > 0)
    module->setAttr("accel.dma_max_outstanding",
                    b.getI64IntegerAttr(
                        getInt(m["dma_slots"], "max_outstanding")));
  // The analyzer's results (Analyzer::addToMetrics), when present: the
  // smallest backtails of each DMA op and the suggestions naming an op.
  if (m.contains("dependencies") && m["dependencies"].is_object() &&
      m["dependencies"].contains("dma_ops")) {
    const json &deps = m["dependencies"]["dma_ops"];
    for (auto it = deps.begin(); it != deps.end(); ++it) {
      int64_t id = 0;
      if (!llvm::to_integer(it.key(), id) || !byId.count(id) ||
          !it->is_object())
        continue;
      SmallVector<NamedAttribute> fields;
      for (const char *model : {"conservative", "relaxed"}) {
        if (!it->contains(model))
          continue;
        const json &bt = (*it)[model];
        fields.push_back(b.getNamedAttr(
            std::string(model) + "_cycles",
            b.getI64IntegerAttr(getInt(bt, "cycles"))));
        fields.push_back(b.getNamedAttr(
            std::string(model) + "_instructions",
            b.getI64IntegerAttr(getInt(bt, "instructions"))));
        if (std::string(model) == "relaxed")
          fields.push_back(b.getNamedAttr(
              "relaxed_bound_op_id",
              b.getI64IntegerAttr(bt.contains("bound") && bt["bound"].is_object()
                                      ? getInt(bt["bound"], "op_id")
                                      : -1)));
      }
      byId[id]->setAttr("accel.backtail", b.getDictionaryAttr(fields));
    }
  }
  // Busy cycles of the scalar unit, MXU and VPU per op (utilization
  // per_op), for the passes that weigh a DMA's latency against the work it
  // could overlap (--accel-pipeline-dma's group size).
  if (m.contains("utilization") && m["utilization"].is_object() &&
      m["utilization"].contains("per_op") &&
      m["utilization"]["per_op"].is_object()) {
    const json &perOp = m["utilization"]["per_op"];
    for (auto it = perOp.begin(); it != perOp.end(); ++it) {
      int64_t id = 0;
      if (!llvm::to_integer(it.key(), id) || !byId.count(id) ||
          !it->is_object())
        continue;
      int64_t busy = 0;
      for (const char *unit : {"scalar", "mxu", "vpu"})
        busy += getInt(*it, unit);
      if (busy)
        byId[id]->setAttr("accel.busy_cycles", b.getI64IntegerAttr(busy));
    }
  }
  if (m.contains("suggestions") && m["suggestions"].is_array()) {
    llvm::DenseMap<Operation *, SmallVector<Attribute>> perOp;
    for (const json &s : m["suggestions"]) {
      if (!s.is_object() || !s.contains("op_id"))
        continue;
      auto found = byId.find(getInt(s, "op_id"));
      if (found == byId.end())
        continue;
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("kind", b.getStringAttr(s.value("kind", "?"))),
          b.getNamedAttr("expected_cycles_saved",
                         b.getI64IntegerAttr(getInt(s, "expected_cycles_saved")))};
      if (s.contains("with_op_id"))
        fields.push_back(b.getNamedAttr(
            "with_op_id", b.getI64IntegerAttr(getInt(s, "with_op_id"))));
      if (s.contains("bytes"))
        fields.push_back(
            b.getNamedAttr("bytes", b.getI64IntegerAttr(getInt(s, "bytes"))));
      perOp[found->second].push_back(b.getDictionaryAttr(fields));
    }
    for (auto &[op, list] : perOp)
      op->setAttr("accel.suggestions", b.getArrayAttr(list));
  }

  // The measured costs per op kind and location, on the module: ops that
  // later passes clone (--accel-pipeline-dma's stages, unrolled copies)
  // lose their op ids and metrics but keep their location, and
  // --accel-schedule looks their costs up here.
  {
    llvm::StringMap<std::pair<int64_t, int64_t>> costs; // busy, dma cycles
    module.walk([&](Operation *op) {
      int64_t runs = 0;
      if (auto a = op->getAttrOfType<IntegerAttr>("accel.executions"))
        runs = a.getInt();
      int64_t busy = 0, dma = 0;
      if (auto a = op->getAttrOfType<IntegerAttr>("accel.busy_cycles");
          a && runs > 0)
        busy = (a.getInt() + runs - 1) / runs;
      if (auto a = op->getAttrOfType<IntegerAttr>("accel.dma_cycles"))
        dma = a.getInt();
      if (busy <= 0 && dma <= 0)
        return;
      std::string key;
      llvm::raw_string_ostream os(key);
      os << op->getName() << '@' << op->getLoc();
      auto &c = costs[key];
      c.first = std::max(c.first, busy);
      c.second = std::max(c.second, dma);
    });
    SmallVector<NamedAttribute> entries;
    for (auto &e : costs) {
      SmallVector<NamedAttribute> fields;
      if (e.second.first > 0)
        fields.push_back(b.getNamedAttr(
            "busy", b.getI64IntegerAttr(e.second.first)));
      if (e.second.second > 0)
        fields.push_back(b.getNamedAttr(
            "dma", b.getI64IntegerAttr(e.second.second)));
      entries.push_back(
          b.getNamedAttr(e.getKey(), b.getDictionaryAttr(fields)));
    }
    module->setAttr("accel.costs", b.getDictionaryAttr(entries));
  }

  module.walk([&](DmaStartOp d) {
    auto id = d->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName());
    if (!id)
      d.emitWarning("no accel.op_id; run --accel-assign-op-ids before "
                    "lowering so metrics can be attached");
    else if (!used.contains(id.getInt()))
      d.emitWarning() << "metrics: no entry for op id " << id.getInt()
                      << " (the DMA did not run, or the metrics are for "
                         "another program)";
  });
  return attached;
}

namespace {
struct AttachMetricsPass
    : public accel::impl::AccelAttachMetricsBase<AttachMetricsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (metricsFile.empty()) {
      module.emitError("accel-attach-metrics needs a file: "
                       "--accel-attach-metrics=metrics.json");
      return signalPassFailure();
    }
    auto buf = llvm::MemoryBuffer::getFile(metricsFile, /*IsText=*/true);
    if (!buf) {
      module.emitError() << "cannot read metrics file '" << metricsFile
                         << "': " << buf.getError().message();
      return signalPassFailure();
    }
    json m;
    try {
      m = json::parse((*buf)->getBuffer().begin(), (*buf)->getBuffer().end());
    } catch (const json::parse_error &e) {
      module.emitError() << metricsFile << ": byte " << e.byte
                         << ": invalid JSON";
      return signalPassFailure();
    }
    unsigned stale = 0;
    FailureOr<unsigned> n = attachMetrics(module, m, &stale);
    if (failed(n))
      return signalPassFailure();
    numAttached += *n;
    numStale += stale;
  }
};
} // namespace

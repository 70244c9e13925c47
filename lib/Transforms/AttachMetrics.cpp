//===- AttachMetrics.cpp - metrics.json back onto the IR ------------------===//
//
// The feedback step of the FDO loop (docs/metrics.md, "Attributes set by
// --accel-attach-metrics"): per-op metrics become attributes that
// transforms read as hints.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Support/Input.h"
#include "accel/Support/Json.h"
#include "accel/Support/MetricsSchema.h"
#include "accel/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
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

/// An integer attribute of at most 64 bits as int64_t; 0 otherwise.
static int64_t getMetricAttr(Operation *op, llvm::StringRef name) {
  auto a = op->getAttrOfType<IntegerAttr>(name);
  if (!a || a.getValue().getSignificantBits() > 64)
    return 0;
  return std::clamp<int64_t>(a.getValue().getSExtValue(), -kMaxMetricValue,
                             kMaxMetricValue);
}

namespace {
/// Reads the integer fields of metrics.json entries: an absent field is
/// 0, a present one must be an integer in [lo, kMaxMetricValue]; the first
/// that is not becomes `error`, naming the field by its path.
struct FieldReader {
  std::string error;
  int64_t get(const json &o, const char *key, const std::string &path,
              int64_t lo = 0) {
    const json *v = JsonReader::find(o, key);
    if (!v)
      return 0;
    std::optional<int64_t> x = v->is_number_integer()
                                   ? getInt64(o, key)
                                   : std::nullopt;
    if (!x || *x < lo || *x > kMaxMetricValue) {
      if (error.empty())
        error = "metrics: field '" + path + key + "': must be an integer in [" +
                std::to_string(lo) + ", " + std::to_string(kMaxMetricValue) +
                "]";
      return 0;
    }
    return *x;
  }
  bool has(const json &o, const char *key) {
    return JsonReader::find(o, key) != nullptr;
  }
};

/// An op id key of "ops" and the other per-op sections: a decimal integer
/// in [1, AccelDialect::getMaxOpId()].
std::optional<int64_t> parseOpIdKey(llvm::StringRef key) {
  int64_t id = 0;
  if (key.getAsInteger(10, id) || id < 1 || id > AccelDialect::getMaxOpId())
    return std::nullopt;
  return id;
}
} // namespace

namespace {
/// One attachMetrics call: reads every field of metrics.json `m` for the
/// ops of `module` first (a bad value is one error and leaves the module
/// as it was), then sets the attributes. Errors and warnings go to the
/// module's location without the op attached, so that no driver prints the
/// whole module after each.
class MetricsAttacher {
public:
  MetricsAttacher(ModuleOp module, const json &m, unsigned *numStale,
                  const std::vector<DmaTimes> *dmaTimes)
      : module(module), m(m), numStale(numStale), dmaTimes(dmaTimes),
        loc(module.getLoc()), b(module.getContext()) {}

  /// The whole attachment: the number of ops given metrics, or failure
  /// (after an error) with the module unchanged.
  FailureOr<unsigned> run(bool force) {
    if (failed(checkProgram(force)) || failed(readEntries()))
      return failure();
    readOpFields();
    readDmaTimes();
    readDmaSlots();
    readBacktails();
    readBusyCycles();
    readSuggestions();
    if (!f.error.empty())
      return error(f.error);
    // Every field read: now change the module.
    apply();
    attachCosts();
    warnUnmatchedDmas();
    return unsigned(updates.size());
  }

private:
  LogicalResult error(const llvm::Twine &msg) {
    mlir::emitError(loc, msg);
    return failure();
  }

  /// Checks that `m` is metrics.json of this build's schema version, that
  /// the module has op ids, and that the metrics are of this program
  /// (otherwise an error, or with `force` a warning). Sets `windowed` and
  /// `otherProgram`.
  LogicalResult checkProgram(bool force) {
    std::optional<int64_t> version = getInt64(m, "schema_version");
    if (!m.is_object() || getString(m, "schema") != "accel-metrics" || !version)
      return error("metrics: not an accel metrics.json (no \"schema\": "
                   "\"accel-metrics\" and integer \"schema_version\")");
    if (*version != kMetricsSchemaVersion)
      return error("metrics: schema_version " + llvm::Twine(*version) +
                   " is not the version this build reads (" +
                   llvm::Twine(kMetricsSchemaVersion) + ")");
    // Metrics name ops by accel.op_id: a module without any (not yet
    // through --accel-assign-op-ids) is not "another program", it lacks the
    // ids.
    bool hasIds = false;
    module.walk([&](Operation *op) {
      if (op->hasAttr(AccelDialect::getOpIdAttrName())) {
        hasIds = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!hasIds)
      return error("metrics: this module has no accel.op_id attributes, by "
                   "which metrics name its ops; run --accel-assign-op-ids "
                   "first, as accel-replay does before it lowers and runs a "
                   "program");
    std::string fingerprint = getProgramFingerprint(module);
    std::optional<std::string> theirs = getString(m, "program_fingerprint");
    // Metrics of a replayed window (docs/metrics.md, "window") cover only
    // the DMAs that ran in it.
    windowed = JsonReader::find(m, "window") != nullptr;
    otherProgram = theirs != fingerprint;
    if (otherProgram) {
      std::string what =
          "metrics: the metrics are of another program (program_fingerprint " +
          (theirs ? *theirs : std::string("missing")) + ", this module's is " +
          fingerprint + "): its op ids name other ops";
      if (!force)
        return error(what + "; attach them anyway with "
                            "--accel-attach-metrics='metrics=FILE force=true'");
      mlir::emitWarning(loc, what + "; attaching them anyway (force)");
    }
    return success();
  }

  /// Maps the module's op ids to their ops (`byId`) and the entries of
  /// "ops" to the ids they name (`entries`). Ids that no op carries, or
  /// that an op of another name carries, are stale (one warning each,
  /// counted in `numStale`). Errors: "ops" not an object, a key not an op
  /// id or an entry not an object.
  LogicalResult readEntries() {
    static const json emptyObject = json::object();
    const json *opsPtr = JsonReader::find(m, "ops");
    const json &ops = opsPtr ? *opsPtr : emptyObject;
    if (!ops.is_object())
      return error("metrics: \"ops\" must be an object keyed by op id");
    module.walk([&](Operation *op) {
      auto id = op->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName());
      if (id && succeeded(AccelDialect::verifyOpId(op, id)))
        byId[id.getInt()] = op;
    });
    for (auto it = ops.begin(); it != ops.end(); ++it) {
      std::optional<int64_t> id = parseOpIdKey(it.key());
      if (!id || !it->is_object())
        return error("metrics: field 'ops." + it.key() +
                     "': not an op id with an object of metrics");
      auto found = byId.find(*id);
      std::optional<std::string> name = getString(*it, "name");
      if (found == byId.end() ||
          (name && *name != found->second->getName().getStringRef())) {
        InFlightDiagnostic w = mlir::emitWarning(loc);
        w << "metrics: stale op id " << *id << " (" << name.value_or("?")
          << " at " << getString(*it, "loc").value_or("?") << "): ";
        if (found == byId.end())
          w << "no op in the module carries it";
        else
          w << "the module's op with this id is "
            << found->second->getName().getStringRef();
        if (numStale)
          ++*numStale;
        continue;
      }
      entries[*id] = &*it;
    }
    return success();
  }

  /// The per-op counters of each entry (`updates`).
  void readOpFields() {
    for (auto [id, entry] : entries) {
      const json &o = *entry;
      std::string path = "ops." + std::to_string(id) + ".";
      OpMetrics u{byId[id], {}};
      u.attrs.push_back({"accel.executions", f.get(o, "executions", path)});
      if (f.has(o, "dmas")) {
        u.attrs.push_back({"accel.dma_count", f.get(o, "dmas", path)});
        u.attrs.push_back({"accel.dma_bytes", f.get(o, "bytes", path)});
        u.attrs.push_back({"accel.stall_base", f.get(o, "stall_base", path)});
        u.attrs.push_back(
            {"accel.stall_transfer", f.get(o, "stall_transfer", path)});
        u.attrs.push_back({"accel.slack", f.get(o, "slack", path)});
        if (f.has(o, "min_slack"))
          u.attrs.push_back({"accel.min_slack", f.get(o, "min_slack", path)});
      }
      // Cycles the op's ISSUEs waited for a free DMA slot (max_outstanding
      // DMAs in flight), so passes can tell a slot-bound DMA from a stalled
      // WAIT.
      if (f.has(o, "stall_slots"))
        u.attrs.push_back({"accel.stall_slots", f.get(o, "stall_slots", path)});
      updates.push_back(std::move(u));
    }
  }

  /// The longest transfer of each DMA op (completion minus transfer start,
  /// in cycles, over its DMAs): what another DMA on its link waits if this
  /// one is issued ahead of it (--accel-hoist-dma weighs it against
  /// slack). Likewise the longest time from ISSUE to completion (base
  /// latency, queueing and transfer), for --accel-schedule's machine model.
  void readDmaTimes() {
    if (dmaTimes) {
      for (const DmaTimes &d : *dmaTimes)
        addDmaTimes(d);
      return;
    }
    const json *dmas = JsonReader::find(m, "dmas");
    if (!dmas || !dmas->is_array())
      return;
    for (size_t i = 0; i < dmas->size(); ++i) {
      const json &d = (*dmas)[i];
      if (!d.is_object() || !f.has(d, "op_id"))
        continue;
      std::string path = "dmas[" + std::to_string(i) + "].";
      DmaTimes t;
      t.issue = f.get(d, "issue", path);
      t.transferStart = f.get(d, "transfer_start", path);
      t.complete = f.get(d, "complete", path);
      t.opId = f.get(d, "op_id", path);
      addDmaTimes(t);
    }
  }

  /// One DMA's share of `longest`.
  void addDmaTimes(const DmaTimes &d) {
    if (d.transferStart < d.issue || d.complete < d.transferStart ||
        !byId.count(d.opId))
      return;
    auto &[transfer, total] = longest[d.opId];
    transfer = std::max(transfer, d.complete - d.transferStart);
    total = std::max(total, d.complete - d.issue);
  }

  /// The DMA slots of the machine the metrics come from.
  void readDmaSlots() {
    if (const json *slots = JsonReader::find(m, "dma_slots");
        slots && slots->is_object())
      maxOutstanding = f.get(*slots, "max_outstanding", "dma_slots.");
  }

  /// The analyzer's results (Analyzer::addToMetrics), when present: the
  /// smallest backtails of each DMA op with an entry.
  void readBacktails() {
    const json *deps = JsonReader::find(m, "dependencies");
    const json *dmaOps = deps ? JsonReader::find(*deps, "dma_ops") : nullptr;
    if (!dmaOps || !dmaOps->is_object())
      return;
    for (auto it = dmaOps->begin(); it != dmaOps->end(); ++it) {
      std::optional<int64_t> id = parseOpIdKey(it.key());
      if (!id || !entries.count(*id) || !it->is_object())
        continue;
      std::string path = "dependencies.dma_ops." + it.key() + ".";
      SmallVector<NamedAttribute> fields;
      for (const char *model : {"conservative", "relaxed"})
        readBacktail(*it, model, path, fields);
      backtails.push_back({byId[*id], b.getDictionaryAttr(fields)});
    }
  }

  /// Appends the fields of backtail `model` ("conservative" or "relaxed")
  /// of the dma_ops entry `entry` (at `path`) to `fields`, when present.
  void readBacktail(const json &entry, const char *model,
                    const std::string &path,
                    SmallVectorImpl<NamedAttribute> &fields) {
    const json *bt = JsonReader::find(entry, model);
    if (!bt || !bt->is_object())
      return;
    std::string p = path + model + ".";
    fields.push_back(
        b.getNamedAttr(std::string(model) + "_cycles",
                       b.getI64IntegerAttr(f.get(*bt, "cycles", p))));
    fields.push_back(
        b.getNamedAttr(std::string(model) + "_instructions",
                       b.getI64IntegerAttr(f.get(*bt, "instructions", p))));
    if (llvm::StringRef(model) == "relaxed") {
      const json *bound = JsonReader::find(*bt, "bound");
      fields.push_back(b.getNamedAttr(
          "relaxed_bound_op_id",
          b.getI64IntegerAttr(bound && bound->is_object()
                                  ? f.get(*bound, "op_id", p + "bound.")
                                  : -1)));
    }
  }

  /// Busy cycles of the scalar unit, MXU and VPU per op (utilization
  /// per_op), for the passes that weigh a DMA's latency against the work
  /// it could overlap (--accel-pipeline-dma's group size).
  void readBusyCycles() {
    const json *util = JsonReader::find(m, "utilization");
    const json *perOp = util ? JsonReader::find(*util, "per_op") : nullptr;
    if (!perOp || !perOp->is_object())
      return;
    for (auto it = perOp->begin(); it != perOp->end(); ++it) {
      std::optional<int64_t> id = parseOpIdKey(it.key());
      if (!id || !entries.count(*id) || !it->is_object())
        continue;
      std::string path = "utilization.per_op." + it.key() + ".";
      int64_t busy = 0;
      for (const char *unit : {"scalar", "mxu", "vpu"})
        busy += f.get(*it, unit, path);
      if (busy)
        busyCycles.push_back({byId[*id], busy});
    }
  }

  /// The analyzer's suggestions naming an op with an entry.
  void readSuggestions() {
    const json *list = JsonReader::find(m, "suggestions");
    if (!list || !list->is_array())
      return;
    for (size_t i = 0; i < list->size(); ++i) {
      const json &s = (*list)[i];
      if (!s.is_object() || !f.has(s, "op_id"))
        continue;
      std::string path = "suggestions[" + std::to_string(i) + "].";
      int64_t id = f.get(s, "op_id", path);
      if (!entries.count(id))
        continue;
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("kind",
                         b.getStringAttr(getString(s, "kind").value_or("?"))),
          b.getNamedAttr("expected_cycles_saved",
                         b.getI64IntegerAttr(
                             f.get(s, "expected_cycles_saved", path)))};
      for (const char *key : {"with_op_id", "wait_op_id", "bytes"})
        if (f.has(s, key))
          fields.push_back(
              b.getNamedAttr(key, b.getI64IntegerAttr(f.get(s, key, path))));
      suggestions[byId[id]].push_back(b.getDictionaryAttr(fields));
    }
  }

  /// Sets the attributes read (the module's last changes are attachCosts').
  void apply() {
    for (const OpMetrics &u : updates)
      for (auto [name, value] : u.attrs)
        u.op->setAttr(name, b.getI64IntegerAttr(value));
    for (auto [id, cycles] : longest) {
      Operation *op = byId[id];
      if (cycles.first > 0)
        op->setAttr("accel.transfer_cycles", b.getI64IntegerAttr(cycles.first));
      if (cycles.second > 0)
        op->setAttr("accel.dma_cycles", b.getI64IntegerAttr(cycles.second));
    }
    if (maxOutstanding > 0)
      module->setAttr("accel.dma_max_outstanding",
                      b.getI64IntegerAttr(maxOutstanding));
    for (auto [op, attr] : backtails)
      op->setAttr("accel.backtail", attr);
    for (auto [op, busy] : busyCycles)
      op->setAttr("accel.busy_cycles", b.getI64IntegerAttr(busy));
    for (auto &[op, list] : suggestions)
      op->setAttr("accel.suggestions", b.getArrayAttr(list));
  }

  /// The measured costs per op kind and location, on the module
  /// (`accel.costs`: busy cycles per execution, DMA cycles): ops that later
  /// passes clone (--accel-pipeline-dma's stages, unrolled copies) lose
  /// their op ids and metrics but keep their location, and
  /// --accel-schedule looks their costs up here.
  void attachCosts() {
    llvm::StringMap<std::pair<int64_t, int64_t>> costs; // busy, dma cycles
    module.walk([&](Operation *op) {
      int64_t runs = getMetricAttr(op, "accel.executions");
      int64_t busy = 0, dma = getMetricAttr(op, "accel.dma_cycles");
      if (int64_t total = getMetricAttr(op, "accel.busy_cycles");
          total > 0 && runs > 0)
        busy = (total + runs - 1) / runs;
      if (busy <= 0 && dma <= 0)
        return;
      std::string key;
      llvm::raw_string_ostream os(key);
      os << op->getName() << '@' << op->getLoc();
      auto &c = costs[key];
      c.first = std::max(c.first, busy);
      c.second = std::max(c.second, dma);
    });
    SmallVector<NamedAttribute> costEntries;
    for (auto &e : costs) {
      SmallVector<NamedAttribute> fields;
      if (e.second.first > 0)
        fields.push_back(
            b.getNamedAttr("busy", b.getI64IntegerAttr(e.second.first)));
      if (e.second.second > 0)
        fields.push_back(
            b.getNamedAttr("dma", b.getI64IntegerAttr(e.second.second)));
      costEntries.push_back(
          b.getNamedAttr(e.getKey(), b.getDictionaryAttr(fields)));
    }
    module->setAttr("accel.costs", b.getDictionaryAttr(costEntries));
  }

  /// A warning for each DMA without an op id, or whose id has no entry.
  void warnUnmatchedDmas() {
    module.walk([&](DmaStartOp d) {
      auto id = d->getAttrOfType<IntegerAttr>(AccelDialect::getOpIdAttrName());
      if (!id)
        mlir::emitWarning(d.getLoc(),
                          "no accel.op_id; run --accel-assign-op-ids before "
                          "lowering so metrics can be attached");
      else if (!entries.count(id.getInt()))
        mlir::emitWarning(d.getLoc())
            << "metrics: no entry for op id " << id.getInt() << " (the DMA "
            << (windowed ? "did not run in the replayed window" : "did not run")
            << (otherProgram ? ", or the metrics are for another program)"
                             : ")");
    });
  }

  /// The attributes to set on one op.
  struct OpMetrics {
    Operation *op;
    llvm::SmallVector<std::pair<const char *, int64_t>> attrs;
  };

  ModuleOp module;
  const json &m;
  unsigned *numStale;
  /// metrics.json's "dmas" when given apart from `m` (attachMetrics).
  const std::vector<DmaTimes> *dmaTimes;
  Location loc;
  Builder b;
  FieldReader f;
  bool windowed = false, otherProgram = false;
  llvm::DenseMap<int64_t, Operation *> byId;
  /// The entries of "ops" by op id (stale ones left out).
  llvm::DenseMap<int64_t, const json *> entries;
  std::vector<OpMetrics> updates;
  /// Longest transfer and ISSUE-to-completion cycles per DMA op id.
  llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>> longest;
  int64_t maxOutstanding = 0;
  llvm::SmallVector<std::pair<Operation *, DictionaryAttr>> backtails;
  llvm::SmallVector<std::pair<Operation *, int64_t>> busyCycles;
  llvm::MapVector<Operation *, SmallVector<Attribute>> suggestions;
};
} // namespace

FailureOr<unsigned> accel::attachMetrics(ModuleOp module, const json &m,
                                         unsigned *numStale, bool force,
                                         const std::vector<DmaTimes> *dmas) {
  if (numStale)
    *numStale = 0;
  return MetricsAttacher(module, m, numStale, dmas).run(force);
}

namespace {
struct AttachMetricsPass
    : public accel::impl::AccelAttachMetricsBase<AttachMetricsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (metricsFile.empty()) {
      mlir::emitError(module.getLoc(), "accel-attach-metrics needs a file: "
                                       "--accel-attach-metrics=metrics.json");
      return signalPassFailure();
    }
    auto buf = readInputFile(metricsFile, InputKind::Metrics);
    if (!buf) {
      mlir::emitError(module.getLoc())
          << "cannot read metrics file '" << metricsFile
          << "': " << llvm::toString(buf.takeError());
      return signalPassFailure();
    }
    auto m = parseJson((*buf)->getBuffer(), metricsFile);
    if (!m) {
      mlir::emitError(module.getLoc(), llvm::toString(m.takeError()));
      return signalPassFailure();
    }
    unsigned stale = 0;
    FailureOr<unsigned> n = attachMetrics(module, *m, &stale, force);
    if (failed(n))
      return signalPassFailure();
    numAttached += *n;
    numStale += stale;
  }
};
} // namespace

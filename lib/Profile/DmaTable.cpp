//===- DmaTable.cpp - metrics.json "dmas" as rows -------------------------===//

#include "accel/Profile/DmaTable.h"
#include "accel/Support/Json.h"
#include "accel/Support/JsonWriter.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace accel;
using namespace accel::profile;
using json = nlohmann::json;

json Backtail::toJson(const isa::Program &program) const {
  json j;
  j["instructions"] = instructions;
  j["cycles"] = cycles;
  if (!boundIndex) {
    j["bound"] = nullptr;
    return j;
  }
  json bound = {{"pc", boundPc}, {"index", *boundIndex}};
  if (boundPc < program.origins.size()) {
    const isa::Origin &o = program.origins[boundPc];
    bound["op_id"] = o.opId;
    bound["op"] = o.opName;
    bound["loc"] = o.loc;
  }
  if (boundDma)
    bound["dma"] = *boundDma;
  j["bound"] = std::move(bound);
  j["via"] = via;
  return j;
}

DmaTable::DmaTable(const isa::Program &program,
                   const sim::MachineConfig &config,
                   const DmaStallCollector &collector)
    : multiChip(config.chips > 1) {
  for (const DmaRecord &r : collector.dmas()) {
    if (r.timing.link < 0)
      continue;
    if (!rows.empty() && rows.back().record.timing.id >= r.timing.id)
      sortedIds = false;
    rows.push_back(DmaRow{r, false, {}, {}, std::nullopt});
    keepOrigin(program, r.issuePc);
    if (r.waitCycle)
      keepOrigin(program, r.waitPc);
    auto link = unsigned(r.timing.link);
    if (link >= linkNames.size())
      linkNames.resize(link + 1);
    if (linkNames[link].empty())
      linkNames[link] = config.getLinkName(link);
  }
}

void DmaTable::keepOrigin(const isa::Program &program, uint32_t pc) {
  if (pc < program.origins.size() && !origins.count(pc))
    origins[pc] = program.origins[pc];
}

const isa::Origin *DmaTable::getOrigin(uint32_t pc) const {
  auto it = origins.find(pc);
  return it == origins.end() ? nullptr : &it->second;
}

DmaRow *DmaTable::find(uint32_t id) {
  if (!sortedIds)
    return nullptr;
  auto it = std::lower_bound(
      rows.begin(), rows.end(), id,
      [](const DmaRow &row, uint32_t id) { return row.record.timing.id < id; });
  return it != rows.end() && it->record.timing.id == id ? &*it : nullptr;
}

void DmaTable::setBacktails(uint32_t id, const Backtail &conservative,
                            const Backtail &relaxed,
                            std::optional<uint64_t> pushLimit,
                            const isa::Program &program) {
  DmaRow *row = find(id);
  if (!row)
    return;
  row->hasBacktail = true;
  row->conservative = conservative;
  row->relaxed = relaxed;
  row->pushLimit = pushLimit;
  for (const Backtail *b : {&conservative, &relaxed})
    if (b->boundIndex)
      keepOrigin(program, b->boundPc);
}

void DmaTable::writeBacktail(JsonWriter &w, const Backtail &b) const {
  // Keys in nlohmann::json's (sorted) order, as Backtail::toJson's tree
  // dumps them.
  w.beginObject().key("bound");
  if (!b.boundIndex) {
    w.value(json(nullptr));
  } else {
    w.beginObject();
    if (b.boundDma)
      w.member("dma", *b.boundDma);
    w.member("index", *b.boundIndex);
    const isa::Origin *o = getOrigin(b.boundPc);
    if (o)
      w.member("loc", o->loc).member("op", o->opName).member("op_id", o->opId);
    w.member("pc", b.boundPc).endObject();
  }
  w.member("cycles", b.cycles).member("instructions", b.instructions);
  if (b.boundIndex)
    w.member("via", b.via);
  w.endObject();
}

void DmaTable::write(JsonWriter &w) const {
  static const json null = nullptr;
  w.beginArray();
  for (const DmaRow &row : rows) {
    const DmaRecord &r = row.record;
    const sim::DmaTiming &t = r.timing;
    const isa::Origin *issue = getOrigin(r.issuePc);
    bool remote = t.srcChip != t.dstChip;
    w.beginObject();
    if (row.hasBacktail) {
      w.key("backtail").beginObject().key("conservative");
      writeBacktail(w, row.conservative);
      w.key("relaxed");
      writeBacktail(w, row.relaxed);
      w.endObject();
    }
    w.member("base_end", t.baseEnd).member("bytes", t.bytes);
    if (multiChip)
      w.member("chip", t.chip);
    w.member("complete", t.complete);
    if (remote)
      w.member("dst_chip", t.dstChip).member("hops", t.hops);
    w.member("id", t.id).member("issue", t.issue);
    w.member("link", linkNames[unsigned(t.link)]);
    w.member("loc", issue ? issue->loc : std::string());
    w.member("op_id", issue ? issue->opId : 0u).member("pc", r.issuePc);
    if (row.hasBacktail) {
      w.key("push_limit");
      if (row.pushLimit)
        w.value(*row.pushLimit);
      else
        w.value(null);
    }
    if (t.semaphore >= 0)
      w.member("signal", t.semaphore);
    w.member("slack", r.slack);
    if (remote)
      w.member("src_chip", t.srcChip);
    w.member("stall_base", r.stallBase)
        .member("stall_transfer", r.stallTransfer)
        .member("transfer_start", t.transferStart);
    w.key("wait");
    if (r.waitCycle) {
      const isa::Origin *wait = getOrigin(r.waitPc);
      w.value(*r.waitCycle).member("wait_op_id", wait ? wait->opId : 0u);
    } else {
      w.value(null);
    }
    w.endObject();
  }
  w.endArray();
}

json DmaTable::toJson() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  JsonWriter w(os);
  write(w);
  os.flush();
  return json::parse(text);
}

json profile::heatmapToJson(const VmemHeatmap &heatmap) {
  json rows = json::array();
  for (const std::vector<uint32_t> &row : heatmap)
    rows.push_back(row);
  return rows;
}

static void writeHeatmap(JsonWriter &w, const VmemHeatmap &heatmap) {
  w.beginArray();
  for (const std::vector<uint32_t> &row : heatmap) {
    w.beginArray();
    for (uint32_t pages : row)
      w.value(uint64_t(pages));
    w.endArray();
  }
  w.endArray();
}

/// Writes `object`'s members in order with one more, `extraKey` (written
/// by `writeExtra`; none when empty), at its place in key order, as a tree
/// holding it dumps. `writeMember`, when given, writes a member's value in
/// place of its tree when it returns true.
static void writeObjectWith(
    JsonWriter &w, const json &object, llvm::StringRef extraKey,
    llvm::function_ref<void()> writeExtra,
    llvm::function_ref<bool(const std::string &, const json &)> writeMember =
        nullptr) {
  bool written = extraKey.empty();
  w.beginObject();
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (!written && llvm::StringRef(it.key()) > extraKey) {
      w.key(extraKey);
      writeExtra();
      written = true;
    }
    w.key(it.key());
    if (!writeMember || !writeMember(it.key(), *it))
      w.value(*it);
  }
  if (!written) {
    w.key(extraKey);
    writeExtra();
  }
  w.endObject();
}

void profile::writeMetricsJson(llvm::raw_ostream &os, const json &tree,
                               const DmaTable *dmas,
                               const VmemHeatmap *heatmap) {
  JsonWriter w(os, 2);
  if (!tree.is_object() || (!dmas && !heatmap)) {
    w.value(tree);
  } else {
    writeObjectWith(
        w, tree, dmas ? "dmas" : "", [&] { dmas->write(w); },
        [&](const std::string &key, const json &value) {
          if (!heatmap || key != "vmem" || !value.is_object())
            return false;
          writeObjectWith(w, value, "heatmap",
                          [&] { writeHeatmap(w, *heatmap); });
          return true;
        });
  }
  os << '\n';
}

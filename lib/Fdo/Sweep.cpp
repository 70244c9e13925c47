//===- Sweep.cpp - Config sweeps ------------------------------------------===//
//
// See Sweep.h and docs/sweep.md.
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/Sweep.h"
#include "accel/Support/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <cmath>
#include <mutex>
#include <set>

using namespace accel;
using json = nlohmann::json;

/// Most values one --set may list.
static constexpr size_t kMaxAxisValues = 4096;

/// A value as written: integer (with an optional binary suffix), number,
/// boolean or string.
static json parseValue(llvm::StringRef text) {
  if (text == "true")
    return true;
  if (text == "false")
    return false;
  static const std::pair<const char *, unsigned> suffixes[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}};
  llvm::StringRef digits = text;
  unsigned shift = 0;
  for (auto [suffix, bits] : suffixes)
    if (digits.consume_back(suffix)) {
      shift = bits;
      break;
    }
  uint64_t u;
  if (!digits.getAsInteger(10, u) && (shift == 0 || u <= (UINT64_MAX >> shift)))
    return u << shift;
  double d;
  if (!digits.getAsDouble(d) && std::isfinite(d))
    return shift ? json(d * double(1ull << shift)) : json(d);
  return text.str();
}

/// "dma.links[0].bytes_per_cycle" -> "/dma/links/0/bytes_per_cycle", or
/// nullopt when it is not of that form.
static std::optional<std::string> toPointer(llvm::StringRef path) {
  std::string pointer;
  llvm::SmallVector<llvm::StringRef> parts;
  path.split(parts, '.');
  for (llvm::StringRef part : parts) {
    llvm::StringRef name = part.take_until([](char c) { return c == '['; });
    if (name.empty() || !llvm::all_of(name, [](char c) {
          return llvm::isAlnum(c) || c == '_';
        }))
      return std::nullopt;
    pointer += "/" + name.str();
    llvm::StringRef rest = part.drop_front(name.size());
    while (!rest.empty()) {
      unsigned index;
      if (!rest.consume_front("[") || rest.consumeInteger(10, index) ||
          !rest.consume_front("]"))
        return std::nullopt;
      pointer += "/" + std::to_string(index);
    }
  }
  return pointer;
}

llvm::Expected<SweepAxis> accel::parseSweepAxis(llvm::StringRef spec) {
  auto fail = [&](const std::string &what) {
    return llvm::createStringError("--set '" + spec.str() + "': " + what);
  };
  auto [path, list] = spec.split('=');
  path = path.trim();
  if (!spec.contains('='))
    return fail("expected PATH=V1,V2,... (e.g. vmem.bytes=8Mi,16Mi)");
  if (path.empty() || !toPointer(path))
    return fail("'" + path.str() +
                "' is not a config field path such as vmem.bytes or "
                "dma.links[0].bytes_per_cycle");
  SweepAxis axis;
  axis.path = path.str();
  llvm::SmallVector<llvm::StringRef> texts;
  list.split(texts, ',');
  std::set<std::string> seen;
  for (llvm::StringRef t : texts) {
    t = t.trim();
    if (t.empty())
      return fail("an empty value");
    json v = parseValue(t);
    if (!seen.insert(v.dump()).second)
      return fail("the value " + t.str() + " is listed twice");
    axis.values.push_back(std::move(v));
    axis.texts.push_back(t.str());
  }
  if (axis.values.size() > kMaxAxisValues)
    return fail("more than " + std::to_string(kMaxAxisValues) + " values");
  return axis;
}

llvm::Expected<SweepGrid> SweepGrid::create(std::vector<SweepAxis> axes) {
  if (axes.empty())
    return llvm::createStringError(
        "a sweep needs at least one --set PATH=V1,V2,...");
  SweepGrid g;
  g.points = 1;
  std::set<std::string> paths;
  for (const SweepAxis &a : axes) {
    std::string pointer = *toPointer(a.path);
    if (!paths.insert(pointer).second)
      return llvm::createStringError("--set " + a.path +
                                     " is given twice: list its values in "
                                     "one --set");
    // A field inside another --set's value: whichever is set last wins.
    for (const SweepAxis &b : axes) {
      std::string other = *toPointer(b.path);
      if (&b != &a && llvm::StringRef(pointer).starts_with(other + "/"))
        return llvm::createStringError(
            "--set " + a.path + " is inside --set " + b.path +
            ": each point would set it twice; sweep one of them");
    }
    g.points *= a.values.size();
    if (g.points > kMaxSweepPoints)
      return llvm::createStringError(
          "the grid has more than %llu points; split it with --shard or "
          "fewer values",
          (unsigned long long)kMaxSweepPoints);
  }
  g.axes = std::move(axes);
  return g;
}

std::vector<unsigned> SweepGrid::getIndices(uint64_t point) const {
  std::vector<unsigned> at(axes.size());
  for (size_t i = axes.size(); i-- > 0;) {
    at[i] = unsigned(point % axes[i].values.size());
    point /= axes[i].values.size();
  }
  return at;
}

std::string SweepGrid::describe(uint64_t point) const {
  std::vector<unsigned> at = getIndices(point);
  std::string s;
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? " " : "") + axes[i].path + "=" + axes[i].texts[at[i]];
  return s;
}

llvm::Expected<sim::MachineConfig>
SweepGrid::getConfig(uint64_t point, llvm::StringRef baseText) const {
  std::string name =
      "point " + std::to_string(point) + " (" + describe(point) + ")";
  auto base = parseJson(baseText, "base config");
  if (!base)
    return base.takeError();
  json doc = std::move(*base);
  std::vector<unsigned> at = getIndices(point);
  bool setsBytes = false, setsBlocks = false;
  for (size_t i = 0; i < axes.size(); ++i) {
    json::json_pointer ptr(*toPointer(axes[i].path));
    // The field must exist (a typo is an error, not a new field the
    // validator would call unknown far from the --set that made it).
    if (!doc.contains(ptr))
      return llvm::createStringError(name + ": the config has no field '" +
                                     axes[i].path + "'");
    doc[ptr] = axes[i].values[at[i]];
    setsBytes |= axes[i].path == "vmem.bytes";
    setsBlocks |= axes[i].path == "vmem.blocks";
  }
  if (setsBytes && !setsBlocks) {
    const json &v = doc["vmem"];
    if (v["bytes"].is_number_unsigned() &&
        v["pages_per_block"].is_number_unsigned() &&
        v["page_bytes"].is_number_unsigned()) {
      uint64_t block = v["pages_per_block"].get<uint64_t>() *
                       v["page_bytes"].get<uint64_t>();
      uint64_t bytes = v["bytes"].get<uint64_t>();
      if (block == 0 || bytes % block != 0)
        return llvm::createStringError(
            name + ": vmem.bytes " + std::to_string(bytes) +
            " is not a whole number of blocks of " + std::to_string(block) +
            " bytes (vmem.pages_per_block x vmem.page_bytes); set "
            "vmem.blocks too");
      doc["vmem"]["blocks"] = bytes / block;
    }
  }
  auto config = sim::MachineConfig::fromJson(dumpJson(doc), name);
  if (!config)
    return config.takeError();
  return std::move(*config);
}

llvm::Expected<SweepShard> accel::parseSweepShard(llvm::StringRef text) {
  auto [i, n] = text.split('/');
  SweepShard s;
  if (i.getAsInteger(10, s.index) || n.getAsInteger(10, s.count) ||
      s.count == 0 || s.count > 65536 || s.index >= s.count)
    return llvm::createStringError(
        "--shard '" + text.str() +
        "': expected I/N with 0 <= I < N <= 65536 (e.g. 0/4)");
  return s;
}

void accel::fillSweepRow(SweepRow &row, const json &m) {
  row.ok = true;
  row.configHash = m["config"]["hash"].get<std::string>();
  row.totalCycles = m["total_cycles"].get<uint64_t>();
  row.dmaStallBase = m["dma_stall_cycles"]["base"].get<uint64_t>();
  row.dmaStallTransfer = m["dma_stall_cycles"]["transfer"].get<uint64_t>();
  row.mxuUtilization = m["units"]["mxu"]["utilization"].get<double>();
  row.vpuUtilization = m["units"]["vpu"]["utilization"].get<double>();
  if (m.contains("vmem") && m["vmem"].contains("peak_used_bytes"))
    row.peakVmemBytes = m["vmem"]["peak_used_bytes"].get<uint64_t>();
}

std::vector<SweepRow> accel::runSweep(
    const SweepGrid &grid, const SweepShard &shard, unsigned jobs,
    const std::function<SweepRow(uint64_t)> &evaluate,
    const std::function<void(const SweepRow &, uint64_t, uint64_t)> &onDone) {
  std::vector<uint64_t> points;
  for (uint64_t p = 0; p < grid.size(); ++p)
    if (shard.contains(p))
      points.push_back(p);
  std::vector<SweepRow> rows(points.size());
  std::mutex mutex;
  uint64_t done = 0;
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(jobs);
  llvm::DefaultThreadPool pool(strategy);
  for (size_t i = 0; i < points.size(); ++i)
    pool.async([&, i] {
      SweepRow row = evaluate(points[i]);
      row.point = points[i];
      std::lock_guard<std::mutex> lock(mutex);
      rows[i] = std::move(row);
      ++done;
      if (onDone)
        onDone(rows[i], done, points.size());
    });
  pool.wait();
  return rows;
}

/// A CSV field: quoted (RFC 4180) when it holds a comma, quote or newline.
static std::string csvField(llvm::StringRef s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n'))
    return s.str();
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string accel::writeSweepCsv(const SweepGrid &grid,
                                 const std::vector<SweepRow> &rows) {
  bool fdo = llvm::any_of(rows, [](const SweepRow &r) { return r.fdo; });
  std::string out = "point";
  for (const SweepAxis &a : grid.getAxes())
    out += "," + csvField(a.path);
  out += ",status,total_cycles,dma_stall_base,dma_stall_transfer,"
         "dma_stall_total,mxu_utilization,vpu_utilization,peak_vmem_bytes,"
         "config_hash";
  if (fdo)
    out += ",fdo_best_cycles,fdo_best_iteration,fdo_cycles_reduction,"
           "fdo_results";
  out += ",error\n";
  for (const SweepRow &r : rows) {
    out += std::to_string(r.point);
    std::vector<unsigned> at = grid.getIndices(r.point);
    for (size_t i = 0; i < at.size(); ++i) {
      const json &v = grid.getAxes()[i].values[at[i]];
      out += "," + csvField(v.is_string() ? v.get<std::string>() : v.dump());
    }
    if (r.ok) {
      out +=
          llvm::formatv(",ok,{0},{1},{2},{3},{4:F4},{5:F4},{6},{7}",
                        r.totalCycles, r.dmaStallBase, r.dmaStallTransfer,
                        r.dmaStallBase + r.dmaStallTransfer, r.mxuUtilization,
                        r.vpuUtilization, r.peakVmemBytes, r.configHash)
              .str();
      if (fdo && r.fdo)
        out += llvm::formatv(",{0},{1},{2:F4},{3}", r.fdo->bestCycles,
                             r.fdo->bestIteration, r.fdo->cyclesReduction,
                             r.fdo->resultsIdentical ? "identical" : "DIFFER")
                   .str();
      else if (fdo)
        out += ",,,,";
      out += ",\n";
    } else {
      out += ",error,,,,,,,," + csvField(r.configHash);
      if (fdo)
        out += ",,,,";
      out += "," + csvField(r.error) + "\n";
    }
  }
  return out;
}

json accel::writeSweepJson(const SweepGrid &grid, const SweepShard &shard,
                           llvm::StringRef input, llvm::StringRef kind,
                           const std::vector<SweepRow> &rows) {
  json axes = json::array();
  for (const SweepAxis &a : grid.getAxes())
    axes.push_back({{"path", a.path}, {"values", a.values}});
  json points = json::array();
  for (const SweepRow &r : rows) {
    json set = json::object();
    std::vector<unsigned> at = grid.getIndices(r.point);
    for (size_t i = 0; i < at.size(); ++i)
      set[grid.getAxes()[i].path] = grid.getAxes()[i].values[at[i]];
    json p = {{"point", r.point}, {"set", set}};
    if (!r.ok) {
      p["status"] = "error";
      p["error"] = r.error;
      points.push_back(std::move(p));
      continue;
    }
    p["status"] = "ok";
    p["config_hash"] = r.configHash;
    p["total_cycles"] = r.totalCycles;
    p["dma_stall_cycles"] = {{"base", r.dmaStallBase},
                             {"transfer", r.dmaStallTransfer},
                             {"total", r.dmaStallBase + r.dmaStallTransfer}};
    p["utilization"] = {{"mxu", r.mxuUtilization}, {"vpu", r.vpuUtilization}};
    p["peak_vmem_bytes"] = r.peakVmemBytes;
    if (r.fdo)
      p["fdo"] = {
          {"best_cycles", r.fdo->bestCycles},
          {"best_iteration", r.fdo->bestIteration},
          {"cycles_reduction", r.fdo->cyclesReduction},
          {"results", r.fdo->resultsIdentical ? "identical" : "DIFFER"}};
    points.push_back(std::move(p));
  }
  return {{"schema", "accel-sweep"},
          {"schema_version", 1},
          {"input", input.str()},
          {"kind", kind.str()},
          {"axes", axes},
          {"grid_points", grid.size()},
          {"shard", {{"index", shard.index}, {"count", shard.count}}},
          {"points", points}};
}

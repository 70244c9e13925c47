//===- MachineConfig.cpp - Default machine and JSON overrides -------------===//

#include "accel/Sim/MachineConfig.h"
#include "ConfigCalibration.h"
#include "accel/Support/Input.h"
#include "accel/Support/Json.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <nlohmann/json.hpp>

#include <cmath>

using namespace accel;
using namespace accel::sim;
using json = nlohmann::json;

// Every number names its source under "sources" (docs/config.md,
// "Sources").
static const char kDefaultConfig[] = R"json({
  "name": "accel-default",
  "clock_ghz": 1.05,
  "hbm": { "bytes": 34359738368, "bytes_per_cycle": 1142.857 },
  "vmem": { "bytes": 33554432, "page_bytes": 1024, "blocks": 128,
            "pages_per_block": 256 },
  "mxu": { "rows": 128, "cols": 128, "dataflow": "ws", "overlap": true },
  "vpu": { "sublanes": 8, "lanes": 128, "pipeline_depth": 8,
           "cost": { "simple": 1, "div": 4, "exp": 4, "sqrt": 4,
                     "reduce": 2, "transpose": 2 } },
  "scalar": { "latency": 1 },
  "dma": {
    "max_outstanding": 64,
    "burst_bytes": 64,
    "links": [
      { "src": "hbm", "dst": "vmem", "base_latency": 500,
        "bytes_per_cycle": 1024 },
      { "src": "vmem", "dst": "hbm", "base_latency": 500,
        "bytes_per_cycle": 1024 },
      { "src": "vmem", "dst": "vmem", "base_latency": 100,
        "bytes_per_cycle": 2048 }
    ]
  },
  "chips": 1,
  "calibration": [],
  "ici": { "topology": "ring", "dims": [], "hop_latency": 300,
           "bytes_per_cycle": 48, "packet_bytes": 256,
           "switching": "cut_through" },
  "sources": {
    "clock_ghz": "TPU v4 core clock 1050 MHz (Jouppi et al., ISCA 2023, Table 1); used only to print microseconds",
    "hbm.bytes": "TPU v4: 32 GiB HBM2 per chip (Jouppi et al., ISCA 2023)",
    "hbm.bytes_per_cycle": "TPU v4 HBM: 1200 GB/s (Jouppi et al., ISCA 2023, Table 1) at 1.05 GHz",
    "dma.burst_bytes": "assumed: 64-byte access granularity of the HBM controller (two 32-byte HBM2 pseudo-channel bursts)",
    "vmem.bytes": "SnR §5.3.2: 128 blocks x 256 pages; 1 KiB pages assumed, giving 32 MiB (TPU v4 CMEM/VMEM order of magnitude)",
    "vmem.page_bytes": "assumed (SnR gives the page count, not the size)",
    "mxu.rows": "TPU v2-v4 MXU is a 128x128 systolic array (Jouppi et al., ISCA 2023; Norrie et al., IEEE Micro 2021)",
    "mxu.dataflow": "TPU MXUs are weight-stationary (Jouppi et al., ISCA 2017, §2)",
    "mxu.overlap": "TPU weights are double-buffered, the next tile loading while the current one computes (Jouppi et al., ISCA 2017, §2)",
    "vpu.sublanes": "a TPU vector register is 8 sublanes x 128 lanes (Norrie et al., IEEE Micro 2021: TPU v2 vector unit)",
    "vpu.lanes": "8 sublanes x 128 lanes per cycle (Norrie et al., IEEE Micro 2021: TPU v2 vector unit)",
    "vpu.pipeline_depth": "assumed",
    "vpu.cost": "assumed: cycles per lane-pass; transcendental and divide ops take 4 passes, a transpose 2 (each pass is read and written through the core's transpose unit, Norrie et al., IEEE Micro 2021)",
    "scalar.latency": "assumed: in-order scalar core, one instruction per cycle",
    "dma.max_outstanding": "assumed",
    "dma.links.base_latency": "assumed: SnR §5.2 says constant and non-accumulative but gives no value; 500 cycles is ~0.5 us",
    "dma.links.bytes_per_cycle": "TPU v4 HBM 1200 GB/s at 1.05 GHz is ~1143 B/cycle, rounded down to 1024; VMEM-local copies assumed 2x",
    "calibration": "none: every latency comes from the formulas above; a config may name CSV tables of measured latencies that replace them (docs/config.md, Calibration)",
    "chips": "one chip unless a system is asked for; SnR's All-Gather case (Zarkadas et al., SoCC '25, §5.2.1) runs on several",
    "ici.topology": "TPU v4 joins chips in a 3-D torus (Jouppi et al., ISCA 2023); a ring, a 2-D or 3-D torus (dims [X, Y] or [X, Y, Z]) or full connection here",
    "ici.hop_latency": "assumed: cycles a packet takes per ICI hop (wire and router) besides its serialization (~0.3 us)",
    "ici.packet_bytes": "assumed: 256-byte packets, the largest payload of a PCIe TLP and of an NVLink packet; TPU's ICI packet size is not published",
    "ici.switching": "assumed: virtual cut-through, the flow control of torus interconnects such as the Cray T3E/Blue Gene and TPU ICI routers (Dally and Towles, Principles and Practices of Interconnection Networks, 2004, ch. 13)",
    "ici.bytes_per_cycle": "TPU v4 ICI links carry ~50 GB/s each way (Jouppi et al., ISCA 2023): ~48 B/cycle at 1.05 GHz"
  }
})json";

llvm::StringRef MachineConfig::defaultJson() { return kDefaultConfig; }

int MachineConfig::findLink(isa::MemSpace src, isa::MemSpace dst) const {
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i].src == src && links[i].dst == dst)
      return int(i);
  return -1;
}

std::string MachineConfig::getLinkName(unsigned link) const {
  if (link < links.size())
    return links[link].name;
  return topology.getLinkName(link - unsigned(links.size()));
}

std::string MachineConfig::hash() const {
  uint64_t h = llvm::xxh3_64bits(jsonText);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format_hex_no_prefix(h, 16);
  return out;
}

llvm::StringRef accel::sim::mxuDataflowName(MxuDataflow dataflow) {
  switch (dataflow) {
  case MxuDataflow::WeightStationary:
    return "ws";
  case MxuDataflow::InputStationary:
    return "is";
  case MxuDataflow::OutputStationary:
    return "os";
  }
  return "?";
}

llvm::StringRef accel::sim::iciSwitchingName(IciSwitching switching) {
  return switching == IciSwitching::CutThrough ? "cut_through"
                                               : "store_and_forward";
}

std::optional<IciSwitching>
accel::sim::parseIciSwitching(llvm::StringRef name) {
  if (name == "cut_through")
    return IciSwitching::CutThrough;
  if (name == "store_and_forward")
    return IciSwitching::StoreAndForward;
  return std::nullopt;
}

/// A bandwidth in bytes per cycle (in [kMinBytesPerCycle,
/// kMaxBytesPerCycle], or 0 after a reader error) as an integer of
/// 1/kBandwidthScale bytes per cycle, rounded to the nearest, at least 1.
static uint64_t toMilli(double bytesPerCycle) {
  return std::max<uint64_t>(
      uint64_t(std::llround(bytesPerCycle * double(kBandwidthScale))), 1);
}

/// The path of the first null in the merge patch `patch` whose key `doc`
/// (the document it patches) does not have, or "": such a null deletes
/// nothing, and the key would otherwise escape the unknown-field check
/// (the keys inside `sources` are free-form and not checked).
static std::string findNullOfAbsentField(const json &patch, const json &doc,
                                         const std::string &path) {
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    std::string field = path.empty() ? it.key() : path + "." + it.key();
    const json *old = JsonReader::find(doc, it.key());
    if (it->is_null() && !old)
      return field;
    // Inside sources, keys are free-form: deleting one it lacks is no typo.
    if (it->is_object() && old && old->is_object() && field != "sources")
      if (std::string inner = findNullOfAbsentField(*it, *old, field);
          !inner.empty())
        return inner;
  }
  return "";
}

static bool parseSpace(const std::string &s, isa::MemSpace &out) {
  if (s == "hbm")
    out = isa::MemSpace::HBM;
  else if (s == "vmem")
    out = isa::MemSpace::VMEM;
  else
    return false;
  return true;
}

/// The document a config is read from: the default config, or `baseText`
/// (another machine's whole document, a trace's config), with
/// `overrideText` merged in as a JSON merge patch (a null deletes a field;
/// one that is not there is an error). Errors name `sourceName`.
static llvm::Expected<json> mergeConfigDocument(llvm::StringRef overrideText,
                                                llvm::StringRef sourceName,
                                                llvm::StringRef baseText) {
  json doc = json::parse(kDefaultConfig);
  if (!baseText.empty()) {
    // Another machine's whole document (a trace's config): the base the
    // override applies to.
    auto base = parseJson(baseText, "base config");
    if (!base)
      return base.takeError();
    if (!base->is_object())
      return llvm::createStringError("base config: not a JSON object");
    doc = std::move(*base);
  }
  if (!overrideText.empty()) {
    auto patch = parseJson(overrideText, sourceName);
    if (!patch)
      return patch.takeError();
    if (!patch->is_object())
      return llvm::createStringError("%s: byte 0: the config must be a JSON "
                                     "object",
                                     sourceName.str().c_str());
    // A null deletes a field: one that is not there is not a field.
    if (std::string unknown = findNullOfAbsentField(*patch, doc, "");
        !unknown.empty())
      return llvm::createStringError("%s: field '%s': unknown field",
                                     sourceName.str().c_str(),
                                     unknown.c_str());
    doc.merge_patch(*patch);
  }

  return doc;
}

/// hbm and vmem: sizes, bandwidth and the VMEM page layout.
static void readMemories(JsonReader &r, const json &doc, MachineConfig &c) {
  if (const json *hbm =
          r.object(doc, "hbm", "", {"bytes", "bytes_per_cycle"})) {
    c.hbmBytes = r.u64(*hbm, "bytes", "hbm.", 4, kMaxHbmBytes);
    c.hbmMilliBytesPerCycle = toMilli(r.number(
        *hbm, "bytes_per_cycle", "hbm.", kMinBytesPerCycle, kMaxBytesPerCycle));
  }
  if (const json *vmem = r.object(doc, "vmem", "",
                                  {"bytes", "page_bytes", "blocks",
                                   "pages_per_block"})) {
    c.vmemBytes = r.u64(*vmem, "bytes", "vmem.", 4, kMaxVmemBytes);
    c.vmemPageBytes = r.u64(*vmem, "page_bytes", "vmem.", 4, kMaxVmemBytes);
    c.vmemBlocks = r.u32(*vmem, "blocks", "vmem.");
    c.vmemPagesPerBlock = r.u32(*vmem, "pages_per_block", "vmem.");
    std::optional<uint64_t> product = llvm::checkedMulUnsigned(
        uint64_t(c.vmemBlocks) * c.vmemPagesPerBlock, c.vmemPageBytes);
    bool overflow = !product;
    // Words are 4 bytes: a page that is not a whole number of words would
    // put buffers at addresses no f32/i32 access may use.
    if (r.ok() && c.vmemPageBytes % 4 != 0)
      r.fail("vmem.page_bytes", "must be a multiple of 4 (bytes per word)");
    if (r.ok() && (overflow || c.vmemBytes != *product))
      r.fail("vmem.bytes",
             "must equal blocks x pages_per_block x page_bytes (" +
                 (overflow ? std::string("which overflows 64 bits")
                           : std::to_string(*product)) +
                 ")");
  }
}

/// mxu: the systolic array's shape, dataflow and overlap.
static void readMxu(JsonReader &r, const json &doc, MachineConfig &c) {
  if (const json *mxu =
          r.object(doc, "mxu", "", {"rows", "cols", "dataflow", "overlap"})) {
    c.mxuRows = r.u32(*mxu, "rows", "mxu.", 1, kMaxUnitSize);
    c.mxuCols = r.u32(*mxu, "cols", "mxu.", 1, kMaxUnitSize);
    std::string dataflow = r.string(*mxu, "dataflow", "mxu.");
    if (dataflow == "ws")
      c.mxuDataflow = MxuDataflow::WeightStationary;
    else if (dataflow == "is")
      c.mxuDataflow = MxuDataflow::InputStationary;
    else if (dataflow == "os")
      c.mxuDataflow = MxuDataflow::OutputStationary;
    else if (r.ok())
      r.fail("mxu.dataflow", "must be \"ws\", \"is\" or \"os\"");
    c.mxuOverlap = r.boolean(*mxu, "overlap", "mxu.");
  }
}

/// vpu and scalar: the VPU's shape, pipeline and per-op costs, and the
/// scalar unit's latency.
static void readVpuAndScalar(JsonReader &r, const json &doc, MachineConfig &c) {
  if (const json *vpu = r.object(
          doc, "vpu", "", {"sublanes", "lanes", "pipeline_depth", "cost"})) {
    c.vpuSublanes = r.u32(*vpu, "sublanes", "vpu.", 1, kMaxUnitSize);
    c.vpuLanes = r.u32(*vpu, "lanes", "vpu.", 1, kMaxUnitSize);
    c.vpuPipelineDepth = r.u32(*vpu, "pipeline_depth", "vpu.", 0, kMaxUnitLatency);
    if (const json *cost =
            r.object(*vpu, "cost", "vpu.",
                     {"simple", "div", "exp", "sqrt", "reduce", "transpose"})) {
      c.vpuCostSimple = r.u32(*cost, "simple", "vpu.cost.", 1, kMaxUnitLatency);
      c.vpuCostDiv = r.u32(*cost, "div", "vpu.cost.", 1, kMaxUnitLatency);
      c.vpuCostExp = r.u32(*cost, "exp", "vpu.cost.", 1, kMaxUnitLatency);
      c.vpuCostSqrt = r.u32(*cost, "sqrt", "vpu.cost.", 1, kMaxUnitLatency);
      c.vpuCostReduce = r.u32(*cost, "reduce", "vpu.cost.", 1, kMaxUnitLatency);
      c.vpuCostTranspose =
          r.u32(*cost, "transpose", "vpu.cost.", 1, kMaxUnitLatency);
    }
  }
  if (const json *scalar = r.object(doc, "scalar", "", {"latency"}))
    c.scalarLatency = r.u32(*scalar, "latency", "scalar.", 1, kMaxUnitLatency);
}

/// dma: the outstanding DMAs, bursts and each link (SnR Fig. 4's base
/// latency and bandwidth).
static void readDma(JsonReader &r, const json &doc, MachineConfig &c) {
  if (const json *dma = r.object(doc, "dma", "",
                                 {"max_outstanding", "burst_bytes", "links"})) {
    c.maxOutstandingDmas = r.u32(*dma, "max_outstanding", "dma.", 1, kMaxOutstandingDmas);
    c.dmaBurstBytes = r.u64(*dma, "burst_bytes", "dma.", 1, kMaxBurstBytes);
    const json *links = r.get(*dma, "links", "dma.");
    if (links && !links->is_array())
      r.fail("dma.links", "must be an array");
    else if (links) {
      for (size_t i = 0; i < links->size(); ++i) {
        std::string path = "dma.links[" + std::to_string(i) + "].";
        const json &l = (*links)[i];
        if (!l.is_object()) {
          r.fail(path.substr(0, path.size() - 1), "must be an object");
          break;
        }
        r.onlyKeys(l, path, {"src", "dst", "base_latency",
                             "bytes_per_cycle"});
        LinkConfig link;
        std::string src = r.string(l, "src", path);
        std::string dst = r.string(l, "dst", path);
        if (r.error.empty() && !parseSpace(src, link.src))
          r.fail(path + "src", "must be \"hbm\" or \"vmem\"");
        if (r.error.empty() && !parseSpace(dst, link.dst))
          r.fail(path + "dst", "must be \"hbm\" or \"vmem\"");
        link.name = src + "->" + dst;
        link.baseLatency = r.u64(l, "base_latency", path, 0, kMaxBaseLatency);
        link.bytesPerCycle = r.number(l, "bytes_per_cycle", path, kMinBytesPerCycle,
                                       kMaxBytesPerCycle);
        link.milliBytesPerCycle = toMilli(link.bytesPerCycle);
        if (r.error.empty() && c.findLink(link.src, link.dst) >= 0)
          r.fail(path + "src", "duplicate link " + link.name);
        c.links.push_back(link);
      }
    }
  }
}

/// ici.dims of a `kind` topology into `dims` (X, Y, Z; Z is 1 for a
/// torus2d): as many as the topology has, each in [1, kMaxChips].
static void readIciDims(JsonReader &r, const json &ici, TopologyKind kind,
                        unsigned dims[3]) {
  if (const json *d = r.array(ici, "dims", "ici."); d && r.ok()) {
    unsigned want = Topology::getNumDims(kind);
    if (want == 2 && d->size() != 2)
      r.fail("ici.dims", "must be [X, Y] for a torus2d");
    else if (want == 3 && d->size() != 3)
      r.fail("ici.dims", "must be [X, Y, Z] for a torus3d");
    else if (!want && !d->empty())
      r.fail("ici.dims",
             "must be [] unless the topology is torus2d or torus3d");
    for (size_t i = 0; r.ok() && i < d->size(); ++i) {
      const json &v = (*d)[i];
      if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 ||
          v.get<uint64_t>() > Topology::kMaxChips)
        r.fail("ici.dims[" + std::to_string(i) + "]",
               "must be an integer in [1, " +
                   std::to_string(Topology::kMaxChips) + "]");
      else
        dims[i] = unsigned(v.get<uint64_t>());
    }
  }
}

/// chips' ICI: the topology and its dims, hop latency, bandwidth, packets
/// and switching; the Topology it makes of config.chips chips.
static void readIci(JsonReader &r, const json &doc, MachineConfig &c) {
  if (const json *ici =
          r.object(doc, "ici", "",
                   {"topology", "dims", "hop_latency", "bytes_per_cycle",
                    "packet_bytes", "switching"})) {
    std::string kind = r.string(*ici, "topology", "ici.");
    std::optional<TopologyKind> parsed = parseTopologyKind(kind);
    if (r.ok() && !parsed)
      r.fail("ici.topology",
             "must be \"ring\", \"torus2d\", \"torus3d\" or \"full\"");
    c.iciHopLatency = r.u64(*ici, "hop_latency", "ici.", 0, kMaxBaseLatency);
    c.iciBytesPerCycle = r.number(*ici, "bytes_per_cycle", "ici.",
                                  kMinBytesPerCycle, kMaxBytesPerCycle);
    c.iciMilliBytesPerCycle = toMilli(c.iciBytesPerCycle);
    c.iciPacketBytes = r.u64(*ici, "packet_bytes", "ici.", 1, 1ull << 30);
    std::string switching = r.string(*ici, "switching", "ici.");
    if (r.ok()) {
      std::optional<IciSwitching> s = parseIciSwitching(switching);
      if (!s)
        r.fail("ici.switching",
               "must be \"cut_through\" or \"store_and_forward\"");
      else
        c.iciSwitching = *s;
    }
    unsigned dims[3] = {0, 0, 1};
    if (parsed)
      readIciDims(r, *ici, *parsed, dims);
    if (r.ok()) {
      auto topology =
          Topology::create(*parsed, c.chips, dims[0], dims[1], dims[2]);
      if (!topology)
        r.fail(Topology::getNumDims(*parsed) ? "ici.dims" : "chips",
               llvm::toString(topology.takeError()));
      else
        c.topology = std::move(*topology);
    }
  }
}

/// sources: free-form provenance, but of the documented shape: an object
/// of texts (it may be deleted).
static void checkSources(JsonReader &r, const json &doc) {
  if (const json *sources = JsonReader::find(doc, "sources"); sources && r.ok()) {
    if (!sources->is_object())
      r.fail("sources", "must be an object");
    else
      for (auto it = sources->begin(); r.ok() && it != sources->end(); ++it)
        if (!it->is_string())
          r.fail("sources." + it.key(), "must be a string");
  }
}

llvm::Expected<MachineConfig>
MachineConfig::fromJson(llvm::StringRef overrideText,
                        llvm::StringRef sourceName, llvm::StringRef baseText) {
  auto merged = mergeConfigDocument(overrideText, sourceName, baseText);
  if (!merged)
    return merged.takeError();
  json &doc = *merged;
  JsonReader r(sourceName.str());
  MachineConfig c;
  r.onlyKeys(doc, "",
             {"name", "clock_ghz", "hbm", "vmem", "mxu", "vpu", "scalar", "dma",
              "chips", "calibration", "ici", "sources"});
  c.name = r.string(doc, "name", "");
  c.clockGHz = r.number(doc, "clock_ghz", "", 0, 1000, /*minExclusive=*/true);
  readMemories(r, doc, c);
  readMxu(r, doc, c);
  readVpuAndScalar(r, doc, c);
  readDma(r, doc, c);
  detail::readCalibration(r, doc, c, sourceName);
  c.chips = r.u32(doc, "chips", "", 1, Topology::kMaxChips);
  readIci(r, doc, c);
  checkSources(r, doc);
  if (!r.error.empty())
    return llvm::createStringError(r.error);
  c.jsonText = dumpJson(doc, 2);
  return c;
}

MachineConfig MachineConfig::getDefault() {
  auto c = fromJson("", "<default>");
  if (!c) // The embedded default is validated by a unit test.
    llvm::report_fatal_error(c.takeError());
  return std::move(*c);
}

llvm::Expected<MachineConfig>
MachineConfig::forProgramChips(unsigned programChips) const {
  if (programChips == chips)
    return *this;
  if (chips != 1)
    return llvm::createStringError(
        "the program asks for %u chips (accel.chips) but the config has %u",
        programChips, chips);
  json doc = json::parse(jsonText);
  doc["chips"] = programChips;
  auto c = fromJson(dumpJson(doc), name.empty() ? "<config>" : name);
  if (!c)
    return c.takeError();
  return std::move(*c);
}

llvm::Expected<MachineConfig> MachineConfig::fromFile(llvm::StringRef path) {
  auto buf = readInputFile(path, InputKind::Json);
  if (!buf)
    return llvm::createStringError("%s: cannot read: %s", path.str().c_str(),
                                   llvm::toString(buf.takeError()).c_str());
  return fromJson((*buf)->getBuffer(), path);
}

//===- MachineConfigTest.cpp - Default machine and JSON overrides ---------===//

#include "accel/Sim/MachineConfig.h"

#include <gtest/gtest.h>

#include <string>

using namespace accel;
using namespace accel::sim;
using isa::MemSpace;

namespace {

std::string errorOf(llvm::StringRef text, llvm::StringRef source = "cfg.json") {
  auto c = MachineConfig::fromJson(text, source);
  if (c)
    return "<no error>";
  return llvm::toString(c.takeError());
}

MachineConfig parseOk(llvm::StringRef text) {
  auto c = MachineConfig::fromJson(text, "cfg.json");
  EXPECT_TRUE(bool(c)) << (c ? "" : llvm::toString(c.takeError()));
  return c ? std::move(*c) : MachineConfig();
}

/// Every field but jsonText.
void expectSameFields(const MachineConfig &a, const MachineConfig &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.clockGHz, b.clockGHz);
  EXPECT_EQ(a.hbmBytes, b.hbmBytes);
  EXPECT_EQ(a.hbmMilliBytesPerCycle, b.hbmMilliBytesPerCycle);
  EXPECT_EQ(a.dmaBurstBytes, b.dmaBurstBytes);
  EXPECT_EQ(a.vmemBytes, b.vmemBytes);
  EXPECT_EQ(a.vmemPageBytes, b.vmemPageBytes);
  EXPECT_EQ(a.vmemBlocks, b.vmemBlocks);
  EXPECT_EQ(a.vmemPagesPerBlock, b.vmemPagesPerBlock);
  EXPECT_EQ(a.mxuRows, b.mxuRows);
  EXPECT_EQ(a.mxuCols, b.mxuCols);
  EXPECT_EQ(a.mxuDataflow, b.mxuDataflow);
  EXPECT_EQ(a.mxuOverlap, b.mxuOverlap);
  EXPECT_EQ(a.vpuSublanes, b.vpuSublanes);
  EXPECT_EQ(a.vpuLanes, b.vpuLanes);
  EXPECT_EQ(a.vpuPipelineDepth, b.vpuPipelineDepth);
  EXPECT_EQ(a.vpuCostSimple, b.vpuCostSimple);
  EXPECT_EQ(a.vpuCostDiv, b.vpuCostDiv);
  EXPECT_EQ(a.vpuCostExp, b.vpuCostExp);
  EXPECT_EQ(a.vpuCostSqrt, b.vpuCostSqrt);
  EXPECT_EQ(a.vpuCostReduce, b.vpuCostReduce);
  EXPECT_EQ(a.scalarLatency, b.scalarLatency);
  EXPECT_EQ(a.maxOutstandingDmas, b.maxOutstandingDmas);
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    SCOPED_TRACE("link " + std::to_string(i));
    EXPECT_EQ(a.links[i].name, b.links[i].name);
    EXPECT_EQ(a.links[i].src, b.links[i].src);
    EXPECT_EQ(a.links[i].dst, b.links[i].dst);
    EXPECT_EQ(a.links[i].baseLatency, b.links[i].baseLatency);
    EXPECT_EQ(a.links[i].bytesPerCycle, b.links[i].bytesPerCycle);
  }
}

TEST(MachineConfigTest, DefaultHasDocumentedValues) {
  auto parsed = MachineConfig::fromJson("", "<default>");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  MachineConfig c = MachineConfig::getDefault();
  expectSameFields(c, *parsed);

  EXPECT_EQ(c.name, "accel-default");
  EXPECT_EQ(c.clockGHz, 1.05);
  EXPECT_EQ(c.hbmBytes, 32ull << 30); // 32 GiB
  // 1200 GB/s at 1.05 GHz, kept to 0.001 B/cycle; 64-byte bursts.
  EXPECT_EQ(c.hbmMilliBytesPerCycle, 1142857u);
  EXPECT_EQ(c.dmaBurstBytes, 64u);
  // VMEM: 32 MiB = 128 blocks x 256 pages x 1 KiB.
  EXPECT_EQ(c.vmemBytes, 32ull << 20);
  EXPECT_EQ(c.vmemBytes, 33554432u);
  EXPECT_EQ(c.vmemBlocks, 128u);
  EXPECT_EQ(c.vmemPagesPerBlock, 256u);
  EXPECT_EQ(c.vmemPageBytes, 1024u);
  EXPECT_EQ(uint64_t(c.vmemBlocks) * c.vmemPagesPerBlock * c.vmemPageBytes,
            c.vmemBytes);
  EXPECT_EQ(c.mxuRows, 128u);
  EXPECT_EQ(c.mxuCols, 128u);
  EXPECT_EQ(c.vpuSublanes, 8u);
  EXPECT_EQ(c.vpuLanes, 128u);
  EXPECT_EQ(c.vpuPipelineDepth, 8u);
  EXPECT_EQ(c.vpuCostSimple, 1u);
  EXPECT_EQ(c.vpuCostDiv, 4u);
  EXPECT_EQ(c.vpuCostExp, 4u);
  EXPECT_EQ(c.vpuCostSqrt, 4u);
  EXPECT_EQ(c.vpuCostReduce, 2u);
  EXPECT_EQ(c.scalarLatency, 1u);
  EXPECT_EQ(c.maxOutstandingDmas, 64u);

  ASSERT_EQ(c.links.size(), 3u);
  int load = c.findLink(MemSpace::HBM, MemSpace::VMEM);
  ASSERT_EQ(load, 0);
  EXPECT_EQ(c.links[0].name, "hbm->vmem");
  EXPECT_EQ(c.links[0].baseLatency, 500u);
  EXPECT_EQ(c.links[0].bytesPerCycle, 1024.0);
  int store = c.findLink(MemSpace::VMEM, MemSpace::HBM);
  ASSERT_EQ(store, 1);
  EXPECT_EQ(c.links[1].name, "vmem->hbm");
  EXPECT_EQ(c.links[1].baseLatency, 500u);
  EXPECT_EQ(c.links[1].bytesPerCycle, 1024.0);
  int local = c.findLink(MemSpace::VMEM, MemSpace::VMEM);
  ASSERT_EQ(local, 2);
  EXPECT_EQ(c.links[2].name, "vmem->vmem");
  EXPECT_EQ(c.links[2].baseLatency, 100u);
  EXPECT_EQ(c.links[2].bytesPerCycle, 2048.0);
  EXPECT_EQ(c.findLink(MemSpace::HBM, MemSpace::HBM), -1);

  EXPECT_FALSE(c.jsonText.empty());
  EXPECT_EQ(c.hash(), parsed->hash());
  // 16 lower-case hex digits.
  std::string h = c.hash();
  ASSERT_EQ(h.size(), 16u);
  for (char ch : h)
    EXPECT_TRUE((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')) << h;
}

// The hash is xxh3-64 of the merged text (docs/config.md, "The config
// hash"): XXH3_64bits of no bytes is 0x2d06800538d394c2 in the xxHash
// reference implementation.
TEST(MachineConfigTest, HashIsXxh3OfTheText) {
  MachineConfig c = MachineConfig::getDefault();
  c.jsonText = "";
  EXPECT_EQ(c.hash(), "2d06800538d394c2");
}

TEST(MachineConfigTest, DefaultJsonIsTheEmbeddedText) {
  llvm::StringRef text = MachineConfig::defaultJson();
  EXPECT_TRUE(text.starts_with("{"));
  EXPECT_NE(text.find("\"sources\""), llvm::StringRef::npos);
  // Feeding the default back as an override changes nothing.
  MachineConfig c = parseOk(text);
  expectSameFields(c, MachineConfig::getDefault());
  EXPECT_EQ(c.hash(), MachineConfig::getDefault().hash());
}

TEST(MachineConfigTest, OverrideChangesOnlyTheGivenField) {
  MachineConfig def = MachineConfig::getDefault();
  MachineConfig c = parseOk(R"({"mxu": {"rows": 64}})");
  EXPECT_EQ(c.mxuRows, 64u);
  EXPECT_EQ(c.mxuCols, 128u); // sibling kept (JSON merge patch)
  MachineConfig expected = def;
  expected.mxuRows = 64;
  expectSameFields(c, expected);

  MachineConfig s = parseOk(R"({"scalar": {"latency": 3}, "name": "slow"})");
  expected = def;
  expected.scalarLatency = 3;
  expected.name = "slow";
  expectSameFields(s, expected);

  MachineConfig v = parseOk(R"({"vpu": {"cost": {"div": 9}}})");
  expected = def;
  expected.vpuCostDiv = 9;
  expectSameFields(v, expected);

  // An empty object is the default.
  expectSameFields(parseOk("{}"), def);
  EXPECT_EQ(parseOk("{}").hash(), def.hash());
}

TEST(MachineConfigTest, OverrideReplacesTheLinkArray) {
  // Arrays are replaced as a whole (JSON merge patch, RFC 7386).
  MachineConfig c = parseOk(R"({"dma": {"links": [
      {"src": "hbm", "dst": "vmem", "base_latency": 100,
       "bytes_per_cycle": 64}]}})");
  ASSERT_EQ(c.links.size(), 1u);
  EXPECT_EQ(c.links[0].name, "hbm->vmem");
  EXPECT_EQ(c.links[0].src, MemSpace::HBM);
  EXPECT_EQ(c.links[0].dst, MemSpace::VMEM);
  EXPECT_EQ(c.links[0].baseLatency, 100u);
  EXPECT_EQ(c.links[0].bytesPerCycle, 64.0);
  EXPECT_EQ(c.findLink(MemSpace::VMEM, MemSpace::HBM), -1);
  EXPECT_EQ(c.maxOutstandingDmas, 64u); // sibling of links kept
}

// The byte offset of a syntax error is the 0-based offset of the offending
// character, as for every other "byte offset" in accel (images, "byte 0" for
// a non-object config, docs/config.md "Validation errors").
TEST(MachineConfigTest, SyntaxErrorNamesByteOffset) {
  // {"mxu": }   '}' is at offset 8 (0-based).
  std::string msg = errorOf(R"({"mxu": })");
  EXPECT_EQ(msg.rfind("cfg.json: byte ", 0), 0u) << msg;
  EXPECT_NE(msg.find("syntax error"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unexpected '}'"), std::string::npos) << msg;
  // Line/column information (1-based) comes along from the parser.
  EXPECT_NE(msg.find("line 1, column 9"), std::string::npos) << msg;
}

TEST(MachineConfigTest, SyntaxErrorByteIsZeroBased) {
  struct Case {
    const char *text;
    size_t offset; ///< 0-based offset of the offending character
  } cases[] = {
      // {"mxu": }      '}' at offset 8.
      {R"({"mxu": })", 8},
      // {\n  "mxu": 1,\n}   '{'0 '\n'1 ' '2 ' '3 '"'4 'm'5 'x'6 'u'7 '"'8
      // ':'9 ' '10 '1'11 ','12 '\n'13 '}'14: the '}' after the trailing
      // comma is at offset 14.
      {"{\n  \"mxu\": 1,\n}", 14},
      // {"mxu":     8 bytes, unexpected end of input at offset 8.
      {R"({"mxu": )", 8},
      // The example of docs/config.md: {"mxu": {"rows": 64,}}  the '}'
      // after the trailing comma is at offset 20 (column 21).
      {R"({"mxu": {"rows": 64,}})", 20},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.text);
    std::string msg = errorOf(c.text);
    std::string want = "cfg.json: byte " + std::to_string(c.offset) + ": ";
    EXPECT_EQ(msg.rfind(want, 0), 0u) << msg;
  }
}

TEST(MachineConfigTest, TopLevelMustBeAnObject) {
  EXPECT_EQ(errorOf("[1, 2]"),
            "cfg.json: byte 0: the config must be a JSON object");
  EXPECT_EQ(errorOf("42"), "cfg.json: byte 0: the config must be a JSON object");
  EXPECT_EQ(errorOf("\"x\"", "other.json"),
            "other.json: byte 0: the config must be a JSON object");
}

TEST(MachineConfigTest, UnknownField) {
  EXPECT_EQ(errorOf(R"({"mxu": {"depth": 4}})"),
            "cfg.json: field 'mxu.depth': unknown field");
  EXPECT_EQ(errorOf(R"({"turbo": true})"),
            "cfg.json: field 'turbo': unknown field");
  EXPECT_EQ(errorOf(R"({"vpu": {"cost": {"log": 3}}})"),
            "cfg.json: field 'vpu.cost.log': unknown field");
  EXPECT_EQ(errorOf(R"({"dma": {"links": [{"src": "hbm", "dst": "vmem",
      "base_latency": 1, "bytes_per_cycle": 1, "width": 2}]}})"),
            "cfg.json: field 'dma.links[0].width': unknown field");
}

TEST(MachineConfigTest, WrongType) {
  EXPECT_EQ(errorOf(R"({"mxu": {"rows": "128"}})"),
            "cfg.json: field 'mxu.rows': must be a non-negative integer");
  EXPECT_EQ(errorOf(R"({"mxu": {"rows": 12.5}})"),
            "cfg.json: field 'mxu.rows': must be a non-negative integer");
  EXPECT_EQ(errorOf(R"({"scalar": {"latency": -1}})"),
            "cfg.json: field 'scalar.latency': must be a non-negative integer");
  EXPECT_EQ(errorOf(R"({"name": 5})"), "cfg.json: field 'name': must be a string");
  EXPECT_EQ(errorOf(R"({"mxu": 128})"), "cfg.json: field 'mxu': must be an object");
  EXPECT_EQ(errorOf(R"({"clock_ghz": "fast"})"),
            "cfg.json: field 'clock_ghz': must be a number");
  EXPECT_EQ(errorOf(R"({"dma": {"links": {}}})"),
            "cfg.json: field 'dma.links': must be an array");
  EXPECT_EQ(errorOf(R"({"dma": {"links": [7]}})"),
            "cfg.json: field 'dma.links[0]': must be an object");
  EXPECT_EQ(errorOf(R"({"mxu": {"dataflow": "rs"}})"),
            "cfg.json: field 'mxu.dataflow': must be \"ws\", \"is\" or \"os\"");
  EXPECT_EQ(errorOf(R"({"mxu": {"dataflow": 1}})"),
            "cfg.json: field 'mxu.dataflow': must be a string");
  EXPECT_EQ(errorOf(R"({"mxu": {"overlap": 1}})"),
            "cfg.json: field 'mxu.overlap': must be true or false");
  EXPECT_EQ(errorOf(R"({"mxu": {"overlap": "yes"}})"),
            "cfg.json: field 'mxu.overlap': must be true or false");
}

TEST(MachineConfigTest, HbmBandwidthAndBurstRanges) {
  EXPECT_EQ(errorOf(R"({"dma": {"burst_bytes": 0}})"),
            "cfg.json: field 'dma.burst_bytes': must be >= 1");
  EXPECT_EQ(errorOf(R"({"dma": {"burst_bytes": 65537}})"),
            "cfg.json: field 'dma.burst_bytes': must be <= 65536");
  EXPECT_EQ(errorOf(R"({"hbm": {"bytes_per_cycle": 0}})"),
            "cfg.json: field 'hbm.bytes_per_cycle': must be >= 0.001");
  EXPECT_EQ(
      parseOk(R"({"hbm": {"bytes_per_cycle": 2.5}})").hbmMilliBytesPerCycle,
      2500u);
}

TEST(MachineConfigTest, MxuDataflowAndOverlap) {
  MachineConfig d = MachineConfig::getDefault();
  EXPECT_EQ(d.mxuDataflow, MxuDataflow::WeightStationary);
  EXPECT_TRUE(d.mxuOverlap);
  MachineConfig c = parseOk(R"({"mxu": {"dataflow": "os", "overlap": false}})");
  EXPECT_EQ(c.mxuDataflow, MxuDataflow::OutputStationary);
  EXPECT_FALSE(c.mxuOverlap);
  EXPECT_EQ(c.mxuRows, 128u); // the other fields keep their defaults
  EXPECT_EQ(parseOk(R"({"mxu": {"dataflow": "is"}})").mxuDataflow,
            MxuDataflow::InputStationary);
  EXPECT_EQ(mxuDataflowName(MxuDataflow::InputStationary), "is");
  EXPECT_NE(c.hash(), d.hash());
}

TEST(MachineConfigTest, OutOfRangeValues) {
  EXPECT_EQ(errorOf(R"({"mxu": {"cols": 0}})"),
            "cfg.json: field 'mxu.cols': must be >= 1");
  EXPECT_EQ(errorOf(R"({"clock_ghz": 0})"),
            "cfg.json: field 'clock_ghz': must be > 0");
  // A null in a merge patch deletes the field.
  EXPECT_EQ(errorOf(R"({"mxu": {"rows": null}})"),
            "cfg.json: field 'mxu.rows': missing");
  // pipeline_depth and base_latency may be 0.
  EXPECT_EQ(parseOk(R"({"vpu": {"pipeline_depth": 0}})").vpuPipelineDepth, 0u);
}

TEST(MachineConfigTest, ValuesTooLargeForTheFieldAreRejected) {
  // 2^32 does not fit the 32-bit mxu.rows; it must not silently become 0
  // (which would make the MXU latency divide by zero).
  auto c = MachineConfig::fromJson(R"({"mxu": {"rows": 4294967296}})",
                                   "cfg.json");
  ASSERT_FALSE(bool(c)) << "mxu.rows parsed as " << c->mxuRows;
  std::string msg = llvm::toString(c.takeError());
  EXPECT_EQ(msg.rfind("cfg.json: field 'mxu.rows': ", 0), 0u) << msg;
}

TEST(MachineConfigTest, ZeroBandwidth) {
  EXPECT_EQ(errorOf(R"({"dma": {"links": [
      {"src": "hbm", "dst": "vmem", "base_latency": 100,
       "bytes_per_cycle": 0}]}})"),
            "cfg.json: field 'dma.links[0].bytes_per_cycle': must be >= 0.001");
  EXPECT_EQ(errorOf(R"({"dma": {"links": [
      {"src": "hbm", "dst": "vmem", "base_latency": 100,
       "bytes_per_cycle": 64},
      {"src": "vmem", "dst": "hbm", "base_latency": 100,
       "bytes_per_cycle": -2.5}]}})"),
            "cfg.json: field 'dma.links[1].bytes_per_cycle': must be >= 0.001");
}

TEST(MachineConfigTest, VmemSizeMustMatchGeometry) {
  // 128 x 256 x 1024 = 33554432, not 1048576.
  EXPECT_EQ(errorOf(R"({"vmem": {"bytes": 1048576}})"),
            "cfg.json: field 'vmem.bytes': must equal blocks x "
            "pages_per_block x page_bytes (33554432)");
  // Changing the geometry alone: 64 x 256 x 1024 = 16777216.
  EXPECT_EQ(errorOf(R"({"vmem": {"blocks": 64}})"),
            "cfg.json: field 'vmem.bytes': must equal blocks x "
            "pages_per_block x page_bytes (16777216)");
  // Consistent change: 64 x 256 x 1024 = 16 MiB.
  MachineConfig c = parseOk(R"({"vmem": {"blocks": 64, "bytes": 16777216}})");
  EXPECT_EQ(c.vmemBytes, 16777216u);
  EXPECT_EQ(c.vmemBlocks, 64u);
}

TEST(MachineConfigTest, BadLinkSpace) {
  EXPECT_EQ(errorOf(R"({"dma": {"links": [
      {"src": "dram", "dst": "vmem", "base_latency": 1,
       "bytes_per_cycle": 1}]}})"),
            "cfg.json: field 'dma.links[0].src': must be \"hbm\" or \"vmem\"");
  EXPECT_EQ(errorOf(R"({"dma": {"links": [
      {"src": "hbm", "dst": "HBM", "base_latency": 1,
       "bytes_per_cycle": 1}]}})"),
            "cfg.json: field 'dma.links[0].dst': must be \"hbm\" or \"vmem\"");
}

TEST(MachineConfigTest, DuplicateLink) {
  EXPECT_EQ(errorOf(R"({"dma": {"links": [
      {"src": "hbm", "dst": "vmem", "base_latency": 1, "bytes_per_cycle": 1},
      {"src": "vmem", "dst": "hbm", "base_latency": 1, "bytes_per_cycle": 1},
      {"src": "hbm", "dst": "vmem", "base_latency": 2, "bytes_per_cycle": 2}
    ]}})"),
            "cfg.json: field 'dma.links[2].src': duplicate link hbm->vmem");
}

TEST(MachineConfigTest, ChipsAndIci) {
  MachineConfig one = parseOk("");
  EXPECT_EQ(one.chips, 1u);
  EXPECT_EQ(one.topology.getNumChips(), 1u);
  EXPECT_EQ(one.getNumDmaLinks(), one.links.size());
  MachineConfig ring = parseOk(R"({"chips": 4})");
  EXPECT_EQ(ring.topology.getKind(), TopologyKind::Ring);
  EXPECT_EQ(ring.topology.getNumLinks(), 8u);
  EXPECT_EQ(ring.getLinkName(unsigned(ring.links.size()) + 1), "ici 0->3");
  MachineConfig torus = parseOk(
      R"({"chips": 8, "ici": {"topology": "torus2d", "dims": [4, 2],
          "hop_latency": 7, "bytes_per_cycle": 2.5}})");
  EXPECT_EQ(torus.topology.getKind(), TopologyKind::Torus2D);
  EXPECT_EQ(torus.iciHopLatency, 7u);
  EXPECT_EQ(torus.iciBytesPerCycle, 2.5);
  EXPECT_EQ(torus.topology.route(0, 5).size(), 2u); // x+1, then y+1

  EXPECT_EQ(errorOf(R"({"chips": 0})"),
            "cfg.json: field 'chips': must be >= 1");
  EXPECT_EQ(errorOf(R"({"chips": 1025})"),
            "cfg.json: field 'chips': must be <= 1024");
  EXPECT_EQ(errorOf(R"({"ici": {"topology": "mesh"}})"),
            "cfg.json: field 'ici.topology': must be \"ring\", \"torus2d\", "
            "\"torus3d\" or \"full\"");
  EXPECT_EQ(errorOf(R"({"chips": 6, "ici": {"topology": "torus2d",
                        "dims": [4, 2]}})"),
            "cfg.json: field 'ici.dims': ici.dims [4, 2] hold 8 chips, not 6");
  EXPECT_EQ(errorOf(R"({"chips": 8, "ici": {"topology": "torus2d"}})"),
            "cfg.json: field 'ici.dims': must be [X, Y] for a torus2d");
  EXPECT_EQ(errorOf(R"({"chips": 8, "ici": {"dims": [2, 4]}})"),
            "cfg.json: field 'ici.dims': must be [] unless the topology is "
            "torus2d or torus3d");
  EXPECT_EQ(errorOf(R"({"chips": 8, "ici": {"topology": "torus2d",
                        "dims": [0, 8]}})"),
            "cfg.json: field 'ici.dims[0]': must be an integer in [1, 1024]");
  EXPECT_EQ(errorOf(R"({"ici": {"bytes_per_cycle": 0}})"),
            "cfg.json: field 'ici.bytes_per_cycle': must be >= 0.001");

  // A 3-D torus, the packet size and the switching.
  EXPECT_EQ(one.iciPacketBytes, 256u);
  EXPECT_EQ(one.iciSwitching, IciSwitching::CutThrough);
  MachineConfig cube = parseOk(
      R"({"chips": 12, "ici": {"topology": "torus3d", "dims": [2, 3, 2],
          "packet_bytes": 1024, "switching": "store_and_forward"}})");
  EXPECT_EQ(cube.topology.getKind(), TopologyKind::Torus3D);
  EXPECT_EQ(cube.iciPacketBytes, 1024u);
  EXPECT_EQ(cube.iciSwitching, IciSwitching::StoreAndForward);
  // Chip 11 is (1, 2, 1): x+1 (wraps: a tie on 2 goes up), y-1 (3 -> the
  // shorter way from 0 to 2 is down), z+1.
  EXPECT_EQ(cube.topology.route(0, 11).size(), 3u);
  EXPECT_EQ(errorOf(R"({"chips": 12, "ici": {"topology": "torus3d",
                        "dims": [2, 6]}})"),
            "cfg.json: field 'ici.dims': must be [X, Y, Z] for a torus3d");
  EXPECT_EQ(errorOf(R"({"chips": 12, "ici": {"topology": "torus3d",
                        "dims": [2, 2, 2]}})"),
            "cfg.json: field 'ici.dims': ici.dims [2, 2, 2] hold 8 chips, "
            "not 12");
  EXPECT_EQ(errorOf(R"({"ici": {"packet_bytes": 0}})"),
            "cfg.json: field 'ici.packet_bytes': must be >= 1");
  EXPECT_EQ(errorOf(R"({"ici": {"switching": "wormhole"}})"),
            "cfg.json: field 'ici.switching': must be \"cut_through\" or "
            "\"store_and_forward\"");
}

TEST(MachineConfigTest, HashDependsOnEveryField) {
  std::string def = MachineConfig::getDefault().hash();
  std::string rows = parseOk(R"({"mxu": {"rows": 64}})").hash();
  std::string cols = parseOk(R"({"mxu": {"cols": 64}})").hash();
  std::string lat = parseOk(R"({"scalar": {"latency": 2}})").hash();
  std::string clock = parseOk(R"({"clock_ghz": 1.0})").hash();
  EXPECT_NE(def, rows);
  EXPECT_NE(def, cols);
  EXPECT_NE(rows, cols);
  EXPECT_NE(def, lat);
  EXPECT_NE(def, clock);
  // Same content, same hash, whatever the override's spelling.
  EXPECT_EQ(rows, parseOk("{ \"mxu\" : { \"rows\" : 64 } }").hash());
  // Overriding with the default value does not change the hash.
  EXPECT_EQ(def, parseOk(R"({"mxu": {"rows": 128}})").hash());
}

TEST(MachineConfigTest, FromFileErrorsNameThePath) {
  auto c = MachineConfig::fromFile("/nonexistent/accel-config.json");
  ASSERT_FALSE(bool(c));
  std::string msg = llvm::toString(c.takeError());
  EXPECT_EQ(msg.rfind("/nonexistent/accel-config.json: cannot read: ", 0), 0u)
      << msg;
}

} // namespace

// Issue 12: numbers that overflowed later arithmetic, exceptions nlohmann
// threw, and sizes that allocated without bound are one error each.
TEST(MachineConfigTest, HostileNumbersAreOneError) {
  // A number beyond double's range: nlohmann's out_of_range.406 escaped.
  EXPECT_EQ(errorOf(R"({"clock_ghz": 1e400})"),
            "cfg.json: byte 14: number overflow parsing '1e400'");
  EXPECT_EQ(errorOf(R"({"clock_ghz": 1e9})"),
            "cfg.json: field 'clock_ghz': must be <= 1000");
  // 1e-300 bytes per cycle overflowed the float-to-integer conversion of
  // transfer cycles (0 stall cycles, exit 0).
  EXPECT_EQ(errorOf(R"({"dma": {"links": [{"src": "hbm", "dst": "vmem",
      "base_latency": 1, "bytes_per_cycle": 1e-300}]}})"),
            "cfg.json: field 'dma.links[0].bytes_per_cycle': must be >= 0.001");
  // A base latency of 2^64-1 wrapped around.
  EXPECT_EQ(errorOf(R"({"dma": {"links": [{"src": "hbm", "dst": "vmem",
      "base_latency": 18446744073709551615, "bytes_per_cycle": 1}]}})"),
            "cfg.json: field 'dma.links[0].base_latency': must be <= " +
                std::to_string(kMaxBaseLatency));
  // 64 GiB of VMEM was allocated in full.
  EXPECT_EQ(errorOf(R"({"vmem": {"bytes": 68719476736, "blocks": 65536,
      "pages_per_block": 1024, "page_bytes": 1024}})"),
            "cfg.json: field 'vmem.bytes': must be <= 4294967296");
  // A page that is not a whole number of words gave misaligned accesses.
  EXPECT_EQ(errorOf(R"({"vmem": {"bytes": 98304, "blocks": 128,
      "pages_per_block": 256, "page_bytes": 3}})"),
            "cfg.json: field 'vmem.page_bytes': must be >= 4");
  EXPECT_EQ(errorOf(R"({"vmem": {"bytes": 196608, "blocks": 128,
      "pages_per_block": 256, "page_bytes": 6}})"),
            "cfg.json: field 'vmem.page_bytes': must be a multiple of 4 "
            "(bytes per word)");
  // blocks x pages_per_block x page_bytes wrapping to vmem.bytes.
  EXPECT_EQ(errorOf(R"({"vmem": {"bytes": 4096, "blocks": 4294967295,
      "pages_per_block": 4294967295, "page_bytes": 4294967296}})"),
            "cfg.json: field 'vmem.bytes': must equal blocks x "
            "pages_per_block x page_bytes (which overflows 64 bits)");
  EXPECT_EQ(errorOf(R"({"mxu": {"rows": 100000}})"),
            "cfg.json: field 'mxu.rows': must be <= 65536");
}

TEST(MachineConfigTest, DeepNestingIsOneError) {
  // 10^5 nested arrays overflowed the stack in merge_patch and dump.
  std::string deep = "{\"sources\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_EQ(errorOf(deep),
            "cfg.json: byte 75: nesting deeper than 64 arrays and objects");
  // Brackets inside strings do not count.
  MachineConfig c =
      parseOk(R"({"sources": {"x": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}})");
  EXPECT_EQ(c.mxuRows, 128u);
}

TEST(MachineConfigTest, InvalidUtf8IsOneError) {
  std::string bad = std::string("{\"name\": \"a") + char(0xff) + "\"}";
  std::string msg = errorOf(bad);
  EXPECT_EQ(msg.rfind("cfg.json: byte 11: ", 0), 0u) << msg;
}

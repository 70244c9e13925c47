//===- SystemMemoryTest.cpp - Available memory, lazy VMEM, footprints -----===//
//
// Issue 31: the parsers of /proc and cgroup text behind
// accel::availableMemoryBytes, their combination, the default instruction
// budget derived from it, and the simulated memories' footprint check and
// lazy VMEM.
//
//===----------------------------------------------------------------------===//

#include "accel/Fdo/Run.h"
#include "accel/Sim/Memory.h"
#include "accel/Support/SystemMemory.h"

#include "TestPrograms.h"

#include <gtest/gtest.h>

using namespace accel;
using namespace accel::sim;

namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

TEST(SystemMemoryTest, ProcKibFields) {
  const char *meminfo = "MemTotal:       24684540 kB\n"
                        "MemFree:        23492104 kB\n"
                        "MemAvailable:   24152140 kB\n"
                        "Buffers:            1234 kB\n";
  EXPECT_EQ(parseProcKibField(meminfo, "MemAvailable"), 24152140 * kKiB);
  EXPECT_EQ(parseProcKibField(meminfo, "MemTotal"), 24684540 * kKiB);
  // "MemAvailableX" is not "MemAvailable"; a missing field is unknown.
  EXPECT_EQ(parseProcKibField("MemAvailableX: 5 kB\n", "MemAvailable"),
            std::nullopt);
  EXPECT_EQ(parseProcKibField(meminfo, "SwapFree"), std::nullopt);
  const char *status = "Name:\taccel-replay\n"
                       "VmPeak:\t  400000 kB\n"
                       "VmSize:\t  312344 kB\n"
                       "VmData:\t   81920 kB\n";
  EXPECT_EQ(parseProcKibField(status, "VmSize"), 312344 * kKiB);
  EXPECT_EQ(parseProcKibField(status, "VmData"), 81920 * kKiB);
  // Malformed numbers, other units and values past 2^64 bytes are unknown.
  EXPECT_EQ(parseProcKibField("VmSize:\tlots kB\n", "VmSize"), std::nullopt);
  EXPECT_EQ(parseProcKibField("VmSize:\t12 MB\n", "VmSize"), std::nullopt);
  EXPECT_EQ(parseProcKibField("VmSize:\t18014398509481984 kB\n", "VmSize"),
            std::nullopt);
  // A field without a unit is bytes.
  EXPECT_EQ(parseProcKibField("HugePages_Total:  7\n", "HugePages_Total"),
            7u);
}

TEST(SystemMemoryTest, CgroupFiles) {
  EXPECT_EQ(parseCgroupLimit("max\n"), std::nullopt);
  EXPECT_EQ(parseCgroupLimit("1073741824\n"), kGiB);
  // cgroup v1's "unlimited" (PAGE_COUNTER_MAX pages).
  EXPECT_EQ(parseCgroupLimit("9223372036854771712\n"), std::nullopt);
  EXPECT_EQ(parseCgroupLimit("garbage"), std::nullopt);
  EXPECT_EQ(parseCgroupUsage("895815680\n"), 895815680u);
  EXPECT_EQ(parseCgroupUsage(""), std::nullopt);
  const char *statV2 = "anon 1000\nfile 5000\nactive_file 3000\n"
                       "inactive_file 2000\n";
  EXPECT_EQ(parseCgroupStat(statV2, "inactive_file"), 2000u);
  EXPECT_EQ(parseCgroupStat(statV2, "file"), 5000u);
  EXPECT_EQ(parseCgroupStat(statV2, "total_inactive_file"), std::nullopt);
  EXPECT_EQ(parseCgroupStat("total_inactive_file 77\n", "total_inactive_file"),
            77u);
}

TEST(SystemMemoryTest, ProcCgroupAndMounts) {
  const char *hybrid = "9:name=systemd:/\n"
                       "4:memory:/process_api/20b5de9b\n"
                       "3:cpu,cpuacct:/x\n"
                       "0::/user.slice/session-2.scope\n";
  EXPECT_EQ(parseProcCgroup(hybrid, /*v2=*/false), "/process_api/20b5de9b");
  EXPECT_EQ(parseProcCgroup(hybrid, /*v2=*/true),
            "/user.slice/session-2.scope");
  EXPECT_EQ(parseProcCgroup("5:cpuset,memory:/a\n", false), "/a");
  EXPECT_EQ(parseProcCgroup("5:cpuset:/a\n", false), std::nullopt);
  EXPECT_EQ(parseProcCgroup("", true), std::nullopt);

  const char *mountinfo =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime shared:9 - "
      "cgroup cgroup rw,memory\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 "
      "rw\n";
  auto v1 = parseCgroupMount(mountinfo, /*v2=*/false);
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->mountPoint, "/sys/fs/cgroup/memory");
  EXPECT_EQ(v1->root, "/docker/abc");
  auto v2 = parseCgroupMount(mountinfo, /*v2=*/true);
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->mountPoint, "/sys/fs/cgroup/unified");
  EXPECT_EQ(parseCgroupMount("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup "
                             "cgroup rw,cpu\n",
                             false),
            std::nullopt);

  // The process's cgroup below the mount's root, then each ancestor up to
  // the mount point.
  EXPECT_EQ(getCgroupDirectories(*v1, "/docker/abc/job/1"),
            (std::vector<std::string>{"/sys/fs/cgroup/memory/job/1",
                                      "/sys/fs/cgroup/memory/job",
                                      "/sys/fs/cgroup/memory"}));
  EXPECT_EQ(getCgroupDirectories(*v1, "/docker/abc"),
            (std::vector<std::string>{"/sys/fs/cgroup/memory"}));
  // A namespaced path (not below the root) is relative to the mount.
  CgroupMount rootMount{"/sys/fs/cgroup", "/"};
  EXPECT_EQ(getCgroupDirectories(rootMount, "/a/b"),
            (std::vector<std::string>{"/sys/fs/cgroup/a/b",
                                      "/sys/fs/cgroup/a", "/sys/fs/cgroup"}));
  EXPECT_EQ(getCgroupDirectories(rootMount, "/"),
            (std::vector<std::string>{"/sys/fs/cgroup"}));
}

TEST(SystemMemoryTest, CombineTakesTheLeast) {
  MemoryLimits l;
  EXPECT_EQ(combineMemoryLimits(l).bytes, UINT64_MAX);
  EXPECT_EQ(combineMemoryLimits(l).source, "unknown");
  l.memAvailable = 20 * kGiB;
  EXPECT_EQ(combineMemoryLimits(l).bytes, 20 * kGiB);
  EXPECT_EQ(combineMemoryLimits(l).source, "MemAvailable");
  // ulimit -v 2000000 with 300 MiB mapped: 2000000 KiB - 300 MiB.
  l.addressSpaceLimit = 2000000 * kKiB;
  l.virtualSize = 300 * kMiB;
  EXPECT_EQ(combineMemoryLimits(l).bytes, 2000000 * kKiB - 300 * kMiB);
  EXPECT_EQ(combineMemoryLimits(l).source, "RLIMIT_AS");
  l.dataLimit = 1 * kGiB;
  l.dataSize = 100 * kMiB;
  EXPECT_EQ(combineMemoryLimits(l).bytes, 924 * kMiB);
  EXPECT_EQ(combineMemoryLimits(l).source, "RLIMIT_DATA");
  l.cgroupHeadroom = {2 * kGiB, 512 * kMiB};
  l.cgroupV2 = false;
  EXPECT_EQ(combineMemoryLimits(l).bytes, 512 * kMiB);
  EXPECT_EQ(combineMemoryLimits(l).source, "cgroup memory.limit_in_bytes");
  l.cgroupV2 = true;
  EXPECT_EQ(combineMemoryLimits(l).source, "cgroup memory.max");
  // A process already past its limit has nothing left.
  l.virtualSize = 3 * kGiB;
  EXPECT_EQ(combineMemoryLimits(l).bytes, 0u);
  EXPECT_EQ(combineMemoryLimits(l).source, "RLIMIT_AS");
}

TEST(SystemMemoryTest, ThisProcess) {
  // Whatever the machine: some memory is available, and never more than
  // MemAvailable.
  MemoryLimits l = readMemoryLimits();
  AvailableMemory a = combineMemoryLimits(l);
  EXPECT_GT(a.bytes, 0u);
  if (l.memAvailable) {
    EXPECT_LE(a.bytes, *l.memAvailable);
  }
  EXPECT_NE(a.source, "unknown");
}

TEST(SystemMemoryTest, FormatBytes) {
  EXPECT_EQ(formatBytes(0), "0 bytes");
  EXPECT_EQ(formatBytes(1), "1 byte");
  EXPECT_EQ(formatBytes(1023), "1023 bytes");
  EXPECT_EQ(formatBytes(64 * kKiB), "64 KiB");
  EXPECT_EQ(formatBytes(32 * kMiB), "32 MiB");
  EXPECT_EQ(formatBytes(1536 * kMiB), "1.5 GiB");
  EXPECT_EQ(formatBytes(1024 * 32 * kMiB), "32 GiB");
  EXPECT_EQ(formatBytes(UINT64_MAX), "16.0 EiB");
}

TEST(SystemMemoryTest, InstructionBudget) {
  // Half the available memory at 2 KiB (analyzer) or 512 bytes per
  // instruction, clamped.
  EXPECT_EQ(getDefaultInstructionBudget(true, 8 * kGiB), 2u * 1024 * 1024);
  EXPECT_EQ(getDefaultInstructionBudget(false, 8 * kGiB), 8u * 1024 * 1024);
  EXPECT_EQ(getDefaultInstructionBudget(true, 0), kMinInstructionBudget);
  EXPECT_EQ(getDefaultInstructionBudget(true, UINT64_MAX),
            kMaxInstructionBudget);
  // Under ulimit -v 1000000 the budget fits the limit (the old floor of
  // 2^20 instructions, 2 GiB of analyses, did not).
  EXPECT_LT(getDefaultInstructionBudget(true, 700 * kMiB) *
                kAnalyzerBytesPerInstruction,
            700 * kMiB);
}

TEST(MemoryFootprintTest, VmemSpansTheBuffersOnly) {
  // 32 MiB of VMEM, buffers up to 12 KiB: 12 KiB allocated, on first use.
  std::vector<isa::Buffer> buffers = {
      test::vmemBuffer("a", 0, 4096), test::vmemBuffer("b", 8192, 4096),
      test::hbmBuffer("h", 65536, 4096, /*seed=*/0)};
  EXPECT_EQ(Memory::getVmemExtent(32 * kMiB, buffers), 12 * kKiB);
  EXPECT_EQ(Memory::getVmemExtent(10000, buffers), 10000u);
  Memory m(32 * kMiB, buffers);
  EXPECT_EQ(m.vmemAllocatedBytes(), 0u);
  uint8_t byte = 1;
  ASSERT_FALSE(bool(m.read(isa::MemSpace::VMEM, 8192 + 4095, 1, &byte)));
  EXPECT_EQ(byte, 0); // untouched VMEM reads as zeros, as before
  EXPECT_EQ(m.vmemAllocatedBytes(), 12 * kKiB);
  // Past the buffers: no buffer holds it, nothing is read.
  EXPECT_TRUE(
      llvm::errorToBool(m.read(isa::MemSpace::VMEM, 12 * kKiB, 4, &byte)));
}

TEST(MemoryFootprintTest, CountsChipsVmemAndHbmPages) {
  // Two HBM buffers in page 1 (of 64 KiB), one spanning pages 2 and 3.
  std::vector<isa::Buffer> buffers = {
      test::vmemBuffer("v", 0, 16 * kMiB),
      test::hbmBuffer("a", 65536, 4096, 0),
      test::hbmBuffer("b", 65536 + 8192, 4096, 1),
      test::hbmBuffer("c", 3 * 65536 - 16, 65536, 2)};
  EXPECT_EQ(getHbmPageBytes(buffers), 3 * 65536u);
  MemoryFootprint f = getMemoryFootprint(1024, 32 * kMiB, buffers);
  EXPECT_EQ(f.vmemPerChip, 16 * kMiB);
  EXPECT_EQ(f.hbmPerChip,
            3 * (Memory::kHbmPageBytes + Memory::kHbmPageOverheadBytes));
  EXPECT_EQ(f.total(), 1024 * (16 * kMiB + f.hbmPerChip));
  EXPECT_FALSE(bool(checkMemoryFootprint(f, f.total(), "test")));
  llvm::Error e = checkMemoryFootprint(f, f.total() - 1, "RLIMIT_AS");
  ASSERT_TRUE(bool(e));
  std::string text = llvm::toString(std::move(e));
  EXPECT_NE(text.find("machine config: chips \u00d7 vmem.bytes = 1024 "
                      "\u00d7 32 MiB needs up to 16.2 GiB, more than the "
                      "memory available to this process (16576 MiB: "
                      "RLIMIT_AS); per chip: 16 MiB of VMEM (the span of the "
                      "program's VMEM buffers), 192.4 KiB of HBM pages; use"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(": RLIMIT_AS)"), std::string::npos) << text;
  // Sums saturate: a buffer table from a file may claim anything.
  std::vector<isa::Buffer> huge = {
      test::hbmBuffer("x", 0, UINT64_MAX, 0),
      test::hbmBuffer("y", UINT64_MAX / 2, UINT64_MAX, 1)};
  MemoryFootprint g = getMemoryFootprint(1024, 1ull << 32, huge);
  EXPECT_EQ(g.total(), UINT64_MAX);
  EXPECT_TRUE(llvm::errorToBool(checkMemoryFootprint(g, 1 << 30, "x")));
}

} // namespace

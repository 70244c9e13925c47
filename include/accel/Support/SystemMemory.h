//===- SystemMemory.h - Memory available to this process --------*- C++ -*-===//
//
// How many more bytes this process can allocate before an allocation fails
// or the kernel kills it: the least of the machine's available memory
// (MemAvailable of /proc/meminfo), the process's own limits (RLIMIT_AS less
// its virtual size, RLIMIT_DATA less its data segment) and its cgroup's
// (cgroup v2 memory.max, v1 memory.limit_in_bytes, less the cgroup's usage
// without its reclaimable page cache), every ancestor cgroup included.
//
// The simulator checks a run's worst-case footprint against it before the
// run, and accel-replay's default instruction budget is derived from it, so
// that a run under `ulimit -v` or in a memory-limited container stops with
// an error or at its budget instead of aborting in an allocation.
//
// The parsers are pure functions of the text of the /proc and cgroup files,
// for tests.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_SYSTEMMEMORY_H
#define ACCEL_SUPPORT_SYSTEMMEMORY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accel {

/// The memory available to this process, in bytes, and what bounds it.
struct AvailableMemory {
  /// Bytes the process can still allocate (UINT64_MAX when nothing could be
  /// read: no /proc, no sysconf).
  uint64_t bytes = UINT64_MAX;
  /// The bound that gave `bytes`: "MemAvailable", "free pages",
  /// "RLIMIT_AS", "RLIMIT_DATA", "cgroup memory.max" (v2) or "cgroup
  /// memory.limit_in_bytes" (v1); "unknown" when nothing could be read.
  std::string source = "unknown";
};

/// The numbers getAvailableMemory() combines, as read from the system (all
/// in bytes; std::nullopt: not known, or no limit).
struct MemoryLimits {
  /// MemAvailable of /proc/meminfo (else the free pages of sysconf).
  std::optional<uint64_t> memAvailable;
  bool memAvailableFromSysconf = false;
  /// The soft RLIMIT_AS and the process's VmSize.
  std::optional<uint64_t> addressSpaceLimit, virtualSize;
  /// The soft RLIMIT_DATA and the process's VmData.
  std::optional<uint64_t> dataLimit, dataSize;
  /// For this process's cgroup and each ancestor with a limit: the bytes it
  /// can still charge (its limit less its usage without reclaimable page
  /// cache, 0 when the usage is above the limit).
  std::vector<uint64_t> cgroupHeadroom;
  /// Whether the cgroup numbers come from cgroup v2 (memory.max) or v1
  /// (memory.limit_in_bytes).
  bool cgroupV2 = true;
};

/// The least of `limits`' bounds: MemAvailable, RLIMIT_AS - VmSize,
/// RLIMIT_DATA - VmData and each cgroup headroom (a limit below the usage
/// counts as 0 bytes). Pure.
AvailableMemory combineMemoryLimits(const MemoryLimits &limits);

/// Reads the limits of this process (/proc/meminfo, /proc/self/status,
/// getrlimit, /proc/self/cgroup, /proc/self/mountinfo and the cgroup
/// files). Never fails: what cannot be read is left unknown.
MemoryLimits readMemoryLimits();

/// combineMemoryLimits(readMemoryLimits()).
AvailableMemory getAvailableMemory();

/// getAvailableMemory().bytes: how many bytes this process can still
/// allocate.
uint64_t availableMemoryBytes();

/// Parsers of the system's files (pure; exposed for tests).
/// The value of field `key` (e.g. "MemAvailable", "VmSize", "VmData") of
/// /proc/meminfo or /proc/self/status text, in bytes ("kB" values are
/// multiplied by 1024), or std::nullopt when absent, malformed, or beyond
/// 2^64 bytes.
std::optional<uint64_t> parseProcKibField(llvm::StringRef text,
                                          llvm::StringRef key);
/// A cgroup limit file (memory.max, memory.limit_in_bytes): the limit in
/// bytes, or std::nullopt for "max", for v1's "unlimited" (any value of
/// 2^62 bytes or more) and for malformed text.
std::optional<uint64_t> parseCgroupLimit(llvm::StringRef text);
/// A cgroup usage file (memory.current, memory.usage_in_bytes): bytes, or
/// std::nullopt when malformed.
std::optional<uint64_t> parseCgroupUsage(llvm::StringRef text);
/// The value of `key` (e.g. "inactive_file", v1 "total_inactive_file") in
/// memory.stat text, or std::nullopt.
std::optional<uint64_t> parseCgroupStat(llvm::StringRef text,
                                        llvm::StringRef key);
/// This process's cgroup path from /proc/self/cgroup text: the v2 entry
/// ("0::/path") with `v2`, else the v1 entry whose controllers include
/// "memory" ("4:memory:/path"). std::nullopt when there is none.
std::optional<std::string> parseProcCgroup(llvm::StringRef text, bool v2);

/// A cgroup mount of /proc/self/mountinfo: where the hierarchy is mounted
/// and which of its paths is the mount's root.
struct CgroupMount {
  std::string mountPoint;
  std::string root;
};
/// The cgroup v2 mount (`v2`) or the v1 mount with the memory controller in
/// /proc/self/mountinfo text, or std::nullopt.
std::optional<CgroupMount> parseCgroupMount(llvm::StringRef mountinfo,
                                            bool v2);
/// The directories holding the memory files of cgroup `path` and of each
/// of its ancestors visible under `mount`, innermost first: `path` with
/// the mount's root taken off, appended to the mount point, then each
/// parent up to the mount point itself. Pure.
std::vector<std::string> getCgroupDirectories(const CgroupMount &mount,
                                              llvm::StringRef path);

/// `bytes` for messages: "512 bytes", "64 KiB", "16 MiB", "4 GiB" when
/// exact, else with one decimal ("1.5 GiB"), up to EiB.
std::string formatBytes(uint64_t bytes);

} // namespace accel

#endif // ACCEL_SUPPORT_SYSTEMMEMORY_H

//===- SystemMemory.cpp - Memory available to this process ----------------===//

#include "accel/Support/SystemMemory.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <iterator>
#include <sys/resource.h>
#include <unistd.h>

using namespace accel;

/// A limit at or above this many bytes is no limit (cgroup v1 writes
/// "unlimited" as PAGE_COUNTER_MAX pages, about 2^63).
static constexpr uint64_t kUnlimitedBytes = uint64_t(1) << 62;

/// The unsigned decimal `text` (trimmed), or std::nullopt.
static std::optional<uint64_t> parseDecimal(llvm::StringRef text) {
  uint64_t v = 0;
  text = text.trim();
  if (text.empty() || text.getAsInteger(10, v))
    return std::nullopt;
  return v;
}

std::optional<uint64_t> accel::parseProcKibField(llvm::StringRef text,
                                                 llvm::StringRef key) {
  for (llvm::StringRef line : llvm::split(text, '\n')) {
    if (!line.consume_front(key) || !line.consume_front(":"))
      continue;
    auto [number, unit] = line.trim().split(' ');
    std::optional<uint64_t> v = parseDecimal(number);
    if (!v)
      return std::nullopt;
    unit = unit.trim();
    if (unit.empty())
      return v;
    if (unit != "kB")
      return std::nullopt;
    if (*v > UINT64_MAX / 1024)
      return std::nullopt;
    return *v * 1024;
  }
  return std::nullopt;
}

std::optional<uint64_t> accel::parseCgroupLimit(llvm::StringRef text) {
  if (text.trim() == "max")
    return std::nullopt;
  std::optional<uint64_t> v = parseDecimal(text);
  if (!v || *v >= kUnlimitedBytes)
    return std::nullopt;
  return v;
}

std::optional<uint64_t> accel::parseCgroupUsage(llvm::StringRef text) {
  return parseDecimal(text);
}

std::optional<uint64_t> accel::parseCgroupStat(llvm::StringRef text,
                                               llvm::StringRef key) {
  for (llvm::StringRef line : llvm::split(text, '\n')) {
    auto [name, value] = line.trim().split(' ');
    if (name == key)
      return parseDecimal(value);
  }
  return std::nullopt;
}

std::optional<std::string> accel::parseProcCgroup(llvm::StringRef text,
                                                  bool v2) {
  for (llvm::StringRef line : llvm::split(text, '\n')) {
    // hierarchy-ID:controller-list:cgroup-path (the path may hold ':').
    auto [id, rest] = line.split(':');
    auto [controllers, path] = rest.split(':');
    if (id.empty() || !path.starts_with("/"))
      continue;
    if (v2) {
      if (id == "0" && controllers.empty())
        return path.str();
      continue;
    }
    llvm::SmallVector<llvm::StringRef> names;
    controllers.split(names, ',');
    if (llvm::is_contained(names, "memory"))
      return path.str();
  }
  return std::nullopt;
}

std::optional<CgroupMount> accel::parseCgroupMount(llvm::StringRef mountinfo,
                                                   bool v2) {
  for (llvm::StringRef line : llvm::split(mountinfo, '\n')) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE
    // SOURCE SUPEROPTIONS
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ' ', -1, /*KeepEmpty=*/false);
    auto dash = llvm::find(fields, "-");
    if (fields.size() < 5 || dash == fields.end() ||
        std::distance(dash, fields.end()) < 2)
      continue;
    llvm::StringRef fsType = dash[1];
    if (v2 ? fsType != "cgroup2" : fsType != "cgroup")
      continue;
    if (!v2) {
      if (std::distance(dash, fields.end()) < 4)
        continue;
      llvm::SmallVector<llvm::StringRef> options;
      dash[3].split(options, ',');
      if (!llvm::is_contained(options, "memory"))
        continue;
    }
    return CgroupMount{fields[4].str(), fields[3].str()};
  }
  return std::nullopt;
}

std::vector<std::string>
accel::getCgroupDirectories(const CgroupMount &mount, llvm::StringRef path) {
  // The part of `path` below the mount's root ("/" roots everything).
  llvm::StringRef root = llvm::StringRef(mount.root).rtrim('/');
  if (!root.empty()) {
    if (path == root)
      path = "";
    else if (path.starts_with(root) &&
             path.substr(root.size()).starts_with("/"))
      path = path.substr(root.size());
    // else: a namespaced path, already relative to the mount.
  }
  path = path.trim('/');
  std::string base = llvm::StringRef(mount.mountPoint).rtrim('/').str();
  std::vector<std::string> dirs;
  while (true) {
    dirs.push_back(path.empty() ? base : base + "/" + path.str());
    if (path.empty())
      break;
    size_t slash = path.rfind('/');
    path = slash == llvm::StringRef::npos ? "" : path.substr(0, slash);
  }
  return dirs;
}

AvailableMemory accel::combineMemoryLimits(const MemoryLimits &l) {
  AvailableMemory best;
  auto consider = [&](uint64_t bytes, const char *source) {
    if (best.source == "unknown" || bytes < best.bytes) {
      best.bytes = bytes;
      best.source = source;
    }
  };
  if (l.memAvailable)
    consider(*l.memAvailable,
             l.memAvailableFromSysconf ? "free pages" : "MemAvailable");
  auto headroom = [](uint64_t limit, std::optional<uint64_t> used) {
    uint64_t u = used.value_or(0);
    return limit > u ? limit - u : 0;
  };
  if (l.addressSpaceLimit)
    consider(headroom(*l.addressSpaceLimit, l.virtualSize), "RLIMIT_AS");
  if (l.dataLimit)
    consider(headroom(*l.dataLimit, l.dataSize), "RLIMIT_DATA");
  for (uint64_t h : l.cgroupHeadroom)
    consider(h, l.cgroupV2 ? "cgroup memory.max"
                           : "cgroup memory.limit_in_bytes");
  return best;
}

/// The text of a (small, /proc or cgroup) file, or std::nullopt.
static std::optional<std::string> readSmallFile(const std::string &path) {
  // /proc files report a size of 0: read them as streams.
  auto buf = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buf)
    return std::nullopt;
  return (*buf)->getBuffer().str();
}

/// The soft limit of `resource`, or std::nullopt when unlimited.
static std::optional<uint64_t> softLimit(int resource) {
  struct rlimit rl;
  if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return std::nullopt;
  return uint64_t(rl.rlim_cur);
}

/// Appends the headroom of every limited cgroup from this process's up to
/// the root of the v2 (`v2`) or v1 memory hierarchy; false when the
/// hierarchy is not mounted or this process is in none of its cgroups.
static bool readCgroupHeadroom(bool v2, std::vector<uint64_t> &out) {
  std::optional<std::string> mountinfo =
      readSmallFile("/proc/self/mountinfo");
  std::optional<std::string> cgroup = readSmallFile("/proc/self/cgroup");
  if (!mountinfo || !cgroup)
    return false;
  std::optional<CgroupMount> mount = parseCgroupMount(*mountinfo, v2);
  std::optional<std::string> path = parseProcCgroup(*cgroup, v2);
  if (!mount || !path)
    return false;
  const char *limitFile = v2 ? "/memory.max" : "/memory.limit_in_bytes";
  const char *usageFile = v2 ? "/memory.current" : "/memory.usage_in_bytes";
  const char *cacheKey = v2 ? "inactive_file" : "total_inactive_file";
  bool found = false;
  for (const std::string &dir : getCgroupDirectories(*mount, *path)) {
    std::optional<std::string> limitText = readSmallFile(dir + limitFile);
    if (!limitText)
      continue; // not visible here (another namespace), or the v2 root
    found = true;
    std::optional<uint64_t> limit = parseCgroupLimit(*limitText);
    if (!limit)
      continue;
    uint64_t usage = 0;
    if (std::optional<std::string> text = readSmallFile(dir + usageFile))
      usage = parseCgroupUsage(*text).value_or(0);
    // Page cache that the kernel reclaims before it fails a charge.
    if (std::optional<std::string> stat = readSmallFile(dir + "/memory.stat"))
      usage -= std::min(usage, parseCgroupStat(*stat, cacheKey).value_or(0));
    out.push_back(*limit > usage ? *limit - usage : 0);
  }
  return found;
}

MemoryLimits accel::readMemoryLimits() {
  MemoryLimits l;
  if (std::optional<std::string> meminfo = readSmallFile("/proc/meminfo"))
    l.memAvailable = parseProcKibField(*meminfo, "MemAvailable");
  if (!l.memAvailable) {
    long pages = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) {
      l.memAvailable =
          llvm::SaturatingMultiply(uint64_t(pages), uint64_t(size));
      l.memAvailableFromSysconf = true;
    }
  }
  l.addressSpaceLimit = softLimit(RLIMIT_AS);
  l.dataLimit = softLimit(RLIMIT_DATA);
  if (l.addressSpaceLimit || l.dataLimit)
    if (std::optional<std::string> status =
            readSmallFile("/proc/self/status")) {
      l.virtualSize = parseProcKibField(*status, "VmSize");
      l.dataSize = parseProcKibField(*status, "VmData");
    }
  l.cgroupV2 = readCgroupHeadroom(/*v2=*/true, l.cgroupHeadroom) ||
               !readCgroupHeadroom(/*v2=*/false, l.cgroupHeadroom);
  return l;
}

AvailableMemory accel::getAvailableMemory() {
  return combineMemoryLimits(readMemoryLimits());
}

uint64_t accel::availableMemoryBytes() { return getAvailableMemory().bytes; }

std::string accel::formatBytes(uint64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB",
                                      "EiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  unsigned u = 0;
  uint64_t scale = 1024;
  while (u + 1 < std::size(units) && bytes / scale >= 1024) {
    ++u;
    scale *= 1024;
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  if (bytes % scale == 0)
    os << bytes / scale << " " << units[u];
  else
    os << llvm::format("%.1f", double(bytes) / double(scale)) << " "
       << units[u];
  return out;
}

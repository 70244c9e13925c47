//===- fuzz-output.cpp - libFuzzer target: the output-commit rule ---------===//
//
// The input chooses a scenario in a fresh temporary directory W and an
// output operation on a target W/d/t (docs/output.md), which then runs; the
// file tree before and after is compared with what the rule allows, and any
// violation is a crash (__builtin_trap after a message on stderr):
//
//   byte 0  what is at the target: nothing; a file; an accel output
//           directory (metrics.json, a subdirectory, and a symbolic link
//           "escape" to W/precious, which no removal may follow); an
//           unrelated non-empty directory; an empty directory; a symbolic
//           link to an accel output directory outside W/d; a dangling
//           link; a link to a file; a chain of two links; a link to its own
//           directory W/d ("."); nothing, below two missing directories; a
//           link into a missing directory (refused: no directory is made
//           through a link).
//   byte 1  the operation: writeOutput; writeOutput whose writer fails;
//           StagedDirectory create + writes + commit; the same dropped
//           without commit; create + commit of an empty directory;
//           StagedFiles add dropped without commit.
//   byte 2  temporaries beside the target: bit 0 a stale directory of a dead
//           PID for another target, bit 1 a stale "-old" of the target, bit
//           2 a stale file of a dead PID, bit 3 one of this process that no
//           live output owns, bit 4 one of PID 1 (running: kept), bit 5
//           a stale file in the resolved target's directory, bit 6 a chain
//           of 64 nested directories in the old output and the stale
//           "-old" (deeper than removeTree descends at once), bit 7 (a
//           link to its own directory) a metrics.json there.
//   rest    the new contents: up to four files (names, nesting and bytes
//           from the input).
//
// The invariants: whatever it returned, nothing outside the target (as the
// rule resolves it: a link at W/d/t is followed) is modified or removed,
// except stale temporaries in the resolved target's directory and missing
// parent directories created for a successful output; a successful
// operation leaves exactly the new contents at the target; a failed or
// dropped one leaves the old; it succeeds exactly when the rule says it
// must; no temporary of this process remains, and after a success no stale
// one in the target's directory.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/Output.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace accel;

namespace {

/// One entry of a snapshot: its type and contents (a file's bytes, a
/// link's target).
struct Node {
  char type; // 'f' file, 'd' directory, 'l' link
  std::string data;
  bool operator==(const Node &o) const {
    return type == o.type && data == o.data;
  }
  bool operator!=(const Node &o) const { return !(*this == o); }
};
using Tree = std::map<std::string, Node>;

[[noreturn]] void violation(const std::string &what) {
  std::fprintf(stderr, "fuzz-output: invariant violated: %s\n", what.c_str());
  __builtin_trap();
}

/// The bytes of the file `name` in the directory `dirFd`.
std::string readFileAt(int dirFd, const char *name) {
  std::string out;
  int fd = ::openat(dirFd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0)
    out.append(buf, size_t(n));
  ::close(fd);
  return out;
}

/// The names in the directory `dir` (without "." and "..").
std::vector<std::string> namesIn(DIR *dir) {
  std::vector<std::string> names;
  while (struct dirent *e = ::readdir(dir))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
      names.push_back(e->d_name);
  return names;
}

/// Opens the directory `name` of `dirFd` without following a link; null
/// when it is not a directory or cannot be opened.
DIR *openDirAt(int dirFd, const char *name) {
  int fd =
      ::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return nullptr;
  DIR *dir = ::fdopendir(fd);
  if (!dir)
    ::close(fd);
  return dir;
}

/// Adds the entry `name` of the directory `dirFd`, at `rel` below the
/// snapshot's root, and everything below it, without following links.
/// Every lookup is relative to an open directory, so a chain of nested
/// directories costs one lookup per level, not one path walk per level.
void snapshotAt(int dirFd, const char *name, const std::string &rel,
                Tree &tree) {
  struct stat st;
  if (::fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (S_ISLNK(st.st_mode)) {
    char buf[4096];
    ssize_t n = ::readlinkat(dirFd, name, buf, sizeof buf);
    tree[rel] = {'l', std::string(buf, n > 0 ? size_t(n) : 0)};
  } else if (S_ISDIR(st.st_mode)) {
    tree[rel] = {'d', ""};
    DIR *dir = openDirAt(dirFd, name);
    if (!dir)
      return;
    for (const std::string &n : namesIn(dir))
      snapshotAt(::dirfd(dir), n.c_str(), rel.empty() ? n : rel + "/" + n,
                 tree);
    ::closedir(dir);
  } else {
    tree[rel] = {'f', readFileAt(dirFd, name)};
  }
}

/// The tree at `root`, without following links; paths relative to `root`.
Tree snapshotOf(const std::string &root) {
  Tree t;
  snapshotAt(AT_FDCWD, root.c_str(), "", t);
  return t;
}

bool isUnder(const std::string &p, const std::string &dir) {
  return p == dir ||
         (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 &&
          p[dir.size()] == '/');
}

std::string parentOf(const std::string &rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? std::string() : rel.substr(0, slash);
}

void writeText(const std::string &p, const std::string &text) {
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    violation("harness: cannot create " + p);
  if (!text.empty() &&
      ::write(fd, text.data(), text.size()) != ssize_t(text.size()))
    violation("harness: cannot write " + p);
  ::close(fd);
}

void makeDir(const std::string &p) {
  if (::mkdir(p.c_str(), 0755) != 0)
    violation("harness: cannot mkdir " + p);
}

void makeLink(const std::string &to, const std::string &at) {
  if (::symlink(to.c_str(), at.c_str()) != 0)
    violation("harness: cannot symlink " + at);
}

/// Levels of the deep chain: more than removeTree descends into at once
/// (kMaxRemoveDepth, 48, in lib/Support/Output.cpp).
constexpr int kChainDepth = 64;

/// Directories nested kChainDepth deep in `p` (deeper than removeTree
/// descends at once), with a file and a link to W/precious at the bottom; made
/// level by level relative to the previous one (no path walk per level).
void makeDeepChain(const std::string &w, const std::string &p) {
  int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    violation("harness: cannot open " + p);
  for (int i = 0; i < kChainDepth; ++i) {
    if (::mkdirat(fd, "n", 0755) != 0)
      violation("harness: cannot mkdir a level of the chain in " + p);
    int next = ::openat(fd, "n", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    if (next < 0)
      violation("harness: cannot open a level of the chain in " + p);
    fd = next;
  }
  int file = ::openat(fd, "bottom.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (file < 0 || ::write(file, "bottom\n", 7) != 7)
    violation("harness: cannot write the chain's bottom.txt in " + p);
  ::close(file);
  if (::symlinkat((w + "/precious").c_str(), fd, "escape") != 0)
    violation("harness: cannot symlink the chain's escape in " + p);
  ::close(fd);
}

/// An accel output directory at `p`, with a link out of it to W/precious
/// (and, with `deep`, a 64-deep chain of directories).
void makeAccelDir(const std::string &w, const std::string &p, bool deep) {
  makeDir(p);
  writeText(p + "/metrics.json", "{\"old\": true}\n");
  makeDir(p + "/iter0");
  writeText(p + "/iter0/report.txt", "old report\n");
  makeLink(w + "/precious", p + "/escape");
  if (deep)
    makeDeepChain(w, p + "/iter0");
}

/// Empties the open directory `fd` depth first, never following links
/// (each lookup relative to its directory): the harness's own removal,
/// independent of the one under test.
void emptyDirectoryAt(DIR *dir) {
  int fd = ::dirfd(dir);
  for (const std::string &n : namesIn(dir)) {
    DIR *sub = openDirAt(fd, n.c_str());
    if (!sub) {
      ::unlinkat(fd, n.c_str(), 0);
      continue;
    }
    emptyDirectoryAt(sub);
    ::closedir(sub);
    ::unlinkat(fd, n.c_str(), AT_REMOVEDIR);
  }
}

/// Empties the directory `root` (kept, to be reused by the next input).
void emptyDirectory(const std::string &root) {
  DIR *dir = openDirAt(AT_FDCWD, root.c_str());
  if (!dir)
    violation("harness: cannot open " + root);
  emptyDirectoryAt(dir);
  ::closedir(dir);
}

/// W, for the exit handler that removes it.
std::string scratchDir;

/// The input as a stream of bytes (zeros past its end).
struct Bytes {
  const uint8_t *data;
  size_t size, pos = 0;
  uint8_t next() { return pos < size ? data[pos++] : 0; }
  std::string take(size_t n) {
    n = std::min(n, size - std::min(pos, size));
    std::string s(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
    return s;
  }
};

enum Scenario : uint8_t {
  Absent,
  File,
  AccelDir,
  ForeignDir,
  EmptyDir,
  LinkToAccelDir,
  Dangling,
  LinkToFile,
  LinkChain,
  LinkToParent,
  MissingParents,
  DanglingDeep,
  NumScenarios
};
enum Operation : uint8_t {
  WriteFile,
  WriteFileFails,
  DirCommit,
  DirDrop,
  DirCommitEmpty,
  FilesDrop,
  NumOperations
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // W: one directory in $TMPDIR per process, empty at the start of every
  // input (a tmpfs such as /dev/shm runs many times faster than a
  // journaling disk).
  static const std::string w = [] {
    const char *tmpdir = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") +
                       "/fuzz-output-XXXXXX";
    if (!::mkdtemp(tmpl.data()))
      violation("harness: mkdtemp in " + tmpl);
    scratchDir = tmpl;
    std::atexit([] { ::rmdir(scratchDir.c_str()); });
    return tmpl;
  }();
  Bytes in{data, size};
  auto scenario = Scenario(in.next() % NumScenarios);
  auto op = Operation(in.next() % NumOperations);
  uint8_t temps = in.next();
  bool deep = temps & 64;

  // The scenario.
  makeDir(w + "/d");
  makeDir(w + "/outside");
  makeDir(w + "/precious");
  writeText(w + "/precious/keep.txt", "precious\n");
  writeText(w + "/d/sibling.txt", "sibling\n");
  std::string t = w + "/d/t";
  // The resolved target, relative to w, and whether it is (or would be) a
  // directory/file the operation may replace.
  std::string resolved = "d/t";
  switch (scenario) {
  case Absent:
    break;
  case File:
    writeText(t, "old file\n");
    break;
  case AccelDir:
    makeAccelDir(w, t, deep);
    break;
  case ForeignDir:
    makeDir(t);
    writeText(t + "/main.c", "int main() {}\n");
    break;
  case EmptyDir:
    makeDir(t);
    break;
  case LinkToAccelDir:
    makeAccelDir(w, w + "/outside/run", deep);
    makeLink("../outside/run", t);
    resolved = "outside/run";
    break;
  case Dangling:
    makeLink(w + "/outside/missing", t);
    resolved = "outside/missing";
    break;
  case LinkToFile:
    writeText(w + "/outside/file.txt", "old linked file\n");
    makeLink("../outside/file.txt", t);
    resolved = "outside/file.txt";
    break;
  case LinkChain:
    makeAccelDir(w, w + "/outside/run", deep);
    makeLink("run", w + "/outside/latest");
    makeLink(w + "/outside/latest", t);
    resolved = "outside/run";
    break;
  case LinkToParent:
    if (temps & 0x80)
      writeText(w + "/d/metrics.json", "{}\n");
    makeLink(".", t);
    resolved = "d";
    break;
  case MissingParents:
    t = w + "/d/p/q/t";
    resolved = "d/p/q/t";
    break;
  case DanglingDeep: // into a missing directory: refused
    makeLink(w + "/outside/none/x", t);
    resolved = "outside/none/x";
    break;
  case NumScenarios:
    break;
  }
  std::string resolvedDir = parentOf(resolved);
  // Temporaries.
  const std::string dead = "4194305"; // above the largest pid_max
  if (temps & 1) {
    makeDir(w + "/d/other.accel-tmp-" + dead + "-abcdefgh");
    writeText(w + "/d/other.accel-tmp-" + dead + "-abcdefgh/metrics.json", "");
  }
  if (temps & 2) {
    makeDir(w + "/d/t.accel-tmp-" + dead + "-abcdefgh-old");
    makeLink(w + "/precious",
             w + "/d/t.accel-tmp-" + dead + "-abcdefgh-old/escape");
    if (deep)
      makeDeepChain(w, w + "/d/t.accel-tmp-" + dead + "-abcdefgh-old");
  }
  if (temps & 4)
    writeText(w + "/d/x.json.accel-tmp-" + dead + "-zzzzzzzz", "partial");
  if (temps & 8)
    writeText(w + "/d/y.accel-tmp-" + std::to_string(::getpid()) + "-orphan0",
              "orphan");
  if (temps & 16)
    writeText(w + "/d/z.accel-tmp-1-liveliv", "live");
  // The same in the resolved target's directory when it is another one.
  if ((temps & 32) && resolvedDir == "outside")
    writeText(w + "/outside/s.accel-tmp-" + dead + "-stalestl", "stale");

  // The new contents.
  std::vector<std::pair<std::string, std::string>> files;
  unsigned numFiles = 1 + in.next() % 4;
  static const char *const names[] = {"metrics.json",       "report.txt",
                                      "iter1/metrics.json", "iter1/sub/a.bin",
                                      "timeline.json",      "iter0/report.txt"};
  for (unsigned i = 0; i < numFiles; ++i) {
    std::string name = names[in.next() % 6];
    std::string text = in.take(in.next() % 64);
    bool dup = false;
    for (auto &f : files)
      dup |= f.first == name;
    if (!dup)
      files.push_back({name, text});
  }
  std::string fileText = in.take(size);

  Tree before = snapshotOf(w);
  bool targetIsDir = before.count(resolved) && before[resolved].type == 'd';
  bool targetIsFile = before.count(resolved) && before[resolved].type == 'f';
  bool targetAbsent = !before.count(resolved);
  bool targetIsAccel =
      targetIsDir && (before.count(resolved + "/metrics.json") ||
                      before.count(resolved + "/fdo.json") ||
                      before.count(resolved + "/sweep.json"));
  bool targetIsEmptyDir = false;
  if (targetIsDir) {
    targetIsEmptyDir = true;
    for (auto &[p, n] : before)
      if (p != resolved && isUnder(p, resolved))
        targetIsEmptyDir = false;
  }

  // The operation.
  bool ok = false, mustSucceed = false, committed = false;
  Tree expectedTarget; // the new contents, relative to the target
  switch (op) {
  case WriteFile:
  case WriteFileFails: {
    bool fails = op == WriteFileFails;
    llvm::Error e = writeOutput(t, [&](llvm::raw_ostream &os) -> llvm::Error {
      os << fileText;
      if (fails)
        return llvm::createStringError("the writer failed");
      return llvm::Error::success();
    });
    ok = !e;
    llvm::consumeError(std::move(e));
    mustSucceed =
        !fails && (targetAbsent || targetIsFile) && scenario != DanglingDeep;
    committed = ok;
    expectedTarget[""] = {'f', fileText};
    break;
  }
  case DirCommit:
  case DirDrop:
  case DirCommitEmpty: {
    auto staged = StagedDirectory::create(t);
    if (!staged) {
      llvm::consumeError(staged.takeError());
      break;
    }
    std::string stagingPath = staged->path().str();
    if (stagingPath.find(".accel-tmp-") == std::string::npos ||
        !isUnder(stagingPath,
                 w + (resolvedDir.empty() ? "" : "/" + resolvedDir)))
      violation("the staging directory " + stagingPath +
                " is not a temporary beside the target " + resolved);
    expectedTarget[""] = {'d', ""};
    bool written = true;
    if (op != DirCommitEmpty)
      for (auto &[name, text] : files) {
        llvm::Error e = writeOutput(stagingPath + "/" + name, text);
        if (e) {
          llvm::consumeError(std::move(e));
          written = false;
        }
        for (std::string p = name; !p.empty(); p = parentOf(p))
          expectedTarget[p] = p == name ? Node{'f', text} : Node{'d', ""};
      }
    if (!written)
      violation("cannot write into the staging directory");
    if (op == DirDrop) {
      ok = true;
      break;
    }
    llvm::Error e = staged->commit();
    ok = !e;
    llvm::consumeError(std::move(e));
    committed = ok;
    mustSucceed = true;
    break;
  }
  case FilesDrop: {
    StagedFiles staged;
    llvm::Error e = staged.add(t, fileText);
    ok = !e;
    llvm::consumeError(std::move(e));
    break;
  }
  case NumOperations:
    break;
  }
  if (op == DirCommit || op == DirCommitEmpty)
    mustSucceed = (targetAbsent && scenario != DanglingDeep) || targetIsAccel ||
                  targetIsEmptyDir;

  Tree after = snapshotOf(w);
  if (mustSucceed && !committed)
    violation(
        "the operation failed where the rule says it succeeds (scenario " +
        std::to_string(scenario) + ", operation " + std::to_string(op) + ")");
  if (committed && !mustSucceed)
    violation(
        "the operation succeeded where the rule says it fails (scenario " +
        std::to_string(scenario) + ", operation " + std::to_string(op) + ")");

  // Stale temporaries: may go (must, after a commit) when in the resolved
  // target's directory; the running PID 1's stays.
  std::string self = ".accel-tmp-" + std::to_string(::getpid()) + "-";
  auto isStale = [&](const std::string &p) {
    size_t at = p.find(".accel-tmp-");
    if (at == std::string::npos)
      return false;
    std::string top = p.substr(
        0, p.find('/', at) == std::string::npos ? p.size() : p.find('/', at));
    return parentOf(top) == resolvedDir &&
           (top.find(".accel-tmp-" + dead + "-") != std::string::npos ||
            top.find(self) != std::string::npos);
  };
  for (auto &[p, node] : before) {
    bool inTarget = isUnder(p, resolved);
    if (committed && inTarget)
      continue; // replaced
    auto found = after.find(p);
    if (found == after.end()) {
      if (isStale(p))
        continue;
      violation("'" + p + "' was removed (scenario " +
                std::to_string(scenario) + ", operation " + std::to_string(op) +
                ")");
    }
    if (found->second != node)
      violation("'" + p + "' was modified");
  }
  for (auto &[p, node] : after) {
    bool orphan = p.find("-orphan0") != std::string::npos;
    if (p.find(self) != std::string::npos && !orphan)
      violation("a temporary of this process remains: '" + p + "'");
    if (committed && isStale(p) &&
        (orphan || p.find(".accel-tmp-" + dead) != std::string::npos))
      violation("a stale temporary remains after a commit: '" + p + "'");
    if (before.count(p))
      continue;
    if (committed && isUnder(p, resolved))
      continue;
    // A missing parent directory made for a committed output.
    if (committed && node.type == 'd' && isUnder(resolved, p))
      continue;
    violation("'" + p + "' appeared (scenario " + std::to_string(scenario) +
              ", operation " + std::to_string(op) + ")");
  }
  if (committed) {
    Tree got;
    for (auto &[p, node] : after)
      if (isUnder(p, resolved))
        got[p == resolved ? std::string() : p.substr(resolved.size() + 1)] =
            node;
    if (got != expectedTarget)
      violation("the target '" + resolved +
                "' does not hold exactly the new contents");
  }
  if (!committed && ok && op != DirDrop && op != FilesDrop)
    violation("harness: success without a commit");
  emptyDirectory(w);
  return 0;
}

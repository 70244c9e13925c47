//===- Output.h - Output files and directories: the commit rule -*- C++ -*-===//
//
// The one rule for everything accel writes (docs/output.md): an output
// target is replaced as a whole or not at all. Its new contents are built
// beside it, under a name `TARGET.accel-tmp-PID-XXXXXXXX`, and moved into
// place by one rename when everything succeeded; a run that fails, is
// interrupted or is killed leaves the previous output (or none), never a
// part or a mix of two runs, and no temporaries:
//
//  - writeOutput: a file. "-" is stdout; an existing path that is not a
//    regular file (a device such as /dev/full or /dev/null, a FIFO,
//    /dev/stdout) is written directly and never replaced; anything else is
//    written to a temporary and renamed over PATH. Every write error (a
//    full disk, a file-size limit) is an error, not a silent short file.
//  - StagedFiles: several files written to temporaries first and renamed
//    into place together by commit() (--output-dir's .npy files, committed
//    with -o's directory).
//  - StagedDirectory: a directory (run, fdo, replay, sweep -o DIR). It is
//    built in a staging directory beside DIR and swapped with DIR by one
//    rename (renameat2 RENAME_EXCHANGE) when complete.
//
// A symbolic link at a target is followed: what it points to is replaced,
// staged beside that, and the link stays. Nothing accel removes (a staging
// directory, the previous output after a swap, a stale temporary) is ever
// removed through a symbolic link (removeTree).
//
// initToolOutputs (each tool's main, after InitLLVM) removes the live
// temporaries on SIGINT, SIGTERM and SIGHUP before the process dies of the
// signal, and at exit; it ignores SIGXFSZ so that a write past a file-size
// limit fails with "File too large". Temporaries left by killed
// runs (SIGKILL; their PID is no longer running) are removed by the next
// write into the same directory (removeStaleTemporaries).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_OUTPUT_H
#define ACCEL_SUPPORT_OUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <system_error>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace accel {

/// Sets up the process for the output rule; call it in each tool's main
/// right after llvm::InitLLVM, with the tool's name for error lines:
///  - SIGXFSZ is ignored: a write past `ulimit -f` fails with EFBIG ("File
///    too large"), reported as an error, instead of killing the process
///    with LLVM's crash dump;
///  - on SIGINT, SIGTERM, SIGHUP and SIGPIPE every live staging directory and
///    temporary of the process is removed (and LLVM's RemoveFileOnSignal
///    files), then the process dies of the signal as it would have (a
///    signal the process started ignoring, as under nohup, stays ignored);
///  - on a crash (SIGSEGV, SIGABRT, ... outside LLVM's crash recovery) the
///    live temporaries are removed before LLVM's stack dump;
///  - at exit (also exit() on an error path) the
///    live temporaries are removed, and an unreported write error on stdout
///    or stderr is the error line "cannot write to standard output: REASON"
///    and exit status 1 instead of LLVM's "IO failure on output stream".
/// Never fails.
void initToolOutputs(const char *toolName);

/// Writes the output file `path` with `write` (see the file comment).
/// Errors: "cannot write 'PATH': REASON" (cannot create the temporary,
/// a write or flush failed, e.g. "No space left on device" or "File too
/// large", or the rename failed), "cannot write 'PATH': it is a directory",
/// "cannot write 'PATH': it is a symbolic link to 'P', whose directory 'D'
/// does not exist" (no directory is created through a link), or the error
/// `write` returned; in every case the target is untouched and the
/// temporary removed.
llvm::Error
writeOutput(llvm::StringRef path,
            llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);
/// writeOutput of a string.
llvm::Error writeOutput(llvm::StringRef path, llvm::StringRef text);

/// Removes the `*.accel-tmp-PID-*` files and directories in the directory
/// of `target` whose PID is not a running process (left by a killed run of
/// any command, for any target in that directory), and those of this
/// process that it no longer uses. Never follows a symbolic link. Returns
/// how many it removed.
unsigned removeStaleTemporaries(llvm::StringRef target);

/// Removes `path`: a directory with everything in it, or a file. A symbolic
/// link is removed itself, never what it points to, at the top as at every
/// level below (openat/unlinkat with O_NOFOLLOW). A missing `path` is
/// success. Errors: the first failure to open or remove an entry (the rest
/// is still attempted).
std::error_code removeTree(llvm::StringRef path);

/// Checks, without creating anything, that `dir` is or can be created as a
/// directory (run and fdo check --output-dir before they run). Errors:
/// "cannot write 'DIR': it is not a directory", "cannot write 'DIR': 'P' is
/// not a directory" (a component P of the path is a file), or the reason
/// an existing component cannot be examined.
llvm::Error checkOutputDirectory(llvm::StringRef dir);

/// Files written to temporaries beside their targets by add() and renamed
/// into place together by commit(); destroyed without commit(), it removes
/// the temporaries and the directories add() created for them.
class StagedFiles {
public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles &) = delete;
  StagedFiles &operator=(const StagedFiles &) = delete;
  ~StagedFiles();

  /// Writes the new contents of `path` to a temporary beside it (a special
  /// file, see writeOutput, is written directly here). Errors: as
  /// writeOutput's; the target is untouched.
  llvm::Error add(llvm::StringRef path,
                  llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);
  /// add() of a string.
  llvm::Error add(llvm::StringRef path, llvm::StringRef text);
  /// Renames every temporary over its target, in the order added. Errors:
  /// "cannot write 'PATH': REASON" of the first rename that failed (the
  /// files before it are replaced, it and those after are not).
  llvm::Error commit();

private:
  struct Entry {
    std::string display, target, temp;
  };
  std::vector<Entry> entries;
  std::vector<std::string> createdDirs;
};

/// An output directory built beside its target and moved into place by
/// commit(); destroyed without commit(), it removes what it built (and the
/// parent directories create() made for it).
class StagedDirectory {
public:
  /// Prepares to replace `target` (a symbolic link is followed: the
  /// directory it points to is replaced, and the link kept). Errors:
  /// "cannot write 'DIR': it is not a directory", "cannot write 'DIR': it
  /// exists and is not an accel output directory (no metrics.json, fdo.json
  /// or sweep.json in it); remove it or choose another" (so `-o .` never
  /// replaces a source tree), "cannot write 'DIR': cannot create its
  /// parent: REASON", "cannot write 'DIR': cannot create a staging
  /// directory beside it: REASON", "cannot write 'DIR': it is a symbolic
  /// link to 'P', whose directory 'D' does not exist".
  static llvm::Expected<StagedDirectory> create(llvm::StringRef target);

  StagedDirectory(StagedDirectory &&other);
  StagedDirectory &operator=(StagedDirectory &&) = delete;
  ~StagedDirectory();

  /// Where to write the new contents (an absolute path).
  llvm::StringRef path() const { return staging; }
  /// The directory the contents will be moved to (absolute, symbolic links
  /// at the target resolved).
  llvm::StringRef target() const { return targetPath; }
  /// `text` (an error message) with the staging directory's path replaced
  /// by the target's, as given to create().
  std::string toTargetPaths(llvm::StringRef text) const;
  /// Moves the staging directory to the target in one rename (the old
  /// target, if any, is then removed, never through a symbolic link).
  /// Errors: "cannot write 'DIR': REASON" of the rename.
  llvm::Error commit();

private:
  StagedDirectory(std::string display, std::string target, std::string staging,
                  std::vector<std::string> createdDirs)
      : displayPath(std::move(display)), targetPath(std::move(target)),
        staging(std::move(staging)), createdDirs(std::move(createdDirs)) {}
  std::string displayPath, targetPath, staging;
  std::vector<std::string> createdDirs;
  bool done = false;
};

} // namespace accel

#endif // ACCEL_SUPPORT_OUTPUT_H

//===- Output.h - Output files and directories that survive a kill -*- C++
//-*-===//
//
// Every file and directory accel writes is built beside its target and moved
// into place when complete, so a run that fails or is killed leaves the
// previous output (or none), never a part or a mix of two runs:
//
//  - writeOutput: a file. "-" is stdout; an existing path that is not a
//    regular file (a device such as /dev/full or /dev/null, a FIFO,
//    /dev/stdout) is written directly and never replaced; anything else is
//    written to `PATH.accel-tmp-PID-XXXXXX` and renamed over PATH. Every
//    write error (a full disk) is an error, not a silent short file.
//  - StagedDirectory: a directory (run, fdo, replay -o DIR). It is built in
//    `DIR.accel-tmp-PID-XXXXXX` and swapped with DIR by one rename
//    (renameat2 RENAME_EXCHANGE) when complete.
//
// Temporaries left by killed runs (their PID is no longer running) are
// removed by the next write to the same target (removeStaleTemporaries).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_OUTPUT_H
#define ACCEL_SUPPORT_OUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace accel {

/// Writes the output file `path` with `write` (see the file comment).
/// Errors: "cannot write 'PATH': REASON" (cannot create the temporary,
/// a write or flush failed, e.g. "No space left on device", or the rename
/// failed), or the error `write` returned; in every case the target is
/// untouched and the temporary removed.
llvm::Error
writeOutput(llvm::StringRef path,
            llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);
/// writeOutput of a string.
llvm::Error writeOutput(llvm::StringRef path, llvm::StringRef text);

/// Removes `TARGET.accel-tmp-PID-*` files and directories beside `target`
/// whose PID is not a running process (left by a killed run). Returns how
/// many it removed.
unsigned removeStaleTemporaries(llvm::StringRef target);

/// An output directory built beside its target and moved into place by
/// commit(); destroyed without commit(), it removes what it built.
class StagedDirectory {
public:
  /// Prepares to replace `target`. Errors: "cannot write 'DIR': it is not a
  /// directory", "cannot write 'DIR': it exists and is not an accel output
  /// directory (no metrics.json, fdo.json or sweep.json in it); remove it or
  /// choose another" (so `-o .` never replaces a source tree), or the reason
  /// the staging directory cannot be created.
  static llvm::Expected<StagedDirectory> create(llvm::StringRef target);

  StagedDirectory(StagedDirectory &&other);
  StagedDirectory &operator=(StagedDirectory &&) = delete;
  ~StagedDirectory();

  /// Where to write the new contents.
  llvm::StringRef path() const { return staging; }
  /// The directory the contents will be moved to.
  llvm::StringRef target() const { return targetPath; }
  /// Moves the staging directory to the target in one rename (the old
  /// target, if any, is then removed). Errors name the rename's reason.
  llvm::Error commit();

private:
  StagedDirectory(std::string target, std::string staging)
      : targetPath(std::move(target)), staging(std::move(staging)) {}
  std::string targetPath, staging;
  bool done = false;
};

} // namespace accel

#endif // ACCEL_SUPPORT_OUTPUT_H

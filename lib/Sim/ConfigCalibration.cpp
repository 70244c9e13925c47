//===- ConfigCalibration.cpp - The config's calibration tables ------------===//
//
// MachineConfig::fromJson's "calibration" section (docs/config.md,
// "Calibration"): each entry names an instruction (and for a DMA its link),
// the keys of its measured latency table, the time unit and the CSV file,
// which is loaded (LatencyTable, Calibration.cpp) and its path made
// absolute in the document.
//
//===----------------------------------------------------------------------===//

#include "ConfigCalibration.h"
#include "accel/Sim/Calibration.h"
#include "accel/Support/Json.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

using namespace accel;
using namespace accel::sim;
using json = nlohmann::json;

/// The keys a table for `op` may use (docs/config.md, "Calibration").
static std::vector<CalibrationKey> allowedKeys(const isa::OpcodeInfo &info) {
  switch (info.unit) {
  case isa::Unit::Mxu:
    return {CalibrationKey::M, CalibrationKey::N, CalibrationKey::K};
  case isa::Unit::Vpu:
    return {CalibrationKey::Rows, CalibrationKey::Cols};
  case isa::Unit::Dma:
    if (info.op == isa::Opcode::DmaIssue)
      return {CalibrationKey::Bytes, CalibrationKey::Rows};
    return {};
  case isa::Unit::Scalar:
    return {};
  }
  return {};
}

/// The opcode calibration entry `e` names, with the keys its table may use
/// in `allowed`; null, after an error at `path` + "instruction", when it
/// names no instruction with a latency to calibrate.
static const isa::OpcodeInfo *
findCalibrated(JsonReader &r, const CalibrationEntry &e,
               const std::string &path, std::vector<CalibrationKey> &allowed) {
  const isa::OpcodeInfo *info = nullptr;
  for (unsigned b = 0; b < 256 && !info; ++b)
    if (const isa::OpcodeInfo *o = isa::lookup(uint8_t(b));
        o && e.instruction == o->mnemonic)
      info = o;
  allowed = info ? allowedKeys(*info) : std::vector<CalibrationKey>();
  if (allowed.empty()) {
    r.fail(path + "instruction",
           "must name an instruction with a latency to calibrate: "
           "\"mxu.matmul\", a \"vpu.*\" instruction or \"dma.issue\"");
    return nullptr;
  }
  return info;
}

/// Whether `e`'s link, if any, is a dma.issue table's and one of `c`'s
/// DMA links; else an error at `path` + "link".
static bool checkCalibratedLink(JsonReader &r, const CalibrationEntry &e,
                                const MachineConfig &c,
                                const std::string &path) {
  if (e.link.empty())
    return true;
  if (e.opcode != isa::Opcode::DmaIssue) {
    r.fail(path + "link", "only a dma.issue table names a link");
    return false;
  }
  bool found = false;
  for (const LinkConfig &l : c.links)
    found |= l.name == e.link;
  if (!found)
    r.fail(path + "link",
           "no DMA link \"" + e.link + "\" in dma.links (\"hbm->vmem\", ...)");
  return found;
}

/// Reads the "keys" of table `t` into `e.keys` and their names into
/// `keyNames`: 1 to allowed.size() of `allowed`, each once, none the time
/// column. False after an error at `path` + "keys" (or "time").
static bool readCalibrationKeys(JsonReader &r, const json &t,
                                const std::string &path,
                                const std::vector<CalibrationKey> &allowed,
                                CalibrationEntry &e,
                                std::vector<std::string> &keyNames) {
  std::string allowedNames;
  for (CalibrationKey k : allowed)
    allowedNames += (allowedNames.empty() ? "\"" : ", \"") +
                    calibrationKeyName(k).str() + "\"";
  const json *keys = r.array(t, "keys", path);
  if (!r.ok())
    return false;
  if (keys->empty() || keys->size() > allowed.size()) {
    r.fail(path + "keys", "must list 1 to " + std::to_string(allowed.size()) +
                              " of " + allowedNames);
    return false;
  }
  for (size_t k = 0; k < keys->size(); ++k) {
    const json &key = (*keys)[k];
    auto match = llvm::find_if(allowed, [&](CalibrationKey a) {
      return key.is_string() && key.get<std::string>() == calibrationKeyName(a);
    });
    std::string keyPath = path + "keys[" + std::to_string(k) + "]";
    if (match == allowed.end()) {
      r.fail(keyPath,
             "must be one of " + allowedNames + " for " + e.instruction);
      return false;
    }
    if (llvm::is_contained(e.keys, *match)) {
      r.fail(keyPath,
             "\"" + calibrationKeyName(*match).str() + "\" is listed twice");
      return false;
    }
    if (e.timeColumn == calibrationKeyName(*match)) {
      r.fail(path + "time", "must name a column other than the keys");
      return false;
    }
    e.keys.push_back(*match);
    keyNames.push_back(calibrationKeyName(*match).str());
  }
  return true;
}

/// Sets `e.cyclesPerUnit` from its "unit" (cycles, ns or us at `c`'s
/// clock); false after an error at `path` + "unit".
static bool readCalibrationUnit(JsonReader &r, CalibrationEntry &e,
                                const MachineConfig &c,
                                const std::string &path) {
  if (e.unit == "cycles")
    e.cyclesPerUnit = 1;
  else if (e.unit == "ns")
    e.cyclesPerUnit = c.clockGHz;
  else if (e.unit == "us")
    e.cyclesPerUnit = 1000 * c.clockGHz;
  else
    r.fail(path + "unit", "must be \"cycles\", \"ns\" or \"us\"");
  return r.ok(); // no error before: readCalibrationKeys succeeded
}

/// `file` as an absolute path without "." or ".." components, a relative
/// one taken relative to the directory of `sourceName`.
static std::string absoluteCalibrationFile(llvm::StringRef file,
                                           llvm::StringRef sourceName) {
  llvm::SmallString<256> path(file);
  if (llvm::sys::path::is_relative(path)) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(sourceName));
    llvm::sys::path::append(dir, path);
    path = dir;
  }
  llvm::sys::fs::make_absolute(path);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return path.str().str();
}

/// Reads calibration entry `t` (at `path`, ending in ".") into
/// `c.calibration`, its table loaded and its "file" rewritten as an
/// absolute path; false after an error.
static bool readCalibrationEntry(JsonReader &r, json &t,
                                 const std::string &path, MachineConfig &c,
                                 llvm::StringRef sourceName) {
  r.onlyKeys(t, path, {"instruction", "link", "file", "keys", "time", "unit"});
  CalibrationEntry e;
  e.instruction = r.string(t, "instruction", path);
  e.file = r.string(t, "file", path);
  e.timeColumn = r.string(t, "time", path);
  e.unit = r.string(t, "unit", path);
  if (JsonReader::find(t, "link"))
    e.link = r.string(t, "link", path);
  if (!r.ok())
    return false;
  std::vector<CalibrationKey> allowed;
  const isa::OpcodeInfo *info = findCalibrated(r, e, path, allowed);
  if (!info)
    return false;
  e.opcode = info->op;
  std::vector<std::string> keyNames;
  if (!checkCalibratedLink(r, e, c, path) ||
      !readCalibrationKeys(r, t, path, allowed, e, keyNames) ||
      !readCalibrationUnit(r, e, c, path))
    return false;
  e.file = absoluteCalibrationFile(e.file, sourceName);
  auto table = LatencyTable::load(e.file, keyNames, e.timeColumn);
  if (!table) {
    r.fail(path + "file", llvm::toString(table.takeError()));
    return false;
  }
  e.table = std::move(*table);
  t["file"] = e.file;
  c.calibration.push_back(std::move(e));
  return true;
}

void accel::sim::detail::readCalibration(JsonReader &r, json &doc,
                                         MachineConfig &c,
                                         llvm::StringRef sourceName) {
  // Required, like every field but sources (null deletes it: "missing").
  if (!r.ok() || !r.array(doc, "calibration", ""))
    return;
  json *tables = &doc["calibration"];
  for (size_t i = 0; r.ok() && i < tables->size(); ++i) {
    std::string path = "calibration[" + std::to_string(i) + "]";
    json &t = (*tables)[i];
    if (!t.is_object()) {
      r.fail(path, "must be an object");
      return;
    }
    if (!readCalibrationEntry(r, t, path + ".", c, sourceName))
      return;
  }
}

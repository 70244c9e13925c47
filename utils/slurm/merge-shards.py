#!/usr/bin/env python3
#SBATCH --job-name=accel-sweep-merge
#SBATCH --ntasks=1
"""Merges the shards of an accel-replay sweep (`--shard I/N`, one directory
each) into the sweep.csv and sweep.json the whole sweep writes, the same
bytes (docs/sweep.md, "A Slurm job array").

    merge-shards.py [-o OUT] DIR

Reads DIR/shard-*/{sweep.csv,sweep.json} (utils/slurm/sweep-array.sbatch
writes DIR/shard-I) and writes OUT/sweep.csv and OUT/sweep.json (OUT: DIR by
default), each through a temporary renamed into place. Submitted as the
array's merge job, it runs when every task succeeded:

    sbatch --dependency=afterok:$jobid utils/slurm/merge-shards.py DIR

The shards must make up one sweep: the same input, kind, axes and grid
(sweep.json), the same columns (sweep.csv; a shard whose points all failed
has no FDO columns, which the merge adds back empty), and each index
0..N-1 of `--shard I/N` exactly once, with the points p mod N = I each.
A missing shard, a shard given twice, shards of different sweeps, or a
file that cannot be read is one error line (`merge-shards: error: ...`) and
exit 1, with nothing written. Needs only Python 3's standard library, and
nothing beside it (sbatch runs a copy).
"""
import argparse
import csv
import io
import json
import os
import re
import sys
import tempfile

FDO_COLUMNS = ["fdo_best_cycles", "fdo_best_iteration",
               "fdo_cycles_reduction", "fdo_results"]
# sweep.json keys that every shard of one sweep has the same.
SAME_KEYS = ["schema", "schema_version", "input", "kind", "axes",
             "grid_points"]


def fail(msg):
    print("merge-shards: error: " + msg, file=sys.stderr)
    sys.exit(1)


def csv_field(text):
    """A field as accel-replay writes it (lib/Fdo/Sweep.cpp, csvField):
    quoted (RFC 4180) when it holds a comma, quote or newline."""
    if "," not in text and '"' not in text and "\n" not in text:
        return text
    return '"' + text.replace('"', '""') + '"'


def csv_line(fields):
    return ",".join(csv_field(f) for f in fields) + "\n"


class Shard:
    """One shard directory: its sweep.json and sweep.csv, read and checked
    on their own."""

    def __init__(self, path):
        self.path = path
        meta_path = os.path.join(path, "sweep.json")
        try:
            with open(meta_path, encoding="utf-8") as f:
                self.meta = json.load(f)
        except OSError as e:
            fail("%s: cannot read: %s" % (meta_path, e.strerror))
        except ValueError as e:
            fail("%s: not JSON: %s" % (meta_path, e))
        try:
            shard = self.meta["shard"]
            self.index, self.count = int(shard["index"]), int(shard["count"])
            self.points = [int(p["point"]) for p in self.meta["points"]]
            self.grid_points = int(self.meta["grid_points"])
            if self.meta["schema"] != "accel-sweep":
                raise ValueError
        except (KeyError, TypeError, ValueError):
            fail(meta_path + ": not an accel-replay sweep.json")
        self.read_csv(os.path.join(path, "sweep.csv"))

    def read_csv(self, csv_path):
        try:
            with open(csv_path, encoding="utf-8", newline="") as f:
                records = list(csv.reader(f))
        except OSError as e:
            fail("%s: cannot read: %s" % (csv_path, e.strerror))
        except (csv.Error, UnicodeDecodeError) as e:
            fail("%s: not CSV: %s" % (csv_path, e))
        if not records or records[0][:1] != ["point"] or \
                "status" not in records[0] or records[0][-1] != "error":
            fail(csv_path + ": not an accel-replay sweep.csv (no point, "
                 "status and error columns)")
        self.header, self.rows = records[0], {}
        for line, r in enumerate(records[1:], start=2):
            if len(r) != len(self.header):
                fail("%s: line %d: %d fields, the header has %d" %
                     (csv_path, line, len(r), len(self.header)))
            try:
                self.rows[int(r[0])] = r
            except ValueError:
                fail("%s: line %d: the point '%s' is not an integer" %
                     (csv_path, line, r[0]))
        if sorted(self.rows) != sorted(self.points) or \
                len(self.rows) != len(records) - 1:
            fail("%s: its points differ from sweep.json's beside it" %
                 csv_path)

    def has_fdo(self):
        return self.header[-1 - len(FDO_COLUMNS):-1] == FDO_COLUMNS

    def without_fdo(self):
        return self.header[:-1 - len(FDO_COLUMNS)] + ["error"] \
            if self.has_fdo() else self.header


def find_shards(directory):
    try:
        names = os.listdir(directory)
    except OSError as e:
        fail("%s: cannot read: %s" % (directory, e.strerror))
    names = sorted((n for n in names if re.fullmatch(r"shard-[0-9]+", n)),
                   key=lambda n: int(n[len("shard-"):]))
    if not names:
        fail("%s: no shard directories (shard-0, shard-1, ...)" % directory)
    return [Shard(os.path.join(directory, n)) for n in names]


def check(directory, shards):
    """The shards make up one sweep, each index exactly once."""
    first = shards[0]
    for s in shards[1:]:
        for key in SAME_KEYS + ["count"]:
            mine = s.count if key == "count" else s.meta.get(key)
            theirs = first.count if key == "count" else first.meta.get(key)
            if mine != theirs:
                fail("%s and %s are not shards of one sweep: their "
                     "sweep.json differ in '%s'" %
                     (first.path, s.path, "shard.count" if key == "count"
                      else key))
        if s.without_fdo() != first.without_fdo():
            fail("%s and %s are not shards of one sweep: their sweep.csv "
                 "columns differ" % (first.path, s.path))
    count = first.count
    by_index = {}
    for s in shards:
        if not 0 <= s.index < count:
            fail("%s: shard %d/%d is out of range" % (s.path, s.index, count))
        if s.index in by_index:
            fail("shard %d/%d is in two directories: %s and %s" %
                 (s.index, count, by_index[s.index].path, s.path))
        by_index[s.index] = s
        wrong = [p for p in s.points if p % count != s.index]
        if wrong:
            fail("%s: point %d is not in shard %d/%d" %
                 (s.path, wrong[0], s.index, count))
    missing = ["%d/%d" % (i, count) for i in range(count)
               if i not in by_index]
    if missing:
        fail("%s: %s missing (no shard-* directory holds %s)" %
             (directory, "shard " + missing[0] + " is" if len(missing) == 1
              else "shards " + ", ".join(missing) + " are",
              "it" if len(missing) == 1 else "them"))
    points = sorted(p for s in shards for p in s.points)
    if points != list(range(first.grid_points)):
        fail("%s: the shards' points are not the grid's %d points once "
             "each" % (directory, first.grid_points))


def merged_csv(shards):
    fdo = any(s.has_fdo() for s in shards)
    header = next(s.header for s in shards if s.has_fdo() == fdo)
    rows = {}
    for s in shards:
        for p, r in s.rows.items():
            # A shard without FDO columns, in a sweep with them: its rows
            # get them empty, as the whole sweep writes a row without FDO.
            rows[p] = r[:-1] + [""] * len(FDO_COLUMNS) + r[-1:] \
                if fdo and not s.has_fdo() else r
    return csv_line(header) + "".join(csv_line(rows[p]) for p in sorted(rows))


def merged_json(shards):
    meta = dict(shards[0].meta)
    meta["shard"] = {"index": 0, "count": 1}
    points = [p for s in shards for p in s.meta["points"]]
    meta["points"] = sorted(points, key=lambda p: int(p["point"]))
    # As accel-replay writes it (nlohmann::json's dump(2): sorted keys,
    # two-space indent, UTF-8), with a final newline.
    return json.dumps(meta, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def write_replacing(path, text):
    """`text` into a temporary beside `path`, renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp-",
                               dir=os.path.dirname(path) or ".")
    try:
        with io.open(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            fail("cannot write %s: %s" % (path, e.strerror or e))
        raise


def main():
    parser = argparse.ArgumentParser(
        prog="merge-shards", description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="the directory holding shard-0, ...")
    parser.add_argument("-o", "--output", help="where to write sweep.csv "
                        "and sweep.json (default: DIR)")
    args = parser.parse_args()
    shards = find_shards(args.dir)
    check(args.dir, shards)
    csv_text, json_text = merged_csv(shards), merged_json(shards)
    out = args.output or args.dir
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        fail("cannot create %s: %s" % (out, e.strerror))
    write_replacing(os.path.join(out, "sweep.csv"), csv_text)
    write_replacing(os.path.join(out, "sweep.json"), json_text)
    print("merged %d shards, %d points: %s" %
          (len(shards), shards[0].grid_points,
           os.path.join(out, "{sweep.csv,sweep.json}")))


if __name__ == "__main__":
    main()

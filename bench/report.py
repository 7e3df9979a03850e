#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/report.py - turn the @@BENCH lines of bench/guest.sh into results.

usage: bench/report.py [--smoke] [--engine ENGINE.json] [--plot PNG] OUTDIR LOG...

For each guest console log (one per kernel): OUTDIR/KVER.json (every run,
the summary and the target verdicts), OUTDIR/KVER.csv (the summary) and the
table on stdout.  With --engine, the cases of bench/engine.sh's JSON with
their verdicts.  With --plot, one PNG of the ratios to dm-linear of every
kernel, drawn by gnuplot (OUTDIR/ratios.gp, OUTDIR/ratios-*.dat).

An @@BENCH line is one flat JSON object, as jq -c prints it; integers are
kept exact.  A malformed one is reported as LOG:LINE on stderr and in the
notes.  Exit status 0; 1 if a log has no result, has a malformed record or
cannot be read, or ENGINE.json is not engine.sh's; 2 on a usage error.
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys

# Ratio targets to dm-linear (medians, same boot).  "flakey" means: at least
# dm-flakey's ratio on the same device and workload; ("of", (config, {workload:
# want})) means at least want times that config's ratio (dm-fault with no
# rules, for the warm write cache: writes 0.8x, reads of cached data 0.9x).
# The cold cache is judged against dm-linear itself: its first pass is what
# crashtest and a recording see.
TARGETS = {
    "fault": [("ratio", 0.995), ("flakey", None)],
    "fault-16miss": [("ratio", 0.99), ("flakey", None)],
    "fault-p0": [("ratio", 0.99), ("flakey", None)],
    "fault-p0.1%": [("flakey", None)],
    "fault-p1%": [("flakey", None)],
    "fault-p1%-percpu": [("flakey", None)],
    "fault-flakey": [("flakey", None)],
    "fault-delay": [("flakey", None)],
    "fault-cache": [("of", ("fault", {"randwrite": 0.8, "randread": 0.9}))],
    "fault-cache-cold": [("ratio", 0.9)],
    "fault-bad1k": [("of", ("fault", {"randwrite": 0.97, "randread": 0.97}))],
    "fault-bad1m": [("of", ("fault", {"randwrite": 0.97, "randread": 0.97}))],
    "fault-bad1m-mixed": [("of", ("fault", {"randwrite": 0.97, "randread": 0.97}))],
}
# The allocator hooks' targets, by mode: disarmed is free (within the
# bench's noise), armed but filtered out costs at most 250 guest
# instructions a hooked allocation and keeps allocload at 0.93 or more.
ALLOC_TARGETS = {
    "disarmed": [("ratio", 0.998)],
    "filtered": [("insn", 250), ("ratio", 0.93)],
}
# The targets are judged on the CPU-bound device; on the virtio disk the
# host's I/O timing enters the guest's clock, so those rows are shown only.
TARGET_DEVICES = ("nullb",)

DESCR = {
    "raw": "the device itself",
    "dm-linear": "dm-linear",
    "dm-flakey": "dm-flakey up 1 s, down 0 (never down)",
    "dm-delay": "dm-delay 0 ms",
    "fault": "dm-fault, no rules",
    "fault-16miss": "dm-fault, 16 rules matching nothing",
    "fault-p0": "dm-fault, 1 rule on every bio, p=0",
    "fault-p0.1%": "dm-fault, 1 rule, p=0.1% error",
    "fault-p1%": "dm-fault, 1 rule, p=1% error",
    "fault-p50%": "dm-fault, 1 rule, p=50% error",
    "fault-p1%-percpu": "dm-fault, 1 rule, p=1% error, a stream a CPU",
    "fault-p50%-percpu": "dm-fault, 1 rule, p=50% error, a stream a CPU",
    "fault-flakey": "dm-fault's flakey syntax, up 1 down 0",
    "fault-delay": "dm-fault's delay syntax, 0 ms",
    "fault-cache": "dm-fault, write cache on, warm (64m region; reads all cached)",
    "fault-cache-cold": "dm-fault, write cache just switched on (64m region; reads miss)",
    "fault-bad1k": "dm-fault, 1000 bad ranges fio does not touch",
    "fault-bad1m": "dm-fault, 1000000 bad ranges fio does not touch",
    "fault-bad1m-mixed": "dm-fault, 1000000 bad ranges between the blocks fio uses",
}

# The fields the report uses, per kind of record ("?": optional).
STR, NUM = "a string", "a number"
FIELDS = {
    "fio": {"device": STR, "workload": STR, "config": STR, "iops": NUM,
            "total_err?": NUM, "injected?": NUM},
    "alloc": {"mode": STR, "ops_per_s": NUM, "failures?": NUM, "hooked_per_op?": NUM},
    "note": {"text": STR},
    "fatal": {"text": STR},
    "alloc-note": {"text": STR},
}
ENGINE_CASE = {"name": STR, "insn": NUM, "target?": NUM}
SURROGATE = re.compile("[\ud800-\udfff]")
UNFINISHED = "the guest did not finish (no 'done' record): results are partial"


class Malformed(Exception):
    """Input that is not what bench/guest.sh, alloc.sh or engine.sh write."""


def err(msg):
    sys.stdout.flush()
    sys.stderr.write("report: %s\n" % msg)


def number(s, conv):
    """A JSON number: an int stays exact (no float on the way); no NaN, no
    Infinity, nothing a sum or a division could overflow."""
    x = conv(s)
    if not abs(x) < 1e300:
        raise ValueError("number %s out of range" % s[:24])
    return x


def loads(text, col=None):
    """JSON text parsed; col: where text starts on its line (else say the line)."""
    try:
        return json.loads(text, parse_int=lambda s: number(s, int),
                          parse_float=lambda s: number(s, float),
                          parse_constant=lambda s: number(s, float))
    except json.JSONDecodeError as e:
        where = ("line %d column %d" % (e.lineno, e.colno) if col is None
                 else "column %d" % (col + e.colno))
        raise Malformed("not JSON: %s at %s" % (e.msg, where)) from None
    except (ValueError, RecursionError) as e:
        raise Malformed("not JSON: %s" % e) from None


def check(obj, fields, what):
    """obj as a flat JSON object (scalar values) with fields of their types;
    a lone surrogate from a \\u escape becomes U+FFFD as in the logs."""
    if not isinstance(obj, dict):
        raise Malformed("%s is not a JSON object" % what)
    for k, v in obj.items():
        if isinstance(v, (dict, list)):
            raise Malformed('"%s" in %s is not a string, number, true, false or null'
                            % (k, what))
    for spec, typ in fields.items():
        key = spec.rstrip("?")
        if spec.endswith("?") and key not in obj:
            continue
        v = obj.get(key)
        if not (isinstance(v, str) if typ is STR else
                isinstance(v, (int, float)) and not isinstance(v, bool)):
            raise Malformed('%s has no "%s" that is %s' % (what, key, typ))
    return {SURROGATE.sub("\ufffd", k): SURROGATE.sub("\ufffd", v) if isinstance(v, str) else v
            for k, v in obj.items()}


def check_record(obj):
    kind = obj.get("kind") if isinstance(obj, dict) else None
    if not isinstance(kind, str):
        return check(obj, {"kind": STR}, "the record")
    return check(obj, FIELDS.get(kind, {}), "the %s record" % kind)


def read_text(path):
    """A file's text: ill-formed UTF-8 replaced by U+FFFD, NULs dropped."""
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace").replace("\0", "")


def parse_log(path):
    """The @@BENCH records of one log in order, and the malformed ones' errors."""
    recs, bad = [], []
    for n, line in enumerate(re.split(r"\r\n|\r|\n", read_text(path)), 1):
        at = line.find("@@BENCH ")
        if at < 0:
            continue
        try:
            recs.append(check_record(loads(line[at + 8:], at + 8)))
        except Malformed as e:
            bad.append("%s:%d: malformed @@BENCH record: %s" % (path, n, e))
            recs.append({"kind": "note", "text": bad[-1]})
    return recs, bad


def spread(vals, med):
    """(max - min) / median, in %"""
    return (max(vals) - min(vals)) / med * 100 if med else 0.0


def summary_row(dev, wl, cfg, runs, lin_med):
    iops = [r["iops"] for r in runs]
    med = statistics.median(iops)
    row = {"device": dev, "workload": wl, "config": cfg, "description": DESCR.get(cfg, cfg),
           "rounds": len(iops), "iops_median": med, "iops_min": min(iops),
           "iops_max": max(iops), "spread_pct": spread(iops, med),
           "errors": sum(r.get("total_err", 0) for r in runs),
           "injected": sum(r.get("injected", 0) for r in runs)}
    if lin_med and med:
        row["ratio"] = med / lin_med
        # -icount shift=0: one virtual ns per guest instruction
        row["delta_ns_per_io"] = 1e9 / med - 1e9 / lin_med
    return row


def judge(row, rows):
    """The verdicts of row against its targets."""
    if "ratio" not in row or row["device"] not in TARGET_DEVICES:
        return []
    flakey = [r for r in rows if r["device"] == row["device"]
              and r["workload"] == row["workload"] and r["config"] == "dm-flakey"]
    verdicts = []
    for kind, want in TARGETS.get(row["config"], []):
        if kind == "of":
            base = [r for r in rows if r["device"] == row["device"]
                    and r["workload"] == row["workload"] and r["config"] == want[0]]
            times = want[1].get(row["workload"])
            if not base or "ratio" not in base[-1] or times is None:
                continue
            want = times * base[-1]["ratio"]
            label = ">= %.2fx %s %.3f" % (times, base[-1]["config"], want)
        elif kind == "flakey":
            if not flakey or "ratio" not in flakey[-1]:
                continue
            want = flakey[-1]["ratio"]
            label = ">= dm-flakey %.3f" % want
        else:
            label = ">= %s" % ("%.3f" % want).rstrip("0").ljust(4, "0")
        verdicts.append({"target": label, "want": want, "ok": row["ratio"] >= want})
    return verdicts


def summarise(recs, setup):
    """Rows per device and workload: the setup's configurations in its order,
    then the others sorted."""
    groups = {}
    for r in recs:
        if r["kind"] == "fio":
            groups.setdefault((r["device"], r["workload"]), {}).setdefault(
                r["config"], []).append(r)
    configs = setup.get("configs", "")
    order = configs.split() if isinstance(configs, str) else []
    rows = []
    for (dev, wl), by_cfg in groups.items():
        lin = by_cfg.get("dm-linear")
        lin_med = statistics.median([r["iops"] for r in lin]) if lin else None
        cfgs = [c for c in order if c in by_cfg] + sorted(c for c in by_cfg if c not in order)
        rows += [summary_row(dev, wl, c, by_cfg[c], lin_med) for c in cfgs]
    for r in rows:
        r["targets"] = judge(r, rows)
    return rows


def alloc_mode(mode, runs):
    vals = [r["ops_per_s"] for r in runs]
    med = statistics.median(vals)
    a = {"mode": mode, "rounds": len(vals), "ops_median": med,
         "spread_pct": spread(vals, med), "failures": sum(r.get("failures", 0) for r in runs),
         "ns_per_op": 1e9 / med if med else None}
    hooked = [r["hooked_per_op"] for r in runs if "hooked_per_op" in r]
    if hooked:
        a["hooked_per_op"] = statistics.median(hooked)
    return a


def summarise_alloc(recs):
    """One entry per mode of the allocator benchmark, compared with "none"."""
    modes = {}
    for r in recs:
        if r["kind"] == "alloc":
            modes.setdefault(r["mode"], []).append(r)
    out = [alloc_mode(m, runs) for m, runs in modes.items()]
    base = next((a["ops_median"] for a in out if a["mode"] == "none"), None)
    for a in out:
        if base and a["ns_per_op"] is not None:
            a["ratio"] = a["ops_median"] / base
            a["delta_ns_per_op"] = a["ns_per_op"] - 1e9 / base
            if a.get("hooked_per_op"):
                # extra guest instructions per allocation the hook saw
                a["delta_ns_per_hooked"] = a["delta_ns_per_op"] / a["hooked_per_op"]
    for a in out:
        a["targets"] = judge_alloc(a)
    return out


def judge_alloc(a):
    """The verdicts of an allocator mode against its targets."""
    verdicts = []
    for kind, want in ALLOC_TARGETS.get(a["mode"], []):
        if kind == "insn" and "delta_ns_per_hooked" in a:
            verdicts.append({"target": "<= %d/alloc" % want, "want": want,
                             "ok": a["delta_ns_per_hooked"] <= want})
        elif kind == "ratio" and "ratio" in a:
            verdicts.append({"target": ">= %s" % want, "want": want, "ok": a["ratio"] >= want})
    return verdicts


def kernel_name(setup, recs, log):
    """The setup's kernel, or the first record's, or the log's name."""
    k = next((r["kernel"] for r in [setup] + recs if r.get("kernel")), None)
    return str(k) if k is not None else os.path.basename(log).rsplit(".", 1)[0]


def collect_notes(recs, rows, log):
    """The notes in the order they are shown; 1 if the results are partial."""
    notes = [r["text"] for r in recs if r["kind"] in ("note", "fatal")]
    status = 0
    if not any(r["kind"] == "done" for r in recs):
        notes.append(UNFINISHED)
        status = 1
    if not rows:
        notes.append("no fio result in %s" % log)
        status = 1
    return notes + [r["text"] for r in recs if r["kind"] == "alloc-note"], status


def verdicts(row, sep):
    return sep.join("%s %s" % ("PASS" if v["ok"] else "MISS", v["target"])
                    for v in row["targets"])


def opt(fmt, d, key, none="-"):
    return fmt % d[key] if key in d else none


def fmt_table(kernel, setup, rows, alloc, notes, smoke):
    out = ["=== %s: engine %s, %s round(s), null_blk %sx%s IOs, virtio %sx%s IOs per run%s ===" % (
        kernel, setup.get("engine", "?"), setup.get("rounds", "?"),
        setup.get("numjobs", 2), setup.get("null_ios", "?"),
        setup.get("numjobs", 2), setup.get("virtio_ios", "?"),
        " (SMOKE: tiny runs, no verdicts)" if smoke else ""),
        "ratio: median IOPS / median dm-linear IOPS; dinsn/IO: guest instructions per I/O"
        " more than dm-linear; targets judged on null_blk only",
        "%-6s %-9s %-17s %10s %8s %7s %9s %6s  %s" % (
            "device", "workload", "config", "kIOPS med", "spread%", "ratio", "dinsn/IO",
            "errors", "target")]
    for r in rows:
        out.append("%-6s %-9s %-17s %10.2f %8.2f %7s %9s %6s  %s" % (
            r["device"], r["workload"], r["config"], r["iops_median"] / 1000,
            r["spread_pct"], opt("%.3f", r, "ratio"), opt("%+.0f", r, "delta_ns_per_io"),
            r["errors"], "" if smoke else verdicts(r, "  ")))
    if alloc:
        out += ["allocator hooks (%s):" % kernel,
                "(dinsn/op: guest instructions per operation more than without the module;"
                " hooked/op: allocations the armed hook saw per operation)",
                "%-10s %12s %8s %7s %10s %9s %11s %8s  %s" % (
                    "mode", "kops/s med", "spread%", "ratio", "dinsn/op", "hooked/op",
                    "dinsn/alloc", "failed", "target")]
    for a in alloc:
        out.append(("%-10s %12.2f %8.2f %7s %10s %9s %11s %8d  %s" % (
            a["mode"], a["ops_median"] / 1000, a["spread_pct"], opt("%.4f", a, "ratio"),
            opt("%+.1f", a, "delta_ns_per_op"),
            "%.2f" % a["hooked_per_op"] if a.get("hooked_per_op") else "-",
            opt("%+.0f", a, "delta_ns_per_hooked"), a["failures"],
            "" if smoke else verdicts(a, "  "))).rstrip())
    return "\n".join(out + ["note: " + n for n in notes])


def write_csv(path, kernel, rows, alloc, smoke):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "device", "workload", "config", "rounds", "iops_median",
                    "iops_min", "iops_max", "spread_pct", "ratio_to_linear",
                    "delta_ns_per_io", "errors", "injected", "verdict"])
        for r in rows:
            w.writerow([kernel, r["device"], r["workload"], r["config"], r["rounds"],
                        "%.1f" % r["iops_median"], "%.1f" % r["iops_min"],
                        "%.1f" % r["iops_max"], "%.3f" % r["spread_pct"],
                        opt("%.4f", r, "ratio", ""), opt("%.1f", r, "delta_ns_per_io", ""),
                        r["errors"], r["injected"], "" if smoke else verdicts(r, " ")])
        for a in alloc:
            w.writerow([kernel, "alloc", "slab-churn", a["mode"], a["rounds"],
                        "%.1f" % a["ops_median"], "", "", "%.3f" % a["spread_pct"],
                        opt("%.4f", a, "ratio", ""), opt("%.1f", a, "delta_ns_per_op", ""),
                        a["failures"], "", ""])


def report_log(log, outdir, smoke):
    """One log: the table, KVER.json and KVER.csv.  (kernel, rows, status,
    allocator modes), or None if the log cannot be read."""
    try:
        recs, bad = parse_log(log)
    except OSError as e:
        err("%s: %s" % (log, e.strerror))
        return None
    for msg in bad:
        err(msg)
    setup = next((r for r in recs if r["kind"] == "setup"), {})
    rows = summarise(recs, setup)
    kernel = kernel_name(setup, recs, log)
    notes, status = collect_notes(recs, rows, log)
    alloc = summarise_alloc(recs)
    print(fmt_table(kernel, setup, rows, alloc, notes, smoke) + "\n")
    with open(os.path.join(outdir, kernel + ".json"), "w", encoding="utf-8") as f:
        json.dump({"kernel": kernel, "smoke": smoke, "setup": setup, "notes": notes,
                   "summary": rows, "alloc": alloc,
                   "runs": [r for r in recs if r["kind"] in ("fio", "alloc")]}, f, indent=1)
    write_csv(os.path.join(outdir, kernel + ".csv"), kernel, rows, alloc, smoke)
    return kernel, rows, 1 if bad else status, alloc


def load_engine(path):
    """The cases of bench/engine.sh's JSON, checked."""
    eng = loads(read_text(path))
    if not isinstance(eng, dict):
        raise Malformed("not a JSON object")
    cases = eng.pop("cases", [])
    check(eng, {}, "the top level")
    if not isinstance(cases, list):
        raise Malformed('"cases" is not an array')
    return [check(c, ENGINE_CASE, "case %d" % i) for i, c in enumerate(cases, 1)]


def report_engine(path, smoke):
    """The engine's cases with their verdicts: the targets missed, or None."""
    try:
        cases = load_engine(path)
    except OSError as e:
        err("%s: %s" % (path, e.strerror))
        return None
    except Malformed as e:
        err("%s: not the JSON of bench/engine.sh: %s" % (path, e))
        return None
    print("engine (host, callgrind): instructions per dmf_should_fail() decision")
    missed = 0
    for c in cases:
        verdict = ""
        if "target" in c and not smoke:
            verdict = "%s <= %d" % ("PASS" if c["insn"] <= c["target"] else "MISS", c["target"])
            missed += c["insn"] > c["target"]
        print("  %-34s %8.1f  %s" % (c["name"], c["insn"], verdict))
    print()
    return missed


def plot_cmd(dat, series):
    plots = ["'%s' using %d:xtic(1) title '%s %s' noenhanced" % (dat, i + 2, k, wl)
             for i, (k, wl) in enumerate(series)]
    plots += ["0.995 with lines dt 2 lw 2 lc rgb 'dark-green' title 'target no rules 0.995'",
              "0.99 with lines dt 3 lw 2 lc rgb 'red' title 'target rules 0.99'"]
    return "plot " + ", \\\n  ".join(plots)


def plot_device(outdir, results, series, dev):
    """OUTDIR/ratios-DEV.dat (a configuration and its ratio per series on each
    line, and a zoom on dm-fault's for nullb); the gnuplot lines of DEV."""
    ratio = {}
    for kernel, rows in results:
        for r in rows:
            if r["device"] == dev and "ratio" in r:
                ratio.setdefault((kernel, r["workload"], r["config"]), r["ratio"])
    lines = ["%s%s\n" % (c.replace(" ", "_"), "".join(
        " %.4f" % ratio[(k, wl, c)] if (k, wl, c) in ratio else " NaN" for k, wl in series))
        for c in dict.fromkeys(c for _, _, c in ratio)]
    dat = os.path.join(outdir, "ratios-%s.dat" % dev)
    with open(dat, "w", encoding="utf-8") as f:
        f.write("# config" + "".join(" %s/%s" % s for s in series) + "\n" + "".join(lines))
    title = {"nullb": "null_blk (no backing memory, CPU-bound): targets judged here",
             "virtio": "virtio disk (completions timed by the host under -icount: "
                       "large spread, shown, not judged)"}.get(dev, dev)
    gp = ["set title '%s' noenhanced" % title, plot_cmd(dat, series)]
    if dev == "nullb":
        zdat = os.path.join(outdir, "ratios-%s-zoom.dat" % dev)
        with open(zdat, "w", encoding="utf-8") as f:
            f.writelines(x for x in lines if x.startswith(("fault", "dm-linear")))
        gp += ["set title 'null_blk, dm-fault configurations (zoomed)' noenhanced",
               "set yrange [0.90:1.01]", "set ytics 0.01", plot_cmd(zdat, series),
               "set yrange [0:1.3]", "set ytics 0.1"]
    return gp


def plot(png, results, outdir):
    """Clustered bars of the ratio to dm-linear: one panel per device."""
    devices = list(dict.fromkeys(r["device"] for _, rows in results for r in rows))
    series = list(dict.fromkeys((k, r["workload"]) for k, rows in results for r in rows))
    if not devices:
        return False
    npanels = len(devices) + ("nullb" in devices)
    gp = ["set terminal pngcairo size 1400,%d font 'DejaVu Sans,10'" % (420 * npanels),
          "set output '%s'" % png,
          "set multiplot layout %d,1 title 'IOPS ratio to dm-linear, same boot, median of"
          " rounds (QEMU -icount, fio 4k QD32 2 jobs)'" % npanels,
          "set style data histograms", "set style histogram clustered gap 1",
          "set style fill solid 0.85 border -1", "set boxwidth 0.9", "set yrange [0:1.3]",
          "set ytics 0.1", "set grid ytics", "set key outside right top vertical",
          "set xtics rotate by -25 noenhanced", "set ylabel 'ratio to dm-linear'"]
    for dev in devices:
        gp += plot_device(outdir, results, series, dev)
    script = os.path.join(outdir, "ratios.gp")
    with open(script, "w", encoding="utf-8") as f:
        f.write("\n".join(gp + ["unset multiplot"]) + "\n")
    sys.stdout.flush()
    try:
        r = subprocess.run(["gnuplot", script], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, errors="replace")
    except OSError as e:
        err("gnuplot failed: %s" % e.strerror)
        return False
    if r.returncode:
        err("gnuplot failed: %s" % r.stdout)
    return r.returncode == 0


def run(a):
    os.makedirs(a.outdir, exist_ok=True)
    results, status, missed = [], 0, 0
    for log in a.logs:
        res = report_log(log, a.outdir, a.smoke)
        if res is None:
            status = 1
            continue
        status |= res[2]
        if not a.smoke:
            missed += sum(not v["ok"] for r in res[1] + res[3] for v in r["targets"])
        results.append(res[:2])
    if a.engine and os.path.exists(a.engine):
        n = report_engine(a.engine, a.smoke)
        status |= n is None
        missed += n or 0
    if a.plot and results and plot(a.plot, results, a.outdir):
        print("plot: %s" % a.plot)
    if not a.smoke:
        print("targets missed: %d" % missed)
    return status


def main(argv):
    p = argparse.ArgumentParser(prog="bench/report.py", allow_abbrev=False,
                                description=__doc__.split("\n\n")[2])
    p.add_argument("--smoke", action="store_true", help="tiny runs: no verdicts")
    p.add_argument("--engine", metavar="ENGINE.json", help="bench/engine.sh's results")
    p.add_argument("--plot", metavar="PNG", help="draw the ratios into PNG with gnuplot")
    p.add_argument("outdir", metavar="OUTDIR")
    p.add_argument("logs", metavar="LOG", nargs="+")
    a = p.parse_args(argv)
    sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    try:
        return run(a)
    except OSError as e:
        err("%s: %s" % (e.filename, e.strerror) if e.filename else str(e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

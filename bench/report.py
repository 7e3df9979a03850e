#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/report.py - turn the @@BENCH lines of bench/guest.sh into results.

usage: bench/report.py [--smoke] [--engine ENGINE.json] [--plot PNG] OUTDIR LOG...

For each guest log (one per kernel): OUTDIR/KVER.json (every run, the
summary and the target verdicts), OUTDIR/KVER.csv (the summary), and the
table on stdout.  With --plot, one PNG of the ratios to dm-linear of every
kernel, drawn with gnuplot.  Exit status 0, or 1 if a log has no result.
"""

import csv
import json
import os
import statistics
import subprocess
import sys

# Ratio targets to dm-linear (medians, same boot).  "flakey" means: at least
# dm-flakey's ratio on the same device and workload.
TARGETS = {
    "fault": [("ratio", 0.98), ("flakey", None)],
    "fault-16miss": [("ratio", 0.95), ("flakey", None)],
    "fault-p0": [("ratio", 0.95), ("flakey", None)],
    "fault-p0.1%": [("flakey", None)],
    "fault-flakey": [("flakey", None)],
    "fault-delay": [("flakey", None)],
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
    "fault-flakey": "dm-fault's flakey syntax, up 1 down 0",
    "fault-delay": "dm-fault's delay syntax, 0 ms",
}


def parse_log(path):
    """The @@BENCH records of one guest log, in order."""
    recs = []
    with open(path, errors="replace") as f:
        for line in f:
            i = line.find("@@BENCH ")
            if i < 0:
                continue
            try:
                recs.append(json.loads(line[i + 8:]))
            except json.JSONDecodeError:
                recs.append({"kind": "note", "text": "unparsable line: " + line.strip()})
    return recs


def spread(vals, med):
    return (max(vals) - min(vals)) / med * 100 if med else 0.0


def summarise(recs):
    setup = next((r for r in recs if r["kind"] == "setup"), {})
    order = setup.get("configs", "").split()
    runs = [r for r in recs if r["kind"] == "fio"]
    groups = {}
    for r in runs:
        groups.setdefault((r["device"], r["workload"], r["config"]), []).append(r)
    rows = []
    devs = []
    for r in runs:
        if (r["device"], r["workload"]) not in devs:
            devs.append((r["device"], r["workload"]))
    for dev, wl in devs:
        lin = groups.get((dev, wl, "dm-linear"))
        lin_med = statistics.median(x["iops"] for x in lin) if lin else None
        cfgs = [c for c in order if (dev, wl, c) in groups]
        cfgs += sorted(c for (d, w, c) in groups if d == dev and w == wl and c not in cfgs)
        for c in cfgs:
            g = groups[(dev, wl, c)]
            iops = [x["iops"] for x in g]
            med = statistics.median(iops)
            row = {
                "device": dev, "workload": wl, "config": c,
                "description": DESCR.get(c, c),
                "rounds": len(iops), "iops_median": med,
                "iops_min": min(iops), "iops_max": max(iops),
                "spread_pct": spread(iops, med),
                "errors": sum(x.get("total_err", 0) for x in g),
                "injected": sum(x.get("injected", 0) for x in g),
            }
            if lin_med and med:
                row["ratio"] = med / lin_med
                # -icount shift=0: one virtual ns per guest instruction
                row["delta_ns_per_io"] = 1e9 / med - 1e9 / lin_med
            rows.append(row)
    # targets
    by = {(r["device"], r["workload"], r["config"]): r for r in rows}
    for r in rows:
        verdicts = []
        for kind, want in TARGETS.get(r["config"], []):
            if "ratio" not in r or r["device"] not in TARGET_DEVICES:
                continue
            if kind == "flakey":
                fl = by.get((r["device"], r["workload"], "dm-flakey"))
                if not fl or "ratio" not in fl:
                    continue
                want = fl["ratio"]
                label = ">= dm-flakey %.3f" % want
            else:
                label = ">= %.2f" % want
            verdicts.append({"target": label, "want": want, "ok": r["ratio"] >= want})
        r["targets"] = verdicts
    return setup, rows


def summarise_alloc(recs):
    runs = [r for r in recs if r["kind"] == "alloc"]
    modes = []
    for r in runs:
        if r["mode"] not in modes:
            modes.append(r["mode"])
    out = []
    base = None
    for m in modes:
        vals = [r["ops_per_s"] for r in runs if r["mode"] == m]
        med = statistics.median(vals)
        if m == "none":
            base = med
        out.append({
            "mode": m, "rounds": len(vals), "ops_median": med,
            "spread_pct": spread(vals, med),
            "failures": sum(r.get("failures", 0) for r in runs if r["mode"] == m),
            "ns_per_op": 1e9 / med if med else None,
        })
        hooked = [r["hooked_per_op"] for r in runs if r["mode"] == m and "hooked_per_op" in r]
        if hooked:
            out[-1]["hooked_per_op"] = statistics.median(hooked)
    for o in out:
        if base:
            o["ratio"] = o["ops_median"] / base
            o["delta_ns_per_op"] = o["ns_per_op"] - 1e9 / base
            if o.get("hooked_per_op"):
                # extra guest instructions per allocation the hook saw
                o["delta_ns_per_hooked"] = o["delta_ns_per_op"] / o["hooked_per_op"]
    return out


def fmt_table(kernel, setup, rows, alloc, notes, smoke):
    out = []
    out.append("=== %s: engine %s, %s round(s), null_blk %sx%s IOs, virtio %sx%s IOs per run%s ===" % (
        kernel, setup.get("engine", "?"), setup.get("rounds", "?"),
        setup.get("numjobs", 2), setup.get("null_ios", "?"),
        setup.get("numjobs", 2), setup.get("virtio_ios", "?"),
        " (SMOKE: tiny runs, no verdicts)" if smoke else ""))
    out.append("ratio: median IOPS / median dm-linear IOPS; dinsn/IO: guest instructions per I/O"
               " more than dm-linear; targets judged on null_blk only")
    out.append("%-6s %-9s %-13s %10s %8s %7s %9s %6s  %s" % (
        "device", "workload", "config", "kIOPS med", "spread%", "ratio", "dinsn/IO", "errors", "target"))
    for r in rows:
        tv = ""
        if not smoke:
            tv = "  ".join("%s %s" % ("PASS" if v["ok"] else "MISS", v["target"]) for v in r["targets"])
        out.append("%-6s %-9s %-13s %10.2f %8.2f %7s %9s %6s  %s" % (
            r["device"], r["workload"], r["config"], r["iops_median"] / 1000,
            r["spread_pct"],
            "%.3f" % r["ratio"] if "ratio" in r else "-",
            "%+.0f" % r["delta_ns_per_io"] if "delta_ns_per_io" in r else "-",
            r["errors"], tv))
    if alloc:
        out.append("allocator hooks (%s):" % kernel)
        out.append("(dinsn/op: guest instructions per operation more than without the module;"
                   " hooked/op: allocations the armed hook saw per operation)")
        out.append("%-10s %12s %8s %7s %10s %9s %11s %8s" % (
            "mode", "kops/s med", "spread%", "ratio", "dinsn/op", "hooked/op", "dinsn/alloc", "failed"))
        for a in alloc:
            out.append("%-10s %12.2f %8.2f %7s %10s %9s %11s %8d" % (
                a["mode"], a["ops_median"] / 1000, a["spread_pct"],
                "%.4f" % a["ratio"] if "ratio" in a else "-",
                "%+.1f" % a["delta_ns_per_op"] if "delta_ns_per_op" in a else "-",
                "%.2f" % a["hooked_per_op"] if a.get("hooked_per_op") else "-",
                "%+.0f" % a["delta_ns_per_hooked"] if "delta_ns_per_hooked" in a else "-",
                a["failures"]))
    for n in notes:
        out.append("note: " + n)
    return "\n".join(out)


def plot(png, results, outdir):
    """Clustered bars of the ratio to dm-linear: one panel per device."""
    devices = []
    series = []   # (kernel, workload)
    for kernel, rows in results:
        for r in rows:
            if r["device"] not in devices:
                devices.append(r["device"])
            if (kernel, r["workload"]) not in series:
                series.append((kernel, r["workload"]))
    if not devices:
        return False
    npanels = len(devices) + ("nullb" in devices)
    gp = [
        "set terminal pngcairo size 1400,%d font 'DejaVu Sans,10'" % (420 * npanels),
        "set output '%s'" % png,
        "set multiplot layout %d,1 title 'IOPS ratio to dm-linear, same boot, median of rounds (QEMU -icount, fio 4k QD32 2 jobs)'" % npanels,
        "set style data histograms",
        "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1",
        "set boxwidth 0.9",
        "set yrange [0:1.3]",
        "set ytics 0.1",
        "set grid ytics",
        "set key outside right top vertical",
        "set xtics rotate by -25 noenhanced",
        "set ylabel 'ratio to dm-linear'",
    ]
    for dev in devices:
        cfgs = []
        for kernel, rows in results:
            for r in rows:
                if r["device"] == dev and r["config"] not in cfgs and "ratio" in r:
                    cfgs.append(r["config"])
        dat = os.path.join(outdir, "ratios-%s.dat" % dev)
        with open(dat, "w") as f:
            f.write("# config " + " ".join("%s/%s" % s for s in series) + "\n")
            for c in cfgs:
                vals = []
                for kernel, wl in series:
                    v = next((r["ratio"] for k2, rows in results if k2 == kernel
                              for r in rows if r["device"] == dev and r["workload"] == wl
                              and r["config"] == c and "ratio" in r), None)
                    vals.append("%.4f" % v if v is not None else "NaN")
                f.write("%s %s\n" % (c.replace(" ", "_"), " ".join(vals)))
        title = {"nullb": "null_blk (no backing memory, CPU-bound): targets judged here",
                 "virtio": "virtio disk (completions timed by the host under -icount: "
                           "large spread, shown, not judged)"}.get(dev, dev)
        gp.append("set title '%s' noenhanced" % title)
        plots = []
        for i, (kernel, wl) in enumerate(series):
            plots.append("'%s' using %d:xtic(1) title '%s %s' noenhanced" % (dat, i + 2, kernel, wl))
        plots.append("0.98 with lines dt 2 lw 2 lc rgb 'dark-green' title 'target no rules 0.98'")
        plots.append("0.95 with lines dt 3 lw 2 lc rgb 'red' title 'target rules 0.95'")
        gp.append("plot " + ", \\\n  ".join(plots))
        if dev == "nullb":
            # the same bars of dm-fault's configurations, zoomed on the targets
            zdat = os.path.join(outdir, "ratios-%s-zoom.dat" % dev)
            with open(dat) as f, open(zdat, "w") as z:
                z.writelines(l for l in f if l.startswith("fault") or l.startswith("dm-linear"))
            gp.append("set title 'null_blk, dm-fault configurations (zoomed)' noenhanced")
            gp.append("set yrange [0.90:1.01]")
            gp.append("set ytics 0.01")
            gp.append("plot " + ", \\\n  ".join(p.replace("'%s'" % dat, "'%s'" % zdat) for p in plots))
            gp.append("set yrange [0:1.3]")
            gp.append("set ytics 0.1")
    gp.append("unset multiplot")
    script = os.path.join(outdir, "ratios.gp")
    with open(script, "w") as f:
        f.write("\n".join(gp) + "\n")
    r = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write("report: gnuplot failed: %s\n" % r.stderr)
        return False
    return True


def main(argv):
    smoke = False
    png = None
    engine = None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--smoke":
            smoke = True
            argv = argv[1:]
        elif argv[0] == "--plot":
            png, argv = argv[1], argv[2:]
        elif argv[0] == "--engine":
            engine, argv = argv[1], argv[2:]
        else:
            sys.stderr.write(__doc__)
            return 2
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    outdir, logs = argv[0], argv[1:]
    os.makedirs(outdir, exist_ok=True)
    results = []
    status = 0
    misses = 0
    for log in logs:
        recs = parse_log(log)
        setup, rows = summarise(recs)
        kernel = setup.get("kernel") or next((r.get("kernel") for r in recs if r.get("kernel")), None)
        if not kernel:
            kernel = os.path.basename(log).rsplit(".", 1)[0]
        notes = [r["text"] for r in recs if r["kind"] in ("note", "fatal")]
        if not any(r["kind"] == "done" for r in recs):
            notes.append("the guest did not finish (no 'done' record): results are partial")
            status = 1
        if not rows:
            notes.append("no fio result in %s" % log)
            status = 1
        alloc = summarise_alloc(recs)
        alloc_notes = [r for r in recs if r["kind"] == "alloc-note"]
        notes += [r["text"] for r in alloc_notes]
        print(fmt_table(kernel, setup, rows, alloc, notes, smoke))
        print()
        if not smoke:
            misses += sum(1 for r in rows for v in r["targets"] if not v["ok"])
        doc = {"kernel": kernel, "smoke": smoke, "setup": setup, "notes": notes,
               "summary": rows, "alloc": alloc,
               "runs": [r for r in recs if r["kind"] in ("fio", "alloc")]}
        with open(os.path.join(outdir, kernel + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
        with open(os.path.join(outdir, kernel + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["kernel", "device", "workload", "config", "rounds", "iops_median",
                        "iops_min", "iops_max", "spread_pct", "ratio_to_linear",
                        "delta_ns_per_io", "errors", "injected", "verdict"])
            for r in rows:
                verdict = "" if smoke else " ".join(
                    ("PASS" if v["ok"] else "MISS") + " " + v["target"] for v in r["targets"])
                w.writerow([kernel, r["device"], r["workload"], r["config"], r["rounds"],
                            "%.1f" % r["iops_median"], "%.1f" % r["iops_min"],
                            "%.1f" % r["iops_max"], "%.3f" % r["spread_pct"],
                            "%.4f" % r["ratio"] if "ratio" in r else "",
                            "%.1f" % r["delta_ns_per_io"] if "delta_ns_per_io" in r else "",
                            r["errors"], r["injected"], verdict])
            for a in alloc:
                w.writerow([kernel, "alloc", "slab-churn", a["mode"], a["rounds"],
                            "%.1f" % a["ops_median"], "", "", "%.3f" % a["spread_pct"],
                            "%.4f" % a["ratio"] if "ratio" in a else "",
                            "%.1f" % a["delta_ns_per_op"] if "delta_ns_per_op" in a else "",
                            a["failures"], "", ""])
        results.append((kernel, rows))
    if engine and os.path.exists(engine):
        with open(engine) as f:
            eng = json.load(f)
        print("engine (host, callgrind): instructions per dmf_should_fail() decision")
        for e in eng.get("cases", []):
            t = e.get("target")
            verdict = ""
            if t is not None and not smoke:
                verdict = "%s <= %d" % ("PASS" if e["insn"] <= t else "MISS", t)
                if e["insn"] > t:
                    misses += 1
            print("  %-34s %8.1f  %s" % (e["name"], e["insn"], verdict))
        print()
    if png and results:
        if plot(png, results, outdir):
            print("plot: %s" % png)
    if not smoke:
        print("targets missed: %d" % misses)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

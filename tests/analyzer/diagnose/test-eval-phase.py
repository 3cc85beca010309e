#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An evaluation phase that takes a large share of the run gets findings
of its own, labelled with the phase and kept apart from the training
findings, which stay as they were.

Usage: test-eval-phase.py PFPROF WORKDIR [SAMPLES]  (TAP on stdout)

Planted traces (`pfprof generate --plant phases,input-starved`): with 20
training steps the two validation passes take about 38% of the run, with
200 steps about 7%. With SAMPLES (samples/traces), apex's main_amp.py
with pin_memory=False recorded on the H200, whose validation takes 25% of the run.
"""
import csv
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyzer_tap  # noqa: E402
from analyzer_tap import check, finish, run  # noqa: E402

scratch = analyzer_tap.Scratch(sys.argv)
pfprof, work, samples = scratch.pfprof, scratch.work, scratch.samples
path, generate, report = scratch.path, scratch.generate, scratch.report


def config(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def strip(findings):
    """What a reader compares of a list of findings."""
    return [(f["rule"], f["severity"], f["est_savings_ns"], f["predicted_step_ns"], f["message"])
            for f in findings]


off = config("off.ini", "[analysis]\nmin-phase-share=1\n")

# 1. A large evaluation phase: its own findings, labelled.
big = generate("big.pfprof", "--plant", "phases,input-starved", "--steps", "20")
rc, r, err = report(big)
t = r["traces"][0]
p = t["phases"]
span = t["end_ns"] - t["start_ns"]
share = p["evaluation_ns"] / span
check("the planted evaluation takes over a fifth of the run", 0.2 <= share < 0.6, share)
check("its evaluation is judged on its own", p["evaluation_judged"] is True, p)
pf = r["phase_findings"]
check("it has an input-starved finding of its own",
      any(f["rule"] == "input-starved" and f["material"] for f in pf), strip(pf))
check("each is labelled evaluation, per mean evaluation batch",
      pf and all(f["phase"] == "evaluation" and f["saving_basis"] == "mean_evaluation_batch" for f in pf),
      [(f["phase"], f["saving_basis"]) for f in pf])
check("the training findings are labelled training",
      r["findings"] and all(f["phase"] == "training" for f in r["findings"]), r["findings"])
check("evaluation_findings counts the material ones",
      p["evaluation_findings"] == sum(1 for f in pf if f["material"]), p["evaluation_findings"])
led = p["evaluation_batch_ledger"]
check("the batches' ledger is over every evaluation batch",
      led["steps"] == p["evaluation_batches"] == 20, led["steps"])
check("no evaluation saving exceeds the mean batch",
      all(0 <= f["est_savings_ns"] <= led["mean"]["step_ns"] for f in pf), strip(pf))
check("every fix of the phase predicts a shorter mean batch",
      0 < p["evaluation_predicted_all_fixes_ns"] < led["mean"]["step_ns"], p)

# The same findings --phase eval makes, where they are the report's own.
rc, e, err = report(big, "--phase", "eval")
check("they are the findings --phase eval makes", strip(pf) == strip(e["findings"]),
      (strip(pf), strip(e["findings"])))
check("--phase eval has no second section",
      e["phase_findings"] == [] and e["traces"][0]["phases"]["evaluation_judged"] is False
      and all(f["phase"] == "evaluation" for f in e["findings"]), e["phase_findings"])
rc, al, err = report(big, "--phase", "all")
check("--phase all has no second section", al["phase_findings"] == [], al["phase_findings"])

# The training findings, headline, predictions and gate are unchanged.
rc_off, o, err = report(big, "--config", off)
check("min-phase-share=1 judges no phase on its own",
      o["phase_findings"] == [] and o["traces"][0]["phases"]["evaluation_judged"] is False,
      o["phase_findings"])
check("the training findings are those without the evaluation's",
      strip(r["findings"]) == strip(o["findings"]), (strip(r["findings"]), strip(o["findings"])))
check("the headline, predictions and ledger are the training steps'",
      r["summary"] == o["summary"] and t["predicted_step_all_fixes_ns"] == o["traces"][0]["predicted_step_all_fixes_ns"]
      and t["ledger"] == o["traces"][0]["ledger"], "summary differs")
# Text: the labelled section after the training findings.
rc, text, err = run(pfprof, "report", big)
head = text.find("Evaluation phase (")
check("the text report has the evaluation phase's section", head > 0, text[-2000:])
check("after the training findings", head > text.find("1. ["), text[:400])
check("its findings are tagged [evaluation], per mean evaluation batch",
      "[evaluation] [error] input-starved" in text[head:]
      and "per mean evaluation batch" in text[head:]
      and "[evaluation]" not in text[:head], text[head:head + 1200])
over = " ".join(text[head:].split())
starved = next(f for f in pf if f["rule"] == "input-starved")
m = __import__("re").search(r"input-starved Saves ~\S+ \S+ per mean evaluation batch.*?; ~(\S+) (\S+) over the "
                            r"phase's (\d+) batches", over)
scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
check("each evaluation saving is also given over the phase's batches",
      m is not None and int(m.group(3)) == 20
      and abs(float(m.group(1)) * scale[m.group(2)] - starved["est_savings_ns"] * 20) <= 0.01 * starved["est_savings_ns"] * 20,
      over[:600])
check("the training findings say nothing per evaluation batch",
      "per mean evaluation batch" not in text[:head], text[:head])
check("the phases line says evaluation is judged on its own too",
      "is judged on its own as well: its findings follow the training ones." in " ".join(text[:head].split()),
      text[:900])
rc, text_eval, err = run(pfprof, "report", "--phase", "eval", big)
check("--phase eval's text has no such section", "Evaluation phase (" not in text_eval, text_eval[-800:])

# Markdown, HTML and JUnit carry the label too.
rc, md, err = run(pfprof, "report", "--format", "markdown", big)
mhead = md.find("## Evaluation phase (")
check("markdown: the evaluation phase's section after the training findings",
      mhead > md.find("### ") > 0 and "### [evaluation] Error `input-starved`" in md[mhead:]
      and "[evaluation]" not in md[:mhead] and "per mean evaluation batch" in md[mhead:], md[mhead:mhead + 600])
rc, page, err = run(pfprof, "report", "--format", "html", "-o", path("big.html"), big)
page = open(path("big.html")).read()
hhead = page.find("<h2>Evaluation phase (")
check("html: the evaluation phase's section after the findings, each labelled",
      hhead > page.find('<div id="findings">') > 0
      and 'data-rule="input-starved" data-phase="evaluation"' in page[hhead:]
      and "data-phase" not in page[:hhead], page[hhead:hhead + 600])
rc, xml, err = run(pfprof, "report", "--format", "junit", big)
case = xml[xml.find('name="input-starved"'):]
case = case[:case.find("</testcase>")]
check("junit: the evaluation finding is told in its rule's testcase, labelled",
      "[evaluation] [error]" in case and "per mean evaluation batch" in case, case[:800])
rc_j, xml_off, err = run(pfprof, "report", "--format", "junit", "--config", off, big)
check("junit: the evaluation findings add no failure",
      xml.count("<failure") == xml_off.count("<failure") and "[evaluation]" not in xml_off,
      (xml.count("<failure"), xml_off.count("<failure")))

# CSV: a phase column, evaluation rows after the training ones.
rc, out, err = run(pfprof, "report", "--format", "csv-findings", big)
rows = list(csv.DictReader(io.StringIO(out)))
phases = [row["phase"] for row in rows]
check("csv-findings has a phase column",
      rc == 0 and "training" in phases and "evaluation" in phases
      and phases == sorted(phases, key=lambda x: x != "training"), phases)
check("its evaluation rows are the phase findings",
      [(x["rule"], int(x["est_savings_ns"])) for x in rows if x["phase"] == "evaluation"]
      == [(f["rule"], f["est_savings_ns"]) for f in pf], rows)

# 2. A small evaluation phase: none.
small = generate("small.pfprof", "--plant", "phases,input-starved", "--steps", "200")
rc, s, err = report(small)
sp = s["traces"][0]["phases"]
check("the small evaluation takes under a fifth of the run",
      0 < sp["evaluation_ns"] < 0.2 * (s["traces"][0]["end_ns"] - s["traces"][0]["start_ns"]), sp)
check("a small evaluation phase gets no findings of its own",
      s["phase_findings"] == [] and sp["evaluation_judged"] is False and sp["evaluation_findings"] == 0,
      s["phase_findings"])
rc, text, err = run(pfprof, "report", small)
check("nor a section", "Evaluation phase (" not in text and "[evaluation]" not in text
      and "judged on its own" not in text, text[-600:])
low = config("low.ini", "[analysis]\nmin-phase-share=0.05\n")
rc, s2, err = report(small, "--config", low)
check("min-phase-share lowers the threshold", s2["traces"][0]["phases"]["evaluation_judged"] is True,
      s2["traces"][0]["phases"])
bad = config("bad.ini", "[analysis]\nmin-phase-share=1.5\n")
rc, out, err = run(pfprof, "report", "--config", bad, small)
check("a share above 1 is refused in one line",
      rc == 2 and "min-phase-share" in err and len(err.strip().splitlines()) == 1, err)

# 3. apex on the H200 with pin_memory=False: validation 25% of the run.
if samples:
    apex = os.path.join(samples, "p_apex_pageable.pfprof")
    rc, a, err = report(apex)
    ap = a["traces"][0]["phases"]
    rules = {f["rule"]: f for f in a["phase_findings"] if f["material"]}
    check("apex: evaluation judged on its own", ap["evaluation_judged"] is True, ap)
    check("apex: its DataLoader waits (the validation loader's workers starting) are input-starved",
          "input-starved" in rules, list(rules))
    check("apex: its idle host is host-bound", "host-bound" in rules, list(rules))
    check("apex: the training findings stay pageable-transfer and sync-in-loop",
          [f["rule"] for f in a["findings"] if f["material"]] == ["pageable-transfer", "sync-in-loop"],
          [f["rule"] for f in a["findings"]])
    rc_gate, g, err = report(apex, "--fail-on", "error")
    check("apex: --fail-on error reads the training findings alone (warnings), not the evaluation's errors",
          rc_gate == 0 and any(f["severity"] == "error" for f in g["phase_findings"])
          and all(f["severity"] != "error" for f in g["findings"]),
          (rc_gate, [(f["rule"], f["severity"]) for f in g["phase_findings"]]))
    rc, xml, err = run(pfprof, "report", "--format", "junit", "--fail-on", "error", apex)
    check("apex: JUnit fails no testcase on the evaluation's errors",
          "<failure" not in xml and "[evaluation] [error]" in xml, xml[:600])
    rc, text, err = run(pfprof, "report", apex)
    check("apex: the section names the phase's time and share",
          re.search(r"Evaluation phase \(2\.31 s, 25\.2% of the run, 10 batches\): \d findings of its own",
                    text) is not None,
          text[text.find("Evaluation phase"):][:300])
    check("apex: and that a few long batches hold most of its time",
          "a cost per pass rather than per batch" in text, text[text.find("Evaluation phase"):][:900])
    for name in ("v_timm.pfprof", "r_train_validate.pfprof", "p_apex.pfprof"):
        rc, v, err = report(os.path.join(samples, name))
        check(f"{name}: evaluation under a fifth of the run, not judged on its own",
              v["phase_findings"] == [] and v["traces"][0]["phases"]["evaluation_judged"] is False,
              v["traces"][0]["phases"]["evaluation_ns"])

finish()

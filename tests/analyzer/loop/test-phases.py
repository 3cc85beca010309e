#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loop's phases on planted traces: training steps told from
evaluation batches by the optimizer and backward marks, the steady state
made of training steps only, phases that add up to the run, and idle
time that is not called input when the trace shows no input.

Usage: test-phases.py PFPROF WORKDIR [SAMPLES]  (TAP on stdout)

With SAMPLES (samples/traces), also the programs recorded on the H200:
apex's main_amp.py with its validation pass, gradient accumulation, and
training with validation every epoch.
"""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyzer_tap  # noqa: E402
from analyzer_tap import check, finish, run  # noqa: E402

scratch = analyzer_tap.Scratch(sys.argv)
pfprof, work, samples = scratch.pfprof, scratch.work, scratch.samples
path, generate, report = scratch.path, scratch.generate, scratch.report


# 1. Training with validation halfway and at the end, then a checkpoint.
ph = generate("phases.pfprof", "--plant", "phases", "--steps", "40")
rc, r, err = report(ph)
t = r["traces"][0]
p = t["phases"]
check("the marks are seen", rc == 0 and p["marks"] is True, p)
check("40 training steps, 20 evaluation batches (2 passes of 10)",
      p["training_steps"] == 40 and p["evaluation_batches"] == 20 and t["steps"] == 60, p)
check("the phases add up to the trace's span",
      p["startup_ns"] + p["training_ns"] + p["evaluation_ns"] + p["after_loop_ns"]
      == t["end_ns"] - t["start_ns"], p)
check("start-up, training, evaluation and after the loop each take time",
      all(p[k] > 0 for k in ("startup_ns", "training_ns", "evaluation_ns", "after_loop_ns")), p)
steps = r["summary"]["steps"]
check("the steady steps are training steps after warm-up",
      steps["steady"] == 40 - t["warmup_steps"], (steps["steady"], t["warmup_steps"]))
# The steady window stops at the loop's end and leaves the validation
# passes out: it is shorter than the training phase.
window = sum(d["steady_ns"] for d in r["summary"]["devices"]) if "steady_ns" in r["summary"]["devices"][0] \
    else t["steady_end_ns"] - t["steady_start_ns"]
check("the steady window holds no evaluation", window <= p["training_ns"], (window, p["training_ns"]))

rc, txt, _ = run(pfprof, "report", ph)
check("the text names both phases",
      "40 training steps" in txt and "20 evaluation batches" in txt and "Phases: start-up" in txt,
      txt[:600])
check("the text says which steps the figures are",
      "Steps, findings and predictions are the training steps'" in " ".join(txt.split()),
      txt[:800])
ledger = t["ledger"]
check("mean step within 10% of the median (no validation batch among the steps)",
      abs(ledger["mean"]["step_ns"] - ledger["median"]["step_ns"]) <= 0.1 * ledger["median"]["step_ns"],
      ledger["mean"]["step_ns"])

# What dominated each phase: its ledger sums to its time, and the text
# names the largest bucket.
for key, led in (("startup_ns", "startup_ledger"), ("evaluation_ns", "evaluation_ledger"),
                 ("after_loop_ns", "after_loop_ledger")):
    check(f"{led}: its buckets sum to {key}", sum(p[led].values()) == p[key], (p[led], p[key]))
check("the text names what took most of the evaluation phase",
      re.search(r"evaluation [^;]*; most of it ", " ".join(txt.split())) is not None, txt[:900])

# --phase: the evaluation batches, or every step, judged instead.
rc, ev, _ = report(ph, "--phase", "eval")
check("--phase eval: the steady steps are the 20 evaluation batches",
      rc == 0 and ev["summary"]["steps"]["steady"] == 20, ev and ev["summary"]["steps"])
rc, al, _ = report(ph, "--phase", "all")
check("--phase all: training after warm-up and every evaluation batch",
      rc == 0 and al["summary"]["steps"]["steady"] == 40 - t["warmup_steps"] + 20,
      al and al["summary"]["steps"])
rc, etxt, _ = run(pfprof, "report", "--phase", "eval", ph)
check("--phase eval: the text says the figures are the evaluation batches'",
      "are the evaluation batches' (--phase eval)" in " ".join(etxt.split()), etxt[:900])
rc, _, err = run(pfprof, "report", "--phase", "validation", ph)
check("--phase with a word it does not know: exit 2, one line naming the choices",
      rc == 2 and err.count("\n") == 1 and "training, eval or all" in err, err)

# 1b. Fetches are not batches: a prefetcher's priming fetch before each
# validation pass, and three micro-batches fetched ahead of each training
# step (as Hugging Face's Trainer does), planted as DataLoader waits with
# no GPU work of their own just before the batches they feed.
fetched = path("fetched.sqlite")
rc, _, err = run(pfprof, "export", "--format", "sqlite", ph, "-o", fetched)
db = sqlite3.connect(fetched)
dl = db.execute("SELECT id FROM strings WHERE value = 'DataLoader.next'").fetchone()[0]
waits = db.execute("SELECT start_ns, tid, domain_id, category, color, depth, kind FROM nvtx "
                   "WHERE name_id = ? ORDER BY start_ns", (dl,)).fetchall()
marks = sorted(r[0] for r in db.execute(
    "SELECT n.start_ns FROM nvtx n JOIN strings s ON s.id = n.name_id WHERE s.value = 'backward'"))


def feeds_training(i):
    """Whether the batch after wait i has a backward pass before the next wait."""
    end = waits[i + 1][0] if i + 1 < len(waits) else float("inf")
    return any(waits[i][0] <= m < end for m in marks)


planted = 0
for i, w in enumerate(waits):
    prev_training = i > 0 and feeds_training(i - 1)
    if feeds_training(i):
        ahead = [w[0] - 3000, w[0] - 2000, w[0] - 1000]    # three fetched ahead
    elif prev_training or i == 0:
        ahead = [w[0] - 1000]                              # a pass's priming fetch
    else:
        continue
    for t0 in ahead:
        db.execute("INSERT INTO nvtx VALUES (?, 500, ?, ?, ?, ?, ?, ?, ?)", (t0, w[1], w[2], dl, *w[3:]))
        planted += 1
db.commit()
db.close()
rc, f, err = report(fetched)
fp = f["traces"][0]["phases"] if f else {}
check("fetches planted ahead of the batches (priming and micro-batches fetched ahead)", planted > 120, planted)
check("fetches join the batch they feed: still 40 training steps and 20 evaluation batches",
      rc == 0 and fp.get("training_steps") == 40 and fp.get("evaluation_batches") == 20, (fp, err))
check("fetched micro-batches make a step of one optimizer step",
      f and f["traces"][0]["step_source"] == "optimizer", f and f["traces"][0]["step_source"])

# 2. Without marks nothing changes: every step is a training step.
rc, n, _ = report(generate("none.pfprof", "--steps", "40"))
check("a trace without marks: every step counts, no phases",
      n["traces"][0]["phases"]["marks"] is False and n["traces"][0]["phases"]["evaluation_batches"] == 0
      and n["traces"][0]["steps"] == 40, n["traces"][0]["phases"])

# 3. Idle GPU, no DataLoader ranges, no input copies: not input-starved.
starved = generate("starved.pfprof", "--plant", "input-starved", "--steps", "40")
rows = path("no-input.sqlite")
rc, _, err = run(pfprof, "export", "--format", "sqlite", starved, "-o", rows)
db = sqlite3.connect(rows)
db.execute("DELETE FROM nvtx")
db.execute("DELETE FROM memcpys WHERE copy_kind = 1")
db.commit()
db.close()
rc, q, err = report(rows)
rules = [f["rule"] for f in q["findings"]] if q else []
check("idle without input evidence is not called input-starved",
      rc in (0, 1) and "input-starved" not in rules and "host-bound" in rules, (rc, rules, err))
rc, txt, _ = run(pfprof, "report", rows)
check("the report says the trace cannot tell input from other host work",
      "no DataLoader ranges" in txt, txt[-1500:])
# With the batches' copies left in, the same idle is input.
rows2 = path("copies.sqlite")
run(pfprof, "export", "--format", "sqlite", starved, "-o", rows2)
db = sqlite3.connect(rows2)
db.execute("DELETE FROM nvtx")
db.commit()
db.close()
rc, q2, _ = report(rows2)
check("with input copies every step, idle time can be input",
      q2 and "input-starved" in [f["rule"] for f in q2["findings"]],
      q2 and [f["rule"] for f in q2["findings"]])
# 3b. A loop starved of input is paced by the DataLoader: a fix elsewhere
# saves alone only what exceeds the wait, the rest once input keeps up.
rc, ip, _ = report(generate("starved-pageable.pfprof", "--plant", "input-starved,pageable", "--steps", "60"))
wait = ip["traces"][0]["ledger"]["mean"]["data_wait_ns"]
pt = [f for f in ip["findings"] if f["rule"] == "pageable-transfer"]
check("input-starved and pageable copies: pinning alone saves only what exceeds the wait",
      pt and pt[0]["saving_after_input_ns"] is not None
      and pt[0]["est_savings_ns"] == max(0, pt[0]["saving_after_input_ns"] - wait),
      pt and (pt[0]["est_savings_ns"], pt[0]["saving_after_input_ns"], wait))
# Buckets the two share count once, so "in full" is up to that.
check("input-starved and pageable copies: every fix together counts pinning once input keeps up",
      pt and ip["traces"][0]["predicted_step_all_fixes_ns"]
      < ip["traces"][0]["ledger"]["mean"]["step_ns"] - ip["findings"][0]["est_savings_ns"]
      - pt[0]["saving_after_input_ns"] / 2,
      ip["traces"][0]["predicted_step_all_fixes_ns"])
# 3c. A pageable batch copy holds the host: inside the call, where the
# driver stages the source before the copy starts, and after it until the
# next copy of the same batch, where the host releases the source it
# copied. The GPU idle there is the pageable copies' (its own bucket), not
# the host's pace. Planted: per 10 ms step, a DataLoader wait, an 8 MB
# pageable copy whose call holds the host 2 ms (the copy starts 0.3 ms in),
# 1.5 ms with nothing launched, a 1 KiB pageable copy, 5 ms of kernels.
def loop_trace(name, src_kind=1, launch_between=False, steps=40, before=(), after=()):
    """Training steps of 10 ms, each 40 kernels; @before and @after: loader
    batches without backward or optimizer step, "eval" (a forward pass, 12
    kernels) or "fetch" (the batch copied and normalized, 3 kernels, or with
    "end", nothing: a loader's last next())."""
    base = generate(name + ".base.pfprof", "--steps", "2")
    rows = path(name + ".sqlite")
    rc, _, err = run(pfprof, "export", "--format", "sqlite", base, "-o", rows)
    assert rc == 0, err
    db = sqlite3.connect(rows)
    ids = dict((v, k) for k, v in db.execute("SELECT id, value FROM strings"))
    for table in ("api_calls", "memcpys", "memsets", "kernels", "nvtx", "syncs", "memory", "cuda_events",
                  "python_calls", "python_sites", "worker_events", "overhead", "windows"):
        db.execute(f"DELETE FROM {table}")
    t0 = int(db.execute("SELECT value FROM meta WHERE key = 'clock_start_cupti_ns'").fetchone()[0]) + 10**6
    ms = 10**6
    tid, pf = 4242, ids["pfprof"]
    gemm = ids["sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1"]
    relu = ids["void at::native::vectorized_elementwise_kernel<4, at::native::relu_kernel>"]
    corr = 1000

    def kernels(start, n, each, kname):
        nonlocal corr
        for j in range(n):
            corr += 1
            # Launched just before it runs: the host keeps the GPU waiting.
            db.execute("INSERT INTO api_calls VALUES (?, 5000, ?, ?, 211, ?, 0, 5)",
                       (start + j * each - 30000, tid, corr, ids["cudaLaunchKernel"]))
            db.execute("INSERT INTO kernels VALUES (?, ?, 0, 1, 13, ?, ?, 1, 1, 1, 128, 1, 1, 0, 16)",
                       (start + j * each, each, corr, kname))

    def copy(start, dur, cstart, cdur, nbytes):
        nonlocal corr
        corr += 1
        db.execute("INSERT INTO api_calls VALUES (?, ?, ?, ?, 41, ?, 0, 5)", (start, dur, tid, corr,
                                                                              ids["cudaMemcpyAsync"]))
        db.execute("INSERT INTO memcpys VALUES (?, ?, ?, 0, 1, 14, ?, ?, 1, ?, 3, 1, 0)",
                   (cstart, cdur, nbytes, corr, corr, src_kind))

    kinds = list(before) + ["train"] * steps + list(after)
    for k, kind in enumerate(kinds):
        s = t0 + k * 10 * ms
        db.execute("INSERT INTO nvtx VALUES (?, ?, ?, ?, ?, 0, 0, 0, 1)", (s, 50000, tid, pf, ids["DataLoader.next"]))
        if kind == "end":
            continue
        if kind in ("eval", "fetch"):
            copy(s + 100000, 30000, s + 120000, 200000, 1 << 20)
            kernels(s + 400000, 3 if kind == "fetch" else 12, 50000 if kind == "fetch" else 400000,
                    relu if kind == "fetch" else gemm)
            continue
        copy(s + 100000, 2 * ms, s + 400000, int(1.69 * ms), 8 << 20)
        if launch_between:
            kernels(s + 2500000, 1, 10000, relu)
        copy(s + 3600000, 50000, s + 3620000, 1000, 1024)
        kernels(s + 3800000, 40, 125000, gemm)
        db.execute("INSERT INTO nvtx VALUES (?, 0, ?, ?, ?, 0, 0, 0, 2)", (s + 6 * ms, tid, pf, ids["backward"]))
        db.execute("INSERT INTO nvtx VALUES (?, 0, ?, ?, ?, 0, 0, 0, 2)", (s + 8900000, tid, pf, ids["Optimizer.step"]))
    steps = len(kinds)
    db.execute("UPDATE meta SET value = ? WHERE key = 'clock_end_cupti_ns'", (str(t0 + steps * 10 * ms + ms),))
    db.commit()
    db.close()
    return rows


rc, pg, err = report(loop_trace("pageable-loop"))
mean = pg["traces"][0]["ledger"]["mean"] if pg else {}
# 0.3 ms in the big call, 1.53 ms between the copies, 0.03 ms in the small
# call's end.
check("pageable copies holding the host: their idle is the ledger's own bucket",
      rc in (0, 1) and abs(mean.get("pageable_call_ns", 0) - 1.86e6) < 0.05e6
      and mean["host_bound_ns"] < 1.5e6, (rc, err, mean))
order = [f["rule"] for f in pg["findings"]] if pg else []
pt = [f for f in pg["findings"] if f["rule"] == "pageable-transfer"] if pg else []
check("pageable copies holding the host: pageable-transfer leads, its saving holds that idle",
      order[:1] == ["pageable-transfer"] and pt[0]["est_savings_ns"] >= mean.get("pageable_call_ns", 1e9)
      + mean["copy_exposed_pageable_side_stream_ns"] // 2, (order, pt and pt[0]["est_savings_ns"], mean))
rc, pn, _ = report(loop_trace("pinned-loop", src_kind=2))
pmean = pn["traces"][0]["ledger"]["mean"]
check("the same loop with pinned copies: no such bucket, the idle is the host's",
      pmean.get("pageable_call_ns") == 0 and pmean["host_bound_ns"] >= mean["host_bound_ns"] + 1.5e6, pmean)
rc, lb, _ = report(loop_trace("launch-between", launch_between=True))
lmean = lb["traces"][0]["ledger"]["mean"]
check("work launched between two pageable copies: the host did more than copy, the gap is not theirs",
      lmean.get("pageable_call_ns", 1e9) < 0.4e6 and lmean["host_bound_ns"] > mean["host_bound_ns"] + 1.4e6, lmean)

# 3d. Loader batches with neither backward nor optimizer step: a forward
# pass is an evaluation batch (Lightning's sanity check before training is
# two); a fetch with a few kernels on the batch (a prefetcher's priming
# fetch before training and before validation) or none (the training
# loader's last next()) is no batch of either phase: it joins the batch
# it feeds, the one before training the first (warm-up) training step,
# those before validation its first batch. (The last DataLoader range
# only ends the last batch.)
fetch_trace = loop_trace("fetches", before=["eval", "eval", "fetch"],
                         after=["end", "fetch", "eval", "eval", "eval", "eval", "eval", "end"])
rc, fe, err = report(fetch_trace)
fp = fe["traces"][0]["phases"] if fe else {}
check("priming fetches: 40 training steps, 7 evaluation batches (2 before training, 5 after)",
      fp.get("training_steps") == 40 and fp.get("evaluation_batches") == 7, (rc, err, fp))
check("priming fetches: the fetch before training is the first training step's, the ones before "
      "validation evaluation's",
      405e6 <= fp.get("training_ns", 0) <= 415e6 and 85e6 <= fp.get("evaluation_ns", 0) <= 95e6, fp)
rc, txt, _ = run(pfprof, "report", fetch_trace)
check("priming fetches: the text counts 40 training steps and 7 evaluation batches",
      "40 training steps" in txt and "7 evaluation batches" in txt, txt[:300])

# 4. Recorded programs (samples/README.md says how each was made).
if samples:
    rc, a, _ = report(os.path.join(samples, "p_apex.pfprof"))
    t, st = a["traces"][0], a["summary"]["steps"]
    # The prefetcher's priming fetches (before training and before
    # validation) are fetches, not batches.
    check("apex main_amp.py: 30 training steps, its 10-batch validation pass is evaluation",
          t["phases"]["training_steps"] == 30 and t["phases"]["evaluation_batches"] == 10
          and st["steady"] == 30 - t["warmup_steps"], (t["phases"], st["steady"]))
    # Validation's first batches took 0.25-3.95 s (its workers starting,
    # cuDNN autotuning the eval shapes): none of them is a steady step.
    check("apex: no validation batch among the steady steps (p90 under 100 ms)",
          st["p90_ns"] < 100e6, st)
    check("apex: no record-stream-stall error from validation's allocator activity",
          not any(f["rule"] == "record-stream-stall" and f["severity"] == "error" for f in a["findings"]),
          [f["rule"] for f in a["findings"]])
    ledger = t["ledger"]
    check("apex: the GPU side of the last training step stops before validation starts",
          ledger["mean"]["step_ns"] < 1.2 * ledger["median"]["step_ns"], ledger["mean"]["step_ns"])
    rc, ap, _ = report(os.path.join(samples, "p_apex_pageable.pfprof"))
    check("apex with pin_memory=False: pageable-transfer found",
          "pageable-transfer" in [f["rule"] for f in ap["findings"]], [f["rule"] for f in ap["findings"]])
    # The prefetcher's pageable copy holds the host after each step's
    # sync: the idle after that copy is the copy's, not the sync's.
    sav = {f["rule"]: f["est_savings_ns"] for f in ap["findings"]}
    check("apex with pin_memory=False: pageable-transfer saves more than sync-in-loop",
          sav.get("pageable-transfer", 0) > sav.get("sync-in-loop", 0), sav)
    # Each step's pageable copy call holds the host 4 ms, and 3.8 ms more
    # pass before its next copy (the target's) while the host releases the
    # batch it copied: the GPU idle there is the copies', not the host's
    # pace, so pageable-transfer leads.
    check("apex with pin_memory=False: pageable-transfer leads the findings",
          [f["rule"] for f in ap["findings"]][:1] == ["pageable-transfer"], sav)
    pinned_mean = a["traces"][0]["ledger"]["mean"]["step_ns"]
    pt = [f for f in ap["findings"] if f["rule"] == "pageable-transfer"]
    check("apex with pin_memory=False: pinning predicted within 5% of the pinned run's mean step",
          pt and abs(pt[0]["predicted_step_ns"] - pinned_mean) <= 0.05 * pinned_mean,
          (pt and pt[0]["predicted_step_ns"], pinned_mean))
    # Per-step figures divide by the steady training steps, never by the
    # evaluation batches between them: the finding's copy time per step is
    # the ledger's.
    pt = [f for f in ap["findings"] if f["rule"] == "pageable-transfer"]
    n_steady = ap["traces"][0]["steady_steps"]
    m = re.search(r"of copy time \(([\d.]+) ms per mean step", pt[0]["message"]) if pt else None
    check("apex: a finding's per-step figures count training steps only (copy time per step)",
          m is not None and abs(float(m.group(1)) - pt[0]["time_ns"] / n_steady / 1e6) < 0.01,
          (m and m.group(1), pt and pt[0]["time_ns"] / n_steady / 1e6))
    # torch.profiler's window of 10 steps, the host 13 ms a step ahead of
    # the GPU: the loop ends when the GPU finished its last step, not when
    # the host left it (a third of the trace was called "after the loop").
    rc, k, _ = report(os.path.join(samples, "kineto", "a_pageable_fix.pt.trace.json.gz"))
    kp, kt = k["traces"][0]["phases"], k["traces"][0]
    check("host running ahead: the training phase lasts until the GPU finished its last step",
          k["summary"]["steps"]["host_ahead"] and kp["after_loop_ns"] < 0.1 * (kt["end_ns"] - kt["start_ns"])
          and kp["after_loop_ledger"]["compute_ns"] == 0, kp)
    # timm's train.py: prefetcher on pageable batches, loss.item() each
    # step, validate() after the epoch (tests/gpu/LOOP-EXPECTED.md).
    rc, tm, _ = report(os.path.join(samples, "v_timm.pfprof"))
    tp_, rules = tm["traces"][0]["phases"], [f["rule"] for f in tm["findings"] if f["material"]]
    check("timm train.py: 30 training steps, validate()'s 10 batches evaluation, none steady",
          tp_["training_steps"] == 30 and tp_["evaluation_batches"] == 10
          and tm["summary"]["steps"]["steady"] == 30 - tm["traces"][0]["warmup_steps"], tp_)
    check("timm train.py: pageable-transfer and sync-in-loop, not input-starved (12 workers keep up)",
          "pageable-transfer" in rules and "sync-in-loop" in rules and "input-starved" not in rules, rules)
    # Lightning: the sanity check's 2 validation batches before training,
    # 40 training steps, 10 validation batches after.
    rc, pl, _ = report(os.path.join(samples, "w_lightning.pfprof"))
    lp = pl["traces"][0]["phases"]
    check("Lightning: 40 training steps, 12 evaluation batches (sanity check and validation)",
          lp["training_steps"] == 40 and lp["evaluation_batches"] == 12
          and pl["summary"]["steps"]["steady"] == 40 - pl["traces"][0]["warmup_steps"], lp)
    check("Lightning: input-starved leads (8 workers decoding JPEGs for resnet18)",
          [f["rule"] for f in pl["findings"]][:1] == ["input-starved"], [f["rule"] for f in pl["findings"]])
    rc, q, _ = report(os.path.join(samples, "q_grad_accum.pfprof"))
    check("four micro-batches per optimizer step: 35 steps from optimizer steps, not 140 batches",
          q["traces"][0]["step_source"] == "optimizer" and q["traces"][0]["steps"] == 35,
          (q["traces"][0]["step_source"], q["traces"][0]["steps"]))
    rc, tv, _ = report(os.path.join(samples, "r_train_validate.pfprof"))
    p = tv["traces"][0]["phases"]
    check("validation every epoch: 44 training steps, its 2 passes of 10 batches evaluation",
          p["training_steps"] == 44 and p["evaluation_batches"] == 20, p)
    rc, tvf, _ = report(os.path.join(samples, "r_train_validate_fix.pfprof"))
    p = tvf["traces"][0]["phases"]
    check("validation every epoch through a prefetcher: 44 training steps, 20 evaluation batches",
          p["training_steps"] == 44 and p["evaluation_batches"] == 20, p)
    # Hugging Face's Trainer: 40 optimizer steps of 4 micro-batches it
    # fetches together first, evaluation of 10 batches through
    # accelerate's loader, which fetches one batch ahead.
    rc, hf, _ = report(os.path.join(samples, "x_hf_trainer.pfprof"))
    ht, hp = hf["traces"][0], hf["traces"][0]["phases"]
    check("HF Trainer: 40 training steps from optimizer steps, 10 evaluation batches",
          ht["step_source"] == "optimizer" and hp["training_steps"] == 40 and hp["evaluation_batches"] == 10,
          (ht["step_source"], hp))
    hrules = [f["rule"] for f in hf["findings"] if f["material"]]
    check("HF Trainer: host-bound (a small model, a sync per micro-batch), not input-starved",
          hrules[:1] == ["host-bound"] and "input-starved" not in hrules, hrules)
    # Under torch.profiler, prof.step() after each optimizer step: the
    # validation pass lies inside one ProfilerStep.
    rc, kv, _ = report(os.path.join(samples, "kineto", "r_train_validate.pt.trace.json.gz"))
    kp, ks = kv["traces"][0]["phases"], kv["summary"]["steps"]
    check("torch.profiler, validation inside a ProfilerStep: 16 training steps, its 10 batches evaluation",
          kp["training_steps"] == 16 and kp["evaluation_batches"] == 10 and ks["p90_ns"] < 2 * ks["median_ns"],
          (kp, ks))
    # prof.step() per micro-batch, 4 micro-batches an optimizer step: one
    # step is one optimizer step, the window's unfinished one left out.
    rc, kq, _ = report(os.path.join(samples, "kineto", "q_grad_accum.pt.trace.json.gz"))
    check("torch.profiler, a ProfilerStep per micro-batch: steps from optimizer steps",
          kq["traces"][0]["step_source"] == "optimizer" and kq["traces"][0]["phases"]["evaluation_batches"] == 0
          and 40e6 < kq["summary"]["steps"]["median_ns"] < 80e6,
          (kq["traces"][0]["step_source"], kq["summary"]["steps"]))
    # A longer epoch of apex (100 steps): the print steps weigh less.
    rc, al, _ = report(os.path.join(samples, "p_apex_long.pfprof"))
    led = al["traces"][0]["ledger"]
    check("apex, 100 training steps: the mean step within 10% of the median",
          al["traces"][0]["phases"]["training_steps"] == 100
          and abs(led["mean"]["step_ns"] - led["median"]["step_ns"]) <= 0.1 * led["median"]["step_ns"],
          (led["mean"]["step_ns"], led["median"]["step_ns"]))
    rc, alp, _ = report(os.path.join(samples, "p_apex_pageable_long.pfprof"))
    pt = [f for f in alp["findings"] if f["rule"] == "pageable-transfer"]
    check("apex pin_memory=False, 100 steps: pageable-transfer leads",
          [f["rule"] for f in alp["findings"]][:1] == ["pageable-transfer"], [f["rule"] for f in alp["findings"]])
    check("apex pin_memory=False, 100 steps: pinning predicted within 10% of the pinned run's mean step",
          pt and abs(pt[0]["predicted_step_ns"] - led["mean"]["step_ns"]) <= 0.10 * led["mean"]["step_ns"],
          (pt and pt[0]["predicted_step_ns"], led["mean"]["step_ns"]))
    # A loop without validation: the wait that found the loader empty is
    # after the loop, not an evaluation batch.
    rc, sw, _ = report(os.path.join(samples, "s_slow_w2.pfprof"))
    check("training only: no evaluation batch",
          sw["traces"][0]["phases"]["evaluation_batches"] == 0, sw["traces"][0]["phases"])
    # pytorch/examples imagenet/main.py --dummy: FakeData on 4 workers
    # paces the loop; pinning its pageable batches saves nothing alone.
    rc, ex, _ = report(os.path.join(samples, "t_examples.pfprof"))
    rc, exp_, _ = report(os.path.join(samples, "t_examples_pageable.pfprof"))
    p = ex["traces"][0]["phases"]
    check("pytorch/examples main.py: 40 training steps, its validation pass evaluation",
          p["training_steps"] == 40 and p["evaluation_batches"] == 10
          and ex["summary"]["steps"]["steady"] == 40 - ex["traces"][0]["warmup_steps"], p)
    check("pytorch/examples main.py: input-starved leads (FakeData on 4 workers)",
          [f["rule"] for f in ex["findings"]][:1] == ["input-starved"], [f["rule"] for f in ex["findings"]])
    pt = [f for f in exp_["findings"] if f["rule"] == "pageable-transfer"]
    pinned_mean = ex["traces"][0]["ledger"]["mean"]["step_ns"]
    check("pytorch/examples pageable: pageable-transfer found, input-starved first",
          pt and exp_["findings"][0]["rule"] == "input-starved", [f["rule"] for f in exp_["findings"]])
    check("pytorch/examples pageable: pinning alone predicted within 10% of the pinned run's mean step",
          pt and abs(pt[0]["predicted_step_ns"] - pinned_mean) <= 0.10 * pinned_mean
          and pt[0]["saving_after_input_ns"] is not None,
          (pt and pt[0]["predicted_step_ns"], pinned_mean))
finish()

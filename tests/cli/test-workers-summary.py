#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-workers-summary.py SOURCE_ROOT WORK: tests/gpu/workers_summary.py
(the proof lines of tests/gpu/workers-call.sh) on a folder of runs made up
here with known numbers: pfprof's reports in the JSON shape `pfprof
report` writes, /proc samples as tests/gpu/proc_sampler.py writes them,
cProfile totals as samples/jpeg_pipeline.py writes them, a `pfprof try`
output, the overhead line and digests. Each check must come out as the
numbers say, a planted miss must fail, and --predicted-workers must name
the count no bare run measured. Then proc_sampler.py itself on a real
process tree: a program named jpeg_pipeline.py whose two children spin;
and samples/jpeg_pipeline.py's --cprofile-worker patch on a fake torch
(its stage totals against stages of known cost)."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import types
import unittest

SRC, WORK = os.path.abspath(sys.argv.pop(1)), os.path.abspath(sys.argv.pop(1))
SUMMARY = os.path.join(SRC, "tests", "gpu", "workers_summary.py")
SAMPLER = os.path.join(SRC, "tests", "gpu", "proc_sampler.py")
SLOW_LINE = 41

SOURCE = "\n" * (SLOW_LINE - 1) + "class SlowTransform:\n    pass\n"
STAGES = [("torchvision.datasets.folder.default_loader", "loader", "folder.py", 262),
          ("torchvision.transforms.transforms.RandomResizedCrop", "transform", "transforms.py", 913),
          ("torchvision.transforms.transforms.RandomHorizontalFlip", "transform", "transforms.py", 675),
          ("torchvision.transforms.transforms.ToTensor", "transform", "transforms.py", 112),
          ("torchvision.transforms.transforms.Normalize", "transform", "transforms.py", 241)]
SLOW = ("__main__.SlowTransform", "transform", "/repo/samples/jpeg_pipeline.py", SLOW_LINE)


def report(workers, shares, collate, worker_cores, saturated, predicted_workers, predicted_ms, cores=16.0,
           slow_line=SLOW_LINE):
    """A pfprof report's JSON with one input-starved finding (None:
    none)."""
    if shares is None:
        return {"format": "pfprof-report/1", "findings": []}
    stages = [{"attr": a, "function": n, "file": f, "line": (slow_line if n == SLOW[0] else l),
               "time_ns": int(s * 1e9), "calls": 640, "share": s}
              for (n, a, f, l), s in sorted(shares, key=lambda x: -x[1])]
    first = stages[0]
    message = ("Device 0 had no work queued. Inside the DataLoader, its %d workers spent %d%% of their time in %s "
               "(%s, %s:%d); 10%% in collate_fn." % (workers, 100 * first["share"], first["function"], first["attr"],
                                                    os.path.basename(first["file"]), first["line"]))
    return {"format": "pfprof-report/1", "findings": [{
        "rule": "input-starved", "severity": "error", "title": "GPU starved of input", "message": message,
        "est_savings_ns": 10 ** 7, "predicted_step_ns": None if predicted_ms is None else int(predicted_ms * 1e6),
        "input_pipeline": {"batches": 40, "workers": workers, "cores": cores, "worker_cores": worker_cores,
                           "cpu_per_wall": 0.9, "saturated": saturated, "batch_ns": 10 ** 8,
                           "batch_cpu_ns": 10 ** 8, "queue_wait_ns": 0, "pin_ns": 0, "collate_share": collate,
                           "predicted_workers": predicted_workers, "stages": stages}}]}


def proc(main_pid, worker_cores, window, affinity=16, hz=1000):
    """proc_sampler.py's file: a pfprof parent, the program, its workers
    each busy WORKER_CORES[i] cores, sampled every 0.2 s from 1 s before
    WINDOW to 1 s after."""
    lines = [f"# clk_tck\t{hz}", "# cpu_count\t16", f"# affinity\t{affinity}", "# cpu_max\tmax/100000"]
    t, start, n = window[0] - 1.0, window[0] - 1.0, 0
    while t <= window[1] + 1.0:
        lines.append(f"S\t{t:.3f}")
        if n == 0:
            lines.append(f"N\t{main_pid - 1}\t/x/pfprof record -o t.pfprof -- python3 samples/jpeg_pipeline.py")
            lines.append(f"N\t{main_pid}\tpython3 samples/jpeg_pipeline.py --workers {len(worker_cores)}")
            for i in range(len(worker_cores)):
                lines.append(f"N\t{main_pid + 1 + i}\tpython3 samples/jpeg_pipeline.py --workers {len(worker_cores)}")
        lines.append(f"P\t{main_pid - 1}\t1\tpfprof\t{int(0.05 * (t - start) * hz)}\t3")
        lines.append(f"P\t{main_pid}\t{main_pid - 1}\tpt_main_thread\t{int(1.0 * (t - start) * hz)}\t40")
        for i, c in enumerate(worker_cores):
            lines.append(f"P\t{main_pid + 1 + i}\t{main_pid}\tpt_data_worker\t{int(c * (t - start) * hz)}\t2")
        lines.append(f"C\t{int(8 * (t - start) * hz)}\t{int(16 * (t - start) * hz)}")
        t += 0.2
        n += 1
    return "\n".join(lines) + "\n"


def log(median, mean, window=None, digest=None):
    out = ["pipeline: 3840 images", f"jpeg_pipeline (no fix): median step {median:.2f} ms, mean {mean:.2f} ms over 40 timed steps"]
    if window:
        out.append(f"window: {window[0]:.3f} {window[1]:.3f}")
    if digest:
        out.append(f"digest: {digest}")
    return "\n".join(out) + "\n"


PLAIN = [0.55, 0.15, 0.01, 0.12, 0.05]   # loader, crop, flip, ToTensor, Normalize


class Fixture:
    """A workers-call.sh folder: write(name, kind, workers, variant, ...)."""

    def __init__(self, path):
        shutil.rmtree(path, ignore_errors=True)
        self.path = path
        for d in ("logs", "reports", "proc", "cprofile", "traces"):
            os.makedirs(os.path.join(path, d))
        self.rows = ["name\tkind\tworkers\tvariant\trc\tseconds\tlog\tjson\tproc\textra"]
        with open(os.path.join(path, "jpeg_pipeline.py"), "w") as f:
            f.write(SOURCE)

    def put(self, rel, text):
        with open(os.path.join(self.path, rel), "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))

    def run(self, name, kind, workers, variant, logtext, rc=0, json_doc=None, proc_text=None, extra=None):
        self.put(f"logs/{name}.log", logtext)
        js = pr = ex = "-"
        if json_doc is not None:
            js = f"reports/{name}.json"
            self.put(js, json_doc)
        if proc_text is not None:
            pr = f"proc/{name}.tsv"
            self.put(pr, proc_text)
        if extra is not None:
            ex = f"cprofile/{name}.json"
            self.put(ex, extra)
        self.rows.append(f"{name}\t{kind}\t{workers}\t{variant}\t{rc}\t30\tlogs/{name}.log\t{js}\t{pr}\t{ex}")

    def close(self):
        self.put("runs.tsv", "\n".join(self.rows) + "\n")


def cprofile(shares, collate, fetch_ns=10 ** 9, stages=STAGES):
    return {"worker": 0, "batches": 10, "samples": 640, "fetch_ns": fetch_ns,
            "stages": [{"attr": a, "name": n, "ns": int(s * fetch_ns), "calls": 640} for (n, a, _, _), s in zip(stages, shares)],
            "collate": {"name": "torch.utils.data._utils.collate.default_collate", "ns": int(collate * fetch_ns),
                        "calls": 10}}


def build(path, slow_line=SLOW_LINE, predicted_w4_ms=30.0, digest_b="ab" * 32):
    fx = Fixture(path)
    w = (1000.0, 1008.0)
    fx.run("data", "data", "-", "-", "made\n")
    # 2 workers: starved, pfprof's shares within 3 points of cProfile's.
    fx.run("rec_w2", "rec", 2, "plain", log(80, 81, w),
           json_doc=report(2, list(zip(STAGES, [0.58, 0.13, 0.01, 0.13, 0.05])), 0.10, 1.9, False, 4, 42.0),
           proc_text=proc(5000, [0.95, 0.97], w))
    fx.run("bare_w2", "bare", 2, "plain", log(79, 80, w), proc_text=proc(6000, [0.96, 0.96], w))
    # 4 workers: starved, predicts 30 ms for 8 workers, measured 36: a miss.
    fx.run("rec_w4", "rec", 4, "plain", log(44, 45, w),
           json_doc=report(4, list(zip(STAGES, [0.56, 0.14, 0.01, 0.12, 0.05])), 0.11, 3.8, False, 8, predicted_w4_ms),
           proc_text=proc(7000, [0.95] * 4, w))
    fx.run("bare_w4", "bare", 4, "plain", log(43, 44, w), proc_text=proc(8000, [0.95] * 4, w))
    # 8 workers: starved a little, predicts for 16, which the sweep did not run.
    fx.run("rec_w8", "rec", 8, "plain", log(36, 37, w),
           json_doc=report(8, list(zip(STAGES, [0.56, 0.14, 0.01, 0.12, 0.05])), 0.11, 6.5, False, 16, 35.0),
           proc_text=proc(9000, [0.8] * 8, w))
    fx.run("bare_w8", "bare", 8, "plain", log(35, 36, w))
    # 12 workers: GPU-bound, no finding.
    fx.run("rec_w12", "rec", 12, "plain", log(35, 35.5, w), json_doc=report(12, None, 0, 0, False, None, None),
           proc_text=proc(10000, [0.5] * 12, w))
    fx.run("bare_w12", "bare", 12, "plain", log(35, 35.2, w))
    fx.run("resident", "bare", 0, "resident", log(33.0, 33.2, w))
    fx.run("try_ideal", "try", 2, "ideal",
           "jpeg_pipeline (no fix): median step 80 ms\n" + json.dumps(
               {"format": "pfprof-try/1", "a": {"median_ns": 80 * 10 ** 6}, "b": {"median_ns": 34 * 10 ** 6},
                "ideal_input": {"step_ns": 34 * 10 ** 6, "change_pct": -57.5}}, separators=(",", ":")) + "\n")
    slow_stages = STAGES[:2] + [SLOW] + STAGES[2:]
    fx.run("rec_slow_w4", "rec", 4, "slow", log(100, 101, w),
           json_doc=report(4, list(zip(slow_stages, [0.25, 0.07, 0.55, 0.01, 0.05, 0.02])), 0.04, 3.9, False, 8, 52.0,
                           slow_line=slow_line),
           proc_text=proc(11000, [0.97] * 4, w))
    fx.run("cprofile_w2", "cprofile", 2, "plain", log(80, 81, w), extra=cprofile(PLAIN, 0.12))
    fx.run("overhead", "overhead", 1, "plain", "worker batch\noverhead: " + json.dumps(
        # The medians of the rounds differ by more than the recording costs
        # (the crops differ from round to round); the rounds' paired
        # differences are what the check reads.
        {"extra_ns": 3450000, "off_ns": 1.5e8, "share": 0.023, "share_least": 0.05,
         "share_paired": 0.015, "share_paired_p10": -0.002, "share_paired_p90": 0.08,
         "fine_samples": 600, "fine_batches": 30, "fine_extra_ns": 300000, "fine_off_ns": 1.5e8,
         "share_fine": 0.002}) + "\n")
    fx.run("digest_rec", "rec", 2, "digest", log(90, 90, w, "ab" * 32))
    fx.run("digest_nohooks", "rec", 2, "digest-nohooks", log(90, 90, w, digest_b))
    fx.run("digest_bare", "bare", 2, "digest", log(90, 90, w, "ab" * 32))
    # 16 slow workers: the CPU saturated, by both counts.
    fx.run("rec_slow_w16", "rec", 16, "slow-sat", log(60, 61, w),
           json_doc=report(16, list(zip(slow_stages, [0.25, 0.07, 0.55, 0.01, 0.05, 0.02])), 0.04, 14.2, True, None, None),
           proc_text=proc(12000, [0.9] * 16, w))
    fx.run("rec_nohooks_w2", "rec", 2, "nohooks", log(80, 80.5, w), json_doc=report(2, None, 0, 0, False, None, None))
    fx.run("cprofile_slow_w4", "cprofile", 4, "slow", log(100, 101, w),
           extra=cprofile([0.26, 0.07, 0.57, 0.01, 0.05, 0.02], 0.03, stages=slow_stages))
    fx.run("bare_w16", "bare", 16, "plain", "", rc="budget")
    fx.close()
    return fx


def summarize(path, *extra):
    p = subprocess.run([sys.executable, SUMMARY, "--source", os.path.join(path, "jpeg_pipeline.py"), *extra, path],
                       capture_output=True, text=True, timeout=60)
    return p


def table(text):
    """{(check, configuration): (measured, result)} from the summary."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[4] in ("ok", "FAIL", "n/a"):
            rows[(cells[0], cells[1])] = (cells[2], cells[4])
    return rows


class Summary(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(WORK, "good")
        build(cls.dir)
        cls.p = summarize(cls.dir, "--out", os.path.join(WORK, "good.md"))
        cls.rows = table(cls.p.stdout)

    def result(self, check, config):
        self.assertIn((check, config), self.rows, self.p.stdout)
        return self.rows[(check, config)]

    def test_written(self):
        with open(os.path.join(WORK, "good.md")) as f:
            self.assertEqual(f.read(), self.p.stdout)

    def test_shares(self):
        measured, res = self.result("stage shares vs cProfile", "plain, 2 workers (cProfile: 2)")
        self.assertEqual(res, "ok")
        # default_loader 58% against 55%: the largest gap, +3 points.
        self.assertIn("largest gap +3.0 points (default_loader); 6 stages", measured)
        self.assertEqual(self.result("stage shares vs cProfile", "plain, 12 workers (cProfile: 2)")[1], "n/a")
        # The slow runs against the slow cProfile run, not the saturated
        # run's slower transform.
        measured, res = self.result("stage shares vs cProfile", "slow, 4 workers (cProfile: 4)")
        self.assertEqual((measured, res), ("largest gap -2.0 points (SlowTransform); 7 stages", "ok"))
        self.assertFalse([k for k in self.rows if k[1].startswith("slow-sat") and k[0].startswith("stage")])
        self.assertIn("| torchvision.datasets.folder.default_loader | 58.0% | 55.0% | +3.0 |", self.p.stdout)
        self.assertIn("| collate_fn | 10.0% | 12.0% | -2.0 |", self.p.stdout)

    def test_saturation(self):
        measured, res = self.result("CPU saturation vs /proc", "plain, 2 workers")
        self.assertEqual(res, "ok")
        self.assertIn("/proc: 1.92 worker cores of 16 (not saturated)", measured)
        measured, res = self.result("CPU saturation vs /proc", "slow-sat, 16 workers")
        self.assertEqual(res, "ok")
        self.assertIn("/proc: 14.40 worker cores of 16 (saturated)", measured)
        self.assertEqual(self.result("worker cores vs /proc", "slow-sat, 16 workers")[1], "ok")
        # pfprof 6.5 cores, /proc 6.4: within 0.5.
        self.assertEqual(self.result("worker cores vs /proc", "plain, 8 workers")[1], "ok")
        self.assertEqual(self.result("CPU saturation vs /proc", "plain, 12 workers")[1], "n/a")

    def test_predictions(self):
        measured, res = self.result("predicted step", "plain, 2 workers")
        self.assertEqual((measured, res), ("4 workers: predicted 42.00 ms, measured 44.00 ms mean (-4.5%)", "ok"))
        measured, res = self.result("predicted step", "plain, 4 workers")
        self.assertEqual((measured, res), ("8 workers: predicted 30.00 ms, measured 36.00 ms mean (-16.7%)", "FAIL"))
        self.assertEqual(self.result("predicted step", "plain, 8 workers")[1], "n/a")
        self.assertEqual(self.result("predicted step", "plain, 12 workers")[1], "n/a")

    def test_ideal(self):
        measured, res = self.result("ideal-input vs GPU-resident", "2 workers")
        self.assertEqual((measured, res), ("ideal-input 34.00 ms, GPU-resident 33.00 ms median (+3.0%)", "ok"))

    def test_slow(self):
        measured, res = self.result("slow transform named first", "slow, 4 workers")
        self.assertEqual(res, "ok", measured)
        self.assertIn(f"__main__.SlowTransform (jpeg_pipeline.py:{SLOW_LINE}, 55%)", measured)

    def test_overhead_and_digest(self):
        measured, res = self.result("worker recording overhead", "in one process")
        self.assertEqual(res, "ok", measured)
        self.assertIn("sample by sample (600 pairs) and batch by batch (30 pairs) +300.0 us of 150.00 ms (+0.200%)",
                      measured)
        self.assertEqual(self.result("worker recording overhead", "end to end, 2 workers")[1], "n/a")
        self.assertEqual(self.result("batches bit-identical", "hooks on, --no-worker-hooks, bare")[1], "ok")

    def test_exit(self):
        # The planted miss of the 4-worker prediction fails the summary;
        # the run skipped for the budget does not.
        self.assertEqual(self.p.returncode, 1, self.p.stderr)
        fails = [k for k, v in self.rows.items() if v[1] == "FAIL"]
        self.assertEqual(fails, [("predicted step", "plain, 4 workers")])

    def test_predicted_workers(self):
        p = summarize(self.dir, "--predicted-workers")
        self.assertEqual((p.returncode, p.stdout), (0, "16\n"), p.stderr)


class Misses(unittest.TestCase):
    def test_misses_fail(self):
        d = os.path.join(WORK, "misses")
        build(d, slow_line=SLOW_LINE + 3, predicted_w4_ms=36.0, digest_b="cd" * 32)
        p = summarize(d)
        rows = table(p.stdout)
        fails = sorted(k for k, v in rows.items() if v[1] == "FAIL")
        self.assertEqual(fails, [("batches bit-identical", "hooks on, --no-worker-hooks, bare"),
                                 ("slow transform named first", "slow, 4 workers")], p.stdout)
        self.assertEqual(p.returncode, 1)

    def test_all_pass(self):
        d = os.path.join(WORK, "pass")
        build(d, predicted_w4_ms=36.0)
        p = summarize(d)
        self.assertEqual(p.returncode, 0, p.stdout)

    def test_nothing_ran(self):
        d = os.path.join(WORK, "empty")
        fx = Fixture(d)
        fx.close()
        p = summarize(d)
        fails = sorted(k[0] for k, v in table(p.stdout).items() if v[1] == "FAIL")
        self.assertEqual(fails, sorted(["stage shares vs cProfile", "CPU saturation vs /proc", "predicted step",
                                        "ideal-input vs GPU-resident", "slow transform named first",
                                        "worker recording overhead", "batches bit-identical"]))
        self.assertEqual(p.returncode, 1)

    def test_failed_run(self):
        d = os.path.join(WORK, "failed")
        fx = build(d, predicted_w4_ms=36.0)
        fx.rows = [r.replace("resident\tbare\t0\tresident\t0", "resident\tbare\t0\tresident\t137") for r in fx.rows]
        fx.close()
        rows = table(summarize(d).stdout)
        self.assertEqual(rows[("run finished", "resident")][1], "FAIL")


SPIN = r'''import os, sys, time
kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        end = time.time() + 2.0
        while time.time() < end:
            pass
        os._exit(0)
    kids.append(pid)
time.sleep(0.3)
t0 = time.time()
time.sleep(1.2)
print("window: %.3f %.3f" % (t0, time.time()))
for k in kids:
    os.waitpid(k, 0)
sys.exit(3)
'''


class Sampler(unittest.TestCase):
    def test_real_tree(self):
        d = os.path.join(WORK, "sampler")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        prog = os.path.join(d, "jpeg_pipeline.py")
        with open(prog, "w") as f:
            f.write(SPIN)
        out = os.path.join(d, "p.tsv")
        p = subprocess.run([sys.executable, SAMPLER, "--out", out, "--interval", "0.1", "--", sys.executable, prog],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 3, p.stderr)   # the program's own status
        sys.path.insert(0, os.path.dirname(SUMMARY))
        import workers_summary
        window = tuple(float(v) for v in p.stdout.split()[1:3])
        pr = workers_summary.proc_window(out, window)
        with open(out) as f:
            self.assertIsNotNone(pr, f.read()[:2000])
        self.assertEqual(pr["workers"], 2)
        # Two spinning children on a machine that may be shared: busy, and
        # never more than a core each.
        self.assertGreater(pr["worker_cores"], 0.3)
        self.assertTrue(all(c <= 1.1 for c in pr["per_worker"]), pr)
        self.assertLess(pr["main_cores"], 0.2)
        p = subprocess.run([sys.executable, SAMPLER, "--out", out], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("usage", p.stderr)


def spin(ms):
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def fake_torch():
    """Just what samples/jpeg_pipeline.py's cProfile patch touches: the
    map-style fetcher (fetch: each sample, then collate_fn), worker info
    (worker 0), nn.Module (call -> forward); torchvision as names only."""
    torch = types.ModuleType("torch")
    nn = types.ModuleType("torch.nn")
    functional = types.ModuleType("torch.nn.functional")
    data = types.ModuleType("torch.utils.data")
    fetch = types.ModuleType("torch.utils.data._utils.fetch")

    class Module:
        def __call__(self, *args):
            return self.forward(*args)

    class Fetcher:
        def __init__(self, dataset, collate_fn):
            self.dataset, self.collate_fn = dataset, collate_fn

        def fetch(self, index):
            return self.collate_fn([self.dataset[i] for i in index])

    nn.Module, nn.functional = Module, functional
    torch.uint8 = "uint8"     # sample_common.py's default argument
    data.Dataset = object
    fetch._MapDatasetFetcher = Fetcher
    data.get_worker_info = lambda: types.SimpleNamespace(id=0)
    data._utils = types.SimpleNamespace(fetch=fetch)
    torch.nn, torch.utils = nn, types.SimpleNamespace(data=data)
    tv = types.ModuleType("torchvision")
    tv.transforms = types.ModuleType("torchvision.transforms")
    return {"torch": torch, "torch.nn": nn, "torch.nn.functional": functional, "torch.utils": torch.utils,
            "torch.utils.data": data, "torch.utils.data._utils": data._utils,
            "torch.utils.data._utils.fetch": fetch, "torchvision": tv, "torchvision.transforms": tv.transforms}


def load_sample(test, modules):
    """samples/jpeg_pipeline.py imported over MODULES, which stay in
    sys.modules until TEST ends (the patch imports at call time)."""
    saved = {k: sys.modules.get(k) for k in modules}

    def restore():
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    test.addCleanup(restore)
    sys.modules.update(modules)
    sys.path.insert(0, os.path.join(SRC, "samples"))
    try:
        spec = importlib.util.spec_from_file_location("jpeg_pipeline", os.path.join(SRC, "samples", "jpeg_pipeline.py"))
        jp = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(jp)
    finally:
        sys.path.pop(0)
        sys.modules.pop("sample_common", None)
    return jp


def decode(path):
    spin(2)
    return path


class Crop:
    pass


def collate(samples):
    spin(1)
    return list(samples)


class CProfileWorker(unittest.TestCase):
    """samples/jpeg_pipeline.py --cprofile-worker's patch, on a fake torch:
    the stage totals it writes are each stage's own code object's
    cumulative time (a module's forward, an object's __call__, a
    function), over the batches after the skipped ones."""

    def test_totals(self):
        modules = fake_torch()
        jp = load_sample(self, modules)

        class RandomCrop(modules["torch.nn"].Module):
            def forward(self, img):
                spin(1)
                return img

        class Flip(modules["torch.nn"].Module):
            def forward(self, img):
                return img

        class Items:
            loader = staticmethod(decode)
            transform = types.SimpleNamespace(transforms=[RandomCrop(), Flip(), jp.SlowTransform(0)])

            def __getitem__(self, i):
                img = self.loader(i)
                for t in self.transform.transforms:
                    img = t(img)
                return img

        path = os.path.join(WORK, "cprofile.json")
        fetcher_cls = modules["torch.utils.data._utils.fetch"]._MapDatasetFetcher
        jp.profile_worker(path, 1)
        fetcher = fetcher_cls(Items(), collate)
        for b in range(4):
            self.assertEqual(fetcher.fetch([4 * b + i for i in range(4)]), [4 * b + i for i in range(4)])
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual((doc["batches"], doc["samples"]), (3, 12))
        names = [(s["attr"], s["name"], s["calls"]) for s in doc["stages"]]
        self.assertEqual(names, [("loader", decode.__module__ + ".decode", 12),
                                 ("transform", RandomCrop.__module__ + "." + RandomCrop.__qualname__, 12),
                                 ("transform", Flip.__module__ + "." + Flip.__qualname__, 12),
                                 ("transform", "jpeg_pipeline.SlowTransform", 12)])
        self.assertEqual((doc["collate"]["name"], doc["collate"]["calls"]), (collate.__module__ + ".collate", 3))
        # 3 batches of 4 samples: decode 2 ms, crop 1 ms a sample, collate
        # 1 ms a batch: 39 ms of at least as much fetch.
        fetch = doc["fetch_ns"]
        ns = {s["name"].rsplit(".", 1)[-1]: s["ns"] for s in doc["stages"]}
        self.assertGreaterEqual(fetch, 39e6)
        self.assertGreaterEqual(ns["decode"], 24e6)
        self.assertGreaterEqual(ns["RandomCrop"], 12e6)
        self.assertGreaterEqual(doc["collate"]["ns"], 3e6)
        # Shares, not times: a loaded machine stretches every sleep, so the
        # 2 ms decode stays above the 1 ms crop whatever the load.
        self.assertGreater(ns["decode"], ns["RandomCrop"])
        self.assertLess(ns["SlowTransform"], 2e6)
        self.assertLessEqual(ns["decode"] + ns["RandomCrop"] + ns["SlowTransform"] + doc["collate"]["ns"], fetch)


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    unittest.main(verbosity=2)

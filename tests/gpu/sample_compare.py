# SPDX-License-Identifier: MIT
"""sample_compare.py NAME WHOLE.json SAMPLED.json: two `pfprof report
--format json` of the same program, recorded whole and with --sample,
side by side: steps, median step, each finding's rule, severity and
saving per step, and how far the sampled figures are from the whole
ones. Prints lines for tests/gpu/sample.sh's summary."""
import json
import sys


def load(path):
    with open(path) as f:
        r = json.load(f)
    t = r["traces"][0]
    findings = {f["rule"]: f for f in r["findings"]}
    return r, t, findings


def main():
    name, whole, sampled = sys.argv[1:4]
    rw, tw, fw = load(whole)
    rs, ts, fs = load(sampled)
    mw, ms = tw["step_median_ns"], ts["step_median_ns"]
    print(f"{name}: whole {tw['steps']} steps, median {mw / 1e6:.3f} ms; sampled {ts['steps']} steps "
          f"({ts.get('recording_windows')} windows, {ts.get('steps_left_out')} left out), median "
          f"{ms / 1e6:.3f} ms ({100 * (ms / mw - 1) if mw else 0:+.1f}%)")
    for rule in sorted(set(fw) | set(fs)):
        a, b = fw.get(rule), fs.get(rule)
        if a is None or b is None:
            print(f"  {rule}: only {'whole' if b is None else 'sampled'} "
                  f"({(a or b)['severity']}, {(a or b)['est_savings_ns'] / 1e6:.3f} ms)")
            continue
        sa, sb = a["est_savings_ns"], b["est_savings_ns"]
        print(f"  {rule}: whole {a['severity']} {sa / 1e6:.3f} ms, sampled {b['severity']} {sb / 1e6:.3f} ms "
              f"({100 * (sb / sa - 1) if sa else 0:+.1f}%)")


if __name__ == "__main__":
    main()

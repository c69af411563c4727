#!/usr/bin/python3
"""Compares bootstatus with the real `cloud-init status` on hand-picked edge cases (a manual check, like compare.sh).

Usage (as root, with cloud-init's Python dependencies and `npm run build` done, see README.md beside this file):
    CLOUD_INIT_SRC=<checkout> edge-cases.py [CASE ...]

Each case is a small state tree (a systemd host whose generator ran, plus the case's files, symlinks, environment
and systemctl answers). For each, `status`, `status --long` and `status --format json` of cloud-init
(cloud-init-status.py) are diffed with bootstatus (`--quiet`), `--long` and `--format cloud-init-json`, stdout and
exit code. Rows where cloud-init raises a traceback print TRACEBACK and are not compared; rows listed in ACCEPTED
are differences the package README documents (bootstatus reports a wrong type as an error). Prints
"differences: N" (the rest) at the end and exits 1 when N > 0.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

B = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLOUD_INIT_SRC = os.environ["CLOUD_INIT_SRC"]
S = "run/cloud-init/status.json"
R = "run/cloud-init/result.json"
ROWS = [([], []), (["--long"], ["--long"]), (["--format", "json"], ["--format", "cloud-init-json"])]
UNIT = "ActiveState={}\nUnitFileState={}\nSubState={}\nMainPID={}\n"


def v1(**entries):
    return json.dumps({"v1": entries})


def stage(**kw):
    base = {"errors": [], "recoverable_errors": {}, "start": 10.5, "finished": 11.25}
    base.update(kw)
    return base


RUNNING = v1(stage="modules-config", datasource="DataSourceNoCloud [seed=/dev/sr0]", init=stage())
CC = "ro cc: system_info: {paths: {run_dir: /run/ci2}} end_cc\n"

# name: (files {path: text | bytes | None (directory) | ("link", target) | False (absent)}, env, systemctl answers)
CASES = {
    # Numbers as Python's json reads and prints them.
    "float-repr": ({S: v1(init=stage(start=123.0), x={"a": 1e16, "b": 1e-7, "c": 2**60, "d": 0.1 + 0.2}), R: "{}"}, {}, {}),
    "integer-past-2-53": ({S: '{"v1": {"stage": [9007199254740993], "init": {"start": 1, "finished": null, "n": -123456789012345678901}}}'}, {}, {}),
    "float-past-range": ({S: '{"v1": {"stage": 1e400, "init": {"start": 1, "finished": null, "x": [1E400, -1e999]}}}'}, {}, {}),
    "time-rounds-up": ({S: v1(init=stage(start=0, finished=59.9999995)), R: "{}"}, {}, {}),
    "time-tiny": ({S: v1(init=stage(start=0, finished=1e-300)), R: "{}"}, {}, {}),
    "time-negative": ({S: v1(init=stage(start=-5, finished=-3)), R: "{}"}, {}, {}),
    # Keys: Python sorts by code point, JavaScript objects must not reorder them.
    "keys-astral": ({S: v1(init=stage(), **{"\uffff": {}, "\U0001F600": {}, "\ue000": 1}), R: "{}"}, {}, {}),
    "keys-proto": ({S: v1(__proto__=stage(errors=["p"]), constructor=stage(errors=["c"]), toString=stage()), R: "{}"}, {}, {}),
    "levels-proto": ({S: v1(init=stage(recoverable_errors={"__proto__": ["x"], "constructor": ["y"]})), R: "{}"}, {}, {}),
    "levels-integer-like": ({S: v1(init=stage(recoverable_errors={"WARNING": ["a"], "10": ["b"], "2": ["c"]}),
                                   **{"modules-final": stage(recoverable_errors={"1": ["d"], "WARNING": ["e"]})}), R: "{}"}, {}, {}),
    "stage-dict-integer-like": ({S: v1(stage={"b": 1, "1": [2], "0": {"z": 1, "3": 4}})}, {}, {}),
    "shadow-integer-like": ({S: v1(errors={"x": 1, "7": 2}, recoverable_errors={"W": ["m"], "5": ["n"]}, init=stage()), R: "{}"}, {}, {}),
    # datasource and stage strings.
    "datasource-tab": ({S: v1(datasource="DataSourceEc2\tfoo bar", init=stage()), R: "{}"}, {}, {}),
    "datasource-twice": ({S: v1(datasource="MyDataSourceDataSourceX [a]", init=stage()), R: "{}"}, {}, {}),
    "datasource-unicode": ({S: v1(datasource="DataSource\u0130\u1e9e\u03a3\u2126 x", init=stage()), R: "{}"}, {}, {}),
    "multi-line": ({S: v1(datasource="DataSourceX\nline2", init=stage(errors=["", "a\nb"], recoverable_errors={"": ["x\r\ny\n"]})), R: "{}"}, {}, {}),
    "stage-float": ({S: v1(stage=1.5, init=stage())}, {}, {}),
    # The kernel command line.
    "cmdline-not-utf8": ({"proc/cmdline": b"ro \xff cloud-init=disabled\n"}, {}, {}),
    "cmdline-cc-not-utf8": ({"proc/cmdline": CC.encode() + b"\xe9\n", "run/ci2/status.json": v1(init=stage(errors=["e"]))}, {}, {}),
    "cmdline-cc": ({"proc/cmdline": CC, "run/ci2/status.json": v1(init=stage(errors=["e"]))}, {}, {}),
    "cmdline-whitespace": ({"proc/cmdline": "ro\x1ccloud-init=disabled\x1f\n"}, {}, {}),
    "cmdline-nbsp": ({"proc/cmdline": "ro\u00a0cloud-init=disabled\n"}, {}, {}),
    "debug-cmdline-empty": ({"proc/cmdline": "cloud-init=disabled\n"}, {"DEBUG_PROC_CMDLINE": ""}, {}),
    # Symlinks as cloud-init writes them (relative) and broken ones.
    "links-relative": ({"var/lib/cloud/data/status.json": v1(init=stage()), "var/lib/cloud/data/result.json": "{}",
                        S: ("link", "../../var/lib/cloud/data/status.json"),
                        R: ("link", "../../../../../var/lib/cloud/data/result.json")}, {}, {}),
    "links-dangling": ({S: v1(init=stage()), R: ("link", "/nonexistent")}, {}, {}),
    "marker-directory": ({"etc/cloud/cloud-init.disabled": None}, {}, {}),
    "systemd-symlink": ({"run/systemd/system": ("link", "real"), "run/systemd/real": None}, {}, {}),
    # systemctl.
    "systemctl-fails": ({S: RUNNING}, {}, {"fail": "Failed to connect to bus: No such file or directory\nline 2\n"}),
    "unit-not-found": ({S: RUNNING}, {}, {"cloud-init-main.service": UNIT.format("inactive", "", "dead", "0")}),
    "unit-generated": ({S: RUNNING}, {}, {"cloud-final.service": UNIT.format("inactive", "generated", "dead", "0")}),
    "environment-substring": ({}, {}, {"show-environment": "X=xcloud-init=disabledy\n"}),
    "states-combined": ({S: v1(init=stage(errors=["x"])), "etc/cloud/cloud-init.disabled": ""}, {}, {}),
    "degraded-disabled": ({S: v1(init=stage(recoverable_errors={"WARNING": ["w"]})), "run/cloud-init/disabled": ""}, {}, {}),
    # Inputs Python reads without a traceback but bootstatus reports as errors (package README, "Bad input").
    "accepted-bool-time": ({S: v1(init={"start": True, "finished": None}), R: "{}"}, {}, {}),
    "accepted-errors-string": ({S: v1(init=stage(errors="abc")), R: "{}"}, {}, {}),
    "accepted-nan": ({S: '{"v1": {"init": {"start": 5, "finished": NaN}}}', R: "{}"}, {}, {}),
}
ACCEPTED = {
    "accepted-bool-time": "true as a time is a wrong type",
    "accepted-errors-string": "a string as errors is a wrong type",
    "accepted-nan": "NaN is not JSON",
}


def build(files, answers):
    work = tempfile.mkdtemp(prefix="bootstatus-edge-")
    root = os.path.join(work, "root")
    tree = {"run/systemd/system": None, "proc/cmdline": "BOOT_IMAGE=/vmlinuz ro\n", "run/cloud-init/enabled": ""}
    tree.update(files)
    for rel, content in tree.items():
        full = os.path.join(root, rel)
        if content is False:
            continue
        if content is None:
            os.makedirs(full, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if isinstance(content, tuple):
            os.symlink(content[1], full)
            continue
        with open(full, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    answers_dir = os.path.join(work, "systemctl")
    os.makedirs(answers_dir)
    for name, text in answers.items():
        with open(os.path.join(answers_dir, name), "w", encoding="utf-8") as f:
            f.write(text)
    return work, root, answers_dir


def main():
    only = sys.argv[1:]
    differences = 0
    for name, (files, env, answers) in CASES.items():
        if only and name not in only:
            continue
        work, root, answers_dir = build(files, answers)
        try:
            for theirs_flags, ours_flags in ROWS:
                base = {"PATH": "/usr/bin:/bin", **env}
                theirs = subprocess.run(
                    ["/usr/bin/python3", os.path.join(B, "test/oracle/cloud-init-status.py"), root, *theirs_flags],
                    env={**base, "CLOUD_INIT_SRC": CLOUD_INIT_SRC, "FAKE_SYSTEMCTL_DIR": answers_dir},
                    capture_output=True, timeout=60,
                )
                ours = subprocess.run(
                    ["node", os.path.join(B, "bin/bootstatus.js"), "--root", root, "--quiet", *ours_flags],
                    env={**base, "PATH": os.path.join(B, "test/fixtures/bin") + ":/usr/bin:/bin",
                         "FAKE_SYSTEMCTL_DIR": answers_dir},
                    capture_output=True, timeout=60,
                )
                row = f"{name} {' '.join(theirs_flags)}".strip()
                if b"Traceback" in theirs.stderr:
                    print(f"TRACEBACK {row}")
                elif (theirs.stdout, theirs.returncode) == (ours.stdout, ours.returncode):
                    print(f"same      {row}")
                elif name in ACCEPTED:
                    print(f"accepted  {row}: {ACCEPTED[name]}")
                else:
                    differences += 1
                    print(f"DIFFERENT {row}")
                    print(f"    cloud-init (exit {theirs.returncode}): {theirs.stdout!r}")
                    print(f"    bootstatus (exit {ours.returncode}): {ours.stdout!r}")
        finally:
            shutil.rmtree(work)
    print(f"differences: {differences}")
    sys.exit(1 if differences else 0)


main()

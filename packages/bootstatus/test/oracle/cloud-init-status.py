#!/usr/bin/python3
"""Runs the real `cloud-init status` of a cloud-init source checkout against a fixture state tree.

Usage (as root, cloud-init's Python dependencies from Debian installed, see README.md beside this file):
    CLOUD_INIT_SRC=<checkout> cloud-init-status.py <root> [status args: --long --format json|yaml|tabular --wait]

The process chroots into <root> after importing everything, so cloud-init reads the tree exactly as it reads a
real system: /run/cloud-init/status.json (absolute symlinks included), /etc/cloud/cloud.cfg(.d), /proc/cmdline,
/run/systemd/system. Only `systemctl` is emulated, from the fixture's systemctl/ directory (env
FAKE_SYSTEMCTL_DIR), with the same answers as test/fixtures/bin/systemctl. Nothing is written under <root>.
"""

import os
import sys

sys.path.insert(0, os.environ["CLOUD_INIT_SRC"])

# Import everything cloud-init might import lazily before the chroot hides the host's Python.
import cloudinit.handlers.jinja_template  # noqa: E402,F401
import cloudinit.mergers.m_dict  # noqa: E402,F401
import cloudinit.mergers.m_list  # noqa: E402,F401
import cloudinit.mergers.m_str  # noqa: E402,F401
import cloudinit.safeyaml  # noqa: E402,F401
from cloudinit import subp  # noqa: E402
from cloudinit.cmd import status  # noqa: E402
from cloudinit.subp import SubpResult  # noqa: E402

HEALTHY_UNIT = "ActiveState=active\nUnitFileState=enabled\nSubState=exited\nMainPID=0\n"
HEALTHY_ENV = "LANG=C.UTF-8\nPATH=/usr/bin:/bin\n"


def fake_systemctl_answers(directory):
    answers = {}
    if os.path.isdir(directory):
        for name in os.listdir(directory):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                answers[name] = f.read()
    return answers


def make_subp(answers):
    def fake_subp(args, *_a, **_k):
        if "fail" in answers:
            raise subp.ProcessExecutionError(stderr=answers["fail"], exit_code=1, cmd=args)
        if args[1] == "show-environment":
            return SubpResult(answers.get("show-environment", HEALTHY_ENV), "")
        if args[1] == "show":
            return SubpResult(answers.get(args[3], HEALTHY_UNIT), "")
        raise subp.ProcessExecutionError(stderr="unexpected", exit_code=1, cmd=args)

    return fake_subp


def main():
    root = sys.argv[1]
    answers = fake_systemctl_answers(os.environ.get("FAKE_SYSTEMCTL_DIR", "/nonexistent"))
    args = status.get_parser().parse_args(sys.argv[2:])
    status.subp.subp = make_subp(answers)
    os.chroot(root)
    os.chdir("/")
    sys.exit(status.handle_status_args("status", args))


if __name__ == "__main__":
    main()

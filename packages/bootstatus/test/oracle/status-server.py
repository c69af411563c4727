#!/usr/bin/python3
"""Runs the real `cloud-init status` many times from one Python start (for test/status-fuzz.peers.test.ts).

Usage (as root): CLOUD_INIT_SRC=<cloud-init checkout> status-server.py
Reads one JSON request per stdin line: {"root": DIR, "args": [...], "env": {...}, "systemctl": {name: text},
"timeout": seconds}. For each it forks; the child does what cloud-init-status.py beside this file does (upstream
`status.py` chrooted into DIR, `systemctl` answered from the request like test/fixtures/bin/systemctl) with
exactly the request's environment, and with the stderr logging `cloud-init` sets up for every subcommand but
init/modules (cloudinit/cmd/main.py: setup_basic_logging at WARNING). A Python exception prints its traceback and
exits 1, as the interpreter does. Answers one JSON line: {"code", "stdout", "stderr"} (bytes as base64); a child
still running after "timeout" seconds (`--wait` on a boot that never ends) is killed: code -14 (SIGALRM).
Importing cloud-init once and forking saves its ~0.3 s start per run.
"""

import base64
import importlib.util
import json
import logging
import os
import signal
import sys
import tempfile
import traceback

sys.dont_write_bytecode = True  # keeps test/oracle/ free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("cloud_init_status", os.path.join(HERE, "cloud-init-status.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)
from cloudinit.log import loggers  # noqa: E402


def child(request, out_fd, err_fd):
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    signal.alarm(int(request.get("timeout", 10)))
    code = 1
    try:
        os.environ.clear()
        os.environ.update(request["env"])
        loggers.setup_basic_logging(logging.WARNING)
        args = oracle.status.get_parser().parse_args(request["args"])
        oracle.status.subp.subp = oracle.make_subp(request["systemctl"])
        os.chroot(request["root"])
        os.chdir("/")
        code = oracle.status.handle_status_args("status", args)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stderr.flush()
    os._exit(code)


def run(request):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(request, out.fileno(), err.fileno())
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {
            "code": code,
            "stdout": base64.b64encode(out.read()).decode(),
            "stderr": base64.b64encode(err.read()).decode(),
        }


def main():
    for line in sys.stdin:
        answer = run(json.loads(line))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


main()

#!/usr/bin/python3
"""Python's own encoders over a state tree, for test/encoders-fuzz.peers.test.ts (python3 and python3-yaml only).

Usage: encoders-server.py
Reads one JSON request per stdin line: {"status_json": PATH, "result_json": bool, "yaml": TEXT, "json": TEXT}, where
PATH is a status.json of a sysvinit tree (boot code enabled-by-sysvinit, no systemctl) and TEXT are bootstatus's
`--format yaml` and `--format json` of that tree; without status_json only the two texts are read. Answers one JSON line (ensure_ascii, so lone surrogates travel):
  cloud_init_json  what cloud-init 26.x prints for `status --format json`: status.py print_status's
                   json.dumps(details_dict, indent=2, sort_keys=True, separators=(",", ": ")) and print's newline
  tabular          what print_status prints for `status`, tabular_long for `status --long` (its TABULAR_LONG_TMPL)
  report_json      report v1 (research §1.9) as json.dumps(report, indent=2, ensure_ascii=False) and a newline
  yaml_loaded      yaml.safe_load(TEXT of --format yaml) (PyYAML, the YAML 1.1 reader of cloud-init and most
                   Python consumers), or yaml_error with PyYAML's message when it refuses the text
  json_loaded      json.loads(TEXT of --format json)
The details are computed by the functions below, copied from canonical/cloud-init cloudinit/cmd/status.py (26.2:
get_datasource, get_description, get_latest_event, get_errors, get_running_status, translate_status, print_status)
for the one boot code these trees have; the comparison of the computation itself with the real status.py is
status-fuzz.peers.test.ts's. What is checked here is how the values are written.
"""

import json
import sys
from copy import deepcopy
from datetime import datetime, timezone

import yaml

sys.dont_write_bytecode = True

# status.py TABULAR_LONG_TMPL (26.2)
TABULAR_LONG_TMPL = """\
extended_status: {extended_status}
boot_status_code: {boot_code}
{last_update}detail: {description}
errors:{errors}
recoverable_errors:{recoverable_errors}"""


def get_datasource(status_v1):
    datasource = status_v1.get("datasource", "")
    if datasource:
        ds, _, _ = datasource.partition(" ")
        datasource = ds.lower().replace("datasource", "")
    return datasource


def get_description(status_v1, boot_description):
    datasource = status_v1.get("datasource")
    if datasource:
        return datasource
    elif status_v1.get("stage"):
        return f"Running in stage: {status_v1['stage']}"
    else:
        return boot_description


def get_latest_event(status_v1):
    latest_event = 0
    for stage_info in status_v1.values():
        if isinstance(stage_info, dict):
            latest_event = max(latest_event, stage_info.get("start") or 0, stage_info.get("finished") or 0)
    return latest_event


def get_errors(status_v1):
    errors = []
    recoverable_errors = {}
    for _key, stage_info in sorted(status_v1.items()):
        if isinstance(stage_info, dict):
            errors.extend(stage_info.get("errors", []))
            current = stage_info.get("recoverable_errors", {})
            for err_type in current.keys():
                if err_type not in recoverable_errors:
                    recoverable_errors[err_type] = deepcopy(current[err_type])
                else:
                    recoverable_errors[err_type].extend(current[err_type])
    return errors, recoverable_errors


def details(status_json, result_exists):
    with open(status_json, encoding="utf-8") as f:
        status_v1 = json.loads(f.read()).get("v1", {})
    datasource = get_datasource(status_v1)
    description = get_description(status_v1, "Cloud-init enabled on sysvinit")
    latest_event = get_latest_event(status_v1)
    last_update = ""
    if latest_event:
        last_update = datetime.fromtimestamp(latest_event, tz=timezone.utc).strftime("%a, %d %b %Y %H:%M:%S %z")
    errors, recoverable_errors = get_errors(status_v1)
    condition = "error" if errors else "degraded" if recoverable_errors else "healthy"
    # get_running_status: status.json exists in every tree, and sysvinit is never disabled.
    running = "done" if result_exists and latest_event > 0 else "not started" if result_exists else "running"
    # translate_status
    if condition == "error":
        status, extended = "error", f"error - {running}"
    elif condition == "degraded" and running in ("running", "done"):
        status, extended = running, f"degraded {running}"
    else:
        status, extended = running, running
    status_v1.pop("datasource", None)
    return {
        "datasource": datasource,
        "boot_status_code": "enabled-by-sysvinit",
        "status": status,
        "extended_status": extended,
        "detail": description,
        "errors": errors,
        "recoverable_errors": recoverable_errors,
        "last_update": last_update,
        **status_v1,
    }


def tabular(d, long):
    """print_status's tabular branch, its print() newline included."""
    out = f"status: {d['status']}\n"
    if not long:
        return out
    last_update = f"last_update: {d['last_update']}\n" if d.get("last_update") else ""
    errors_output = "\n\t- " + "\n\t- ".join(d["errors"]) if d["errors"] else " []"
    recoverable_errors_output = (
        "\n"
        + "\n".join(
            [
                f"{k}:\n\t- " + "\n\t- ".join([i.replace("\n", " ") for i in v])
                for k, v in d["recoverable_errors"].items()
            ]
        )
        if d["recoverable_errors"]
        else " {}"
    )
    return (
        out
        + TABULAR_LONG_TMPL.format(
            extended_status=d["extended_status"],
            boot_code=d["boot_status_code"],
            description=d["detail"],
            last_update=last_update,
            errors=errors_output,
            recoverable_errors=recoverable_errors_output,
        )
        + "\n"
    )


def report_v1(d):
    return {
        "status": {
            "status": d["status"],
            "extended_status": d["extended_status"],
            "boot_status_code": d["boot_status_code"],
            "last_update": d["last_update"] or None,
            "detail": d["detail"] or None,
        },
        "errors": [{"message": m} for m in d["errors"]],
        "recoverable_errors": [{"level": k, "messages": v} for k, v in d["recoverable_errors"].items()],
    }


def answer(request):
    out = {"json_loaded": json.loads(request["json"])}
    if "status_json" in request:
        d = details(request["status_json"], request["result_json"])
        out["cloud_init_json"] = json.dumps(d, indent=2, sort_keys=True, separators=(",", ": ")) + "\n"
        out["tabular"] = tabular(d, False)
        out["tabular_long"] = tabular(d, True)
        out["report_json"] = json.dumps(report_v1(d), indent=2, ensure_ascii=False) + "\n"
    try:
        out["yaml_loaded"] = yaml.safe_load(request["yaml"])
    except yaml.YAMLError as e:
        out["yaml_error"] = str(e)
    return out


def main():
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as e:  # a request this script cannot answer is the test's finding, not a hang
            reply = {"exception": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

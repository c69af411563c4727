#!/usr/bin/python3
"""Compares bootstatus with the real `cloud-init status` on random state trees (a manual check, like compare.sh).

Usage (as root, with cloud-init's Python dependencies and `npm run build` done, see README.md beside this file):
    CLOUD_INIT_SRC=<checkout> random-trees.py [SEED] [COUNT] [WORKDIR]

Each tree gets random stages (known and unknown keys), times (ints, floats, 0, negative, None), errors and
recoverable levels (non-ASCII, newlines, quotes), datasource and stage values, status.json/result.json presence,
generator markers, the marker file, kernel command lines and KERNEL_CMDLINE. For each, `status --long` and
`status --format json` of cloud-init (cloud-init-status.py) are diffed with bootstatus `--long` and
`--format cloud-init-json`, exit codes included. Trees on which cloud-init raises a traceback are listed, not
compared. Prints "diffs: N" at the end and exits 1 when N > 0.
"""
import json
import os
import random
import shutil
import subprocess
import sys

B = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLOUD_INIT_SRC = os.environ["CLOUD_INIT_SRC"]
WORK = sys.argv[3] if len(sys.argv) > 3 else "/tmp/bootstatus-random-trees"
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 1)
N=int(sys.argv[2]) if len(sys.argv)>2 else 30
words=["boom","émoji 😀","multi\nline","tab\there","quote's","\"dq\"","back\\slash","ü","x"*3,"WARN: a=b"]
levels=["WARNING","ERROR","DEPRECATED","CRITICAL","zeta","Ä"]
def t():
    return random.choice([None,0,0.0,1,12.5,123.456,1710355584.3603137,1e-7,-3,7.0,125.678,99999.99999949])
def stage():
    d={}
    if random.random()<.8: d["start"]=t()
    if random.random()<.8: d["finished"]=t()
    if random.random()<.7: d["errors"]=random.sample(words,random.randint(0,2))
    if random.random()<.7:
        d["recoverable_errors"]={l:random.sample(words,random.randint(0,2)) for l in random.sample(levels,random.randint(0,2))}
    return d
fails=0
for i in range(N):
    root=f"{WORK}/c{i}/root"; shutil.rmtree(f"{WORK}/c{i}",ignore_errors=True)
    os.makedirs(root+"/run/cloud-init"); os.makedirs(root+"/proc")
    if random.random()<.85: os.makedirs(root+"/run/systemd/system")
    open(root+"/proc/cmdline","w").write(random.choice(["ro quiet","ro cloud-init=enabled","ro cloud-init=disabled",""])+"\n")
    if random.random()<.2: os.makedirs(root+"/etc/cloud"); open(root+"/etc/cloud/cloud-init.disabled","w").write("")
    for m in ["enabled","disabled"]:
        if random.random()<.4: open(root+"/run/cloud-init/"+m,"w").write("")
    if random.random()<.85:
        v1={}
        for k in random.sample(["init-local","init","modules-config","modules-final","blah","Zed"],random.randint(0,5)): v1[k]=stage()
        if random.random()<.7: v1["datasource"]=random.choice([None,"","DataSourceNoCloud [seed=/x][dsmode=net]","DataSourceLXD","DataSourceEc2Local"])
        if random.random()<.7: v1["stage"]=random.choice([None,"init","modules-final",""])
        open(root+"/run/cloud-init/status.json","w").write(json.dumps({"v1":v1},indent=random.choice([None,1])))
        if random.random()<.6: open(root+"/run/cloud-init/result.json","w").write("{}")
    env={"PATH":"/usr/bin:/bin","FAKE_SYSTEMCTL_DIR":"/nonexistent"}
    if random.random()<.15: env["KERNEL_CMDLINE"]="cloud-init=disabled"
    for ours_fmt,flags in [("--long",["--long"]),("--format cloud-init-json",["--format","json"])]:
        o=subprocess.run(["/usr/bin/python3",B+"/test/oracle/cloud-init-status.py",root,*flags],env=dict(env,CLOUD_INIT_SRC=CLOUD_INIT_SRC),capture_output=True,text=True)
        u=subprocess.run(["node",B+"/dist/src/cli.js","--root",root,*ours_fmt.split()],env=dict(env,PATH=B+"/test/fixtures/bin:/usr/bin:/bin"),capture_output=True,text=True)
        if "Traceback" in o.stderr:
            print(f"c{i} {ours_fmt}: upstream traceback: {o.stderr.strip().splitlines()[-1]} / ours rc={u.returncode}"); continue
        if (o.stdout,o.returncode)!=(u.stdout,u.returncode):
            fails+=1
            print(f"c{i} {ours_fmt}: DIFF rc {o.returncode} vs {u.returncode}")
            import difflib
            print("".join(difflib.unified_diff(o.stdout.splitlines(1),u.stdout.splitlines(1),"cloud-init","ours")))
print("diffs:", fails)
sys.exit(1 if fails else 0)

#!/usr/bin/env python3
"""One client's durable note.add loop against a fresh local-only tnotesd, with each daemon thread's CPU per call:
for A/B comparisons of two builds in interleaved pairs (the machine has phases; only pairs compare).

usage: scripts/noteadd-harness.py BINDIR TAG
  BINDIR  a release build's binaries (tnotesd)
env: N=calls (6000); PERF=1 records `perf` of the daemon over the loop into /tmp/noteab-TAG.perf
Prints the wall time per call and the CPU per call of each thread kind (the event loop is NIO-ELT-1-#, the
store's writer a libdispatch thread, "-qos.overcommit").
"""
import os, sys, subprocess, time, json, socket, shutil, collections
bindir, tag = sys.argv[1:3]
N = int(os.environ.get("N", "6000"))
W=f"/tmp/noteab-{tag}"; shutil.rmtree(W, ignore_errors=True); os.makedirs(W)
open(f"{W}/t.toml","w").write("")
p=subprocess.Popen([f"{bindir}/tnotesd","--config",f"{W}/t.toml","--data-dir",f"{W}/data","--socket",f"{W}/s.sock","--log-level","warning"],stderr=open(f"{W}/log","w"))
while True:
    try:
        s=socket.socket(socket.AF_UNIX); s.connect(f"{W}/s.sock"); break
    except Exception: time.sleep(0.05)
f=s.makefile("rb"); i=0
def call(m, params):
    global i; i+=1
    s.sendall((json.dumps({"jsonrpc":"2.0","id":i,"method":m,"params":params})+"\n").encode())
    r=json.loads(f.readline())
    if "error" in r: raise SystemExit(str(r))
    return r["result"]
sid=call("sermon.create",{"title":"bench"})["id"]
def threads():
    out=collections.Counter()
    for t in os.listdir(f"/proc/{p.pid}/task"):
        try:
            a=open(f"/proc/{p.pid}/task/{t}/stat").read()
            name=a[a.index("(")+1:a.rindex(")")]
            x=a.rsplit(")",1)[1].split()
            out[name.rstrip("0123456789")]+= (int(x[11])+int(x[12]))/100
        except Exception: pass
    return out
for k in range(300): call("note.add",{"sermonId":sid,"text":f"w{k}","timestamp":k})
perf=None
if os.environ.get("PERF"):
    perf=subprocess.Popen(["perf","record","-g","-F","2000","-p",str(p.pid),"-o",f"/tmp/noteab-{tag}.perf"],stderr=subprocess.DEVNULL)
    time.sleep(0.5)
c0=threads(); t0=time.time()
for k in range(N): call("note.add",{"sermonId":sid,"text":f"note {k}","timestamp":k})
t1=time.time(); c1=threads()
if perf: perf.terminate(); perf.wait()
per={k:1e6*(c1[k]-c0[k])/N for k in c1 if c1[k]-c0[k]>0}
print(f"{tag}: note.add {1e6*(t1-t0)/N:.0f} us/call ({N/(t1-t0):.0f}/s); CPU us/call: "+", ".join(f"{k}={v:.0f}" for k,v in sorted(per.items(), key=lambda x:-x[1])))
p.terminate(); p.wait(); shutil.rmtree(W, ignore_errors=True)

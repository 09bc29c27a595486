#!/usr/bin/env python3
"""One full sync A -> server -> B as tnotes-bench's `fullSync` makes it, with each process's CPU seconds: for
A/B comparisons of two builds in interleaved pairs (the machine has phases; only pairs compare).

usage: scripts/sync-harness.py BINDIR pg|sqlite TAG SEEDDIR
  BINDIR   a release build's binaries (tnotesd, tnotes-server)
  SEEDDIR  a bench scale directory holding a/data (`tnotes-bench --only sync --scales 1 --keep` leaves one)
  pg       needs a PostgreSQL 15 cluster on 127.0.0.1:55432, socket dir /tmp/pgc (user postgres, trust):
           runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pgc/data -l /tmp/pgc/log \
             -o "-c listen_addresses=127.0.0.1 -c port=55432 -c unix_socket_directories=/tmp/pgc" -w start
env: BBIN=DIR takes B's tnotesd from DIR (a pull by another build from the same server); FILL=1 fills the page cache first (as the bench does); PERF=server|a|b|all with PHASE=push|pull|search records
`perf` of that process over that phase into /tmp/pgs-TAG/ (PERFARGS: perf record's sampling options, default "-F 2000 -g");
KEEPW=1 keeps the stores; NOSEARCH=1 skips the first search.
B's RSS (anonymous and file-backed) is printed after the pull and after the first search.
Prints: total, push and pull seconds; CPU seconds of A, the server and PostgreSQL's backends on the push, and
of the server, the backends and B on the pull.
"""
import os, sys, subprocess, time, shutil, json, socket, random, glob

bindir, backend, tag, seed = sys.argv[1:5]
W = f"/tmp/pgs-{tag}"
shutil.rmtree(W, ignore_errors=True)
os.makedirs(W)
PG = "/usr/lib/postgresql/15/bin"

def cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            p = f.read().rsplit(")", 1)[1].split()
        return (int(p[11]) + int(p[12])) / os.sysconf("SC_CLK_TCK"), int(p[11]) / 100, int(p[12]) / 100
    except Exception:
        return (0, 0, 0)

def mem(pid):
    """B's resident memory from /proc/PID/status: total, anonymous (heap, stacks), file-backed (libraries, maps)."""
    try:
        f = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status").read().splitlines() if ":" in l)
        mib = lambda k: int(f[k].split()[0]) / 1024
        return f"RSS {mib('VmRSS'):.1f} MiB (anon {mib('RssAnon'):.1f}, file {mib('RssFile'):.1f})"
    except Exception:
        return "RSS ?"

def pgbackends_cpu():
    tot = 0
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline", "rb") as f:
                c = f.read()
            if b"postgres: postgres" in c:
                tot += cpu(int(d[6:]))[0]
        except Exception:
            pass
    return tot

def wait_sock(p, t=60):
    d = time.time() + t
    while time.time() < d:
        if os.path.exists(p):
            try:
                s = socket.socket(socket.AF_UNIX); s.connect(p); s.close(); return
            except Exception:
                pass
        time.sleep(0.02)
    raise SystemExit("no socket " + p)

class RPC:
    def __init__(self, p):
        self.s = socket.socket(socket.AF_UNIX); self.s.connect(p); self.f = self.s.makefile("rb"); self.i = 0
    def call(self, m, params=None):
        self.i += 1
        self.s.sendall((json.dumps({"jsonrpc": "2.0", "id": self.i, "method": m, "params": params or {}}) + "\n").encode())
        r = json.loads(self.f.readline())
        if "error" in r: raise SystemExit(str(r))
        return r["result"]

storage = ["--data-dir", f"{W}/srv"]
if backend == "pg":
    db = f"h{tag.replace('-', '_')}{random.randint(0, 10**6)}"
    subprocess.run(["runuser", "-u", "postgres", "--", f"{PG}/psql", "-h", "/tmp/pgc", "-p", "55432", "-qc", f"CREATE DATABASE {db}"], check=True)
    storage += ["--database", f"postgres://postgres@127.0.0.1:55432/{db}"]
os.makedirs(f"{W}/srv")
tok = subprocess.run([f"{bindir}/tnotes-server", "user", "add", "--token"] + storage + ["u"], capture_output=True, text=True, check=True).stdout.strip().split("\n")[-1]
slog = open(f"{W}/server.log", "w")
srv = subprocess.Popen([f"{bindir}/tnotes-server", "serve"] + storage + ["--port", "0", "--rate-limit", "0", "--log-level", "warning"], stdout=slog, stderr=subprocess.STDOUT)
url = None
for _ in range(500):
    t = open(f"{W}/server.log").read()
    if "listening on http://" in t:
        url = t[t.index("http://"):].split()[0]; break
    time.sleep(0.02)
if os.environ.get("FILL"):
    subprocess.run("truncate -s 22G /tmp/sparse; cat /tmp/sparse > /dev/null; rm -f /tmp/sparse", shell=True)
shutil.copytree(f"{seed}/a/data", f"{W}/A/data")
prep = subprocess.Popen([f"{bindir}/tnotesd", "--data-dir", f"{W}/A/data", "--socket", f"{W}/prep.sock", "--log-level", "warning"], stderr=subprocess.DEVNULL)
wait_sock(f"{W}/prep.sock"); prep.terminate(); prep.wait()
open(f"{W}/tnotesd.toml", "w").write(f'[sync]\nserver_url = "{url}"\ninterval = 3600\nrealtime = false\n')
env = dict(os.environ, TNOTES_TOKEN=tok)
b = subprocess.Popen([os.environ.get("BBIN", bindir) + "/tnotesd", "--config", f"{W}/tnotesd.toml", "--data-dir", f"{W}/B/data", "--socket", f"{W}/b.sock", "--log-level", "warning"], env=env, stderr=open(f"{W}/b.log", "w"))
wait_sock(f"{W}/b.sock"); cb = RPC(f"{W}/b.sock")
os.sync(); time.sleep(0.5)
perf = os.environ.get("PERF"); phase = os.environ.get("PHASE", "push")
def start_perf(pid):
    target = ["-a"] if pid is None else ["-p", str(pid)]
    # PERFARGS replaces the sampling options: "-F 500 --call-graph dwarf,16384" for whole stacks through
    # libsqlite3, which Debian builds without frame pointers (with -g half of a writer's samples lose their callers).
    args = os.environ.get("PERFARGS", "-F 2000 -g").split()
    return subprocess.Popen(["perf", "record"] + args + ["-o", f"{W}/perf-{perf}-{phase}.data"] + target, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
s0 = cpu(srv.pid)[0]; pg0 = pgbackends_cpu()
t0 = time.time()
a = subprocess.Popen([f"{bindir}/tnotesd", "--config", f"{W}/tnotesd.toml", "--data-dir", f"{W}/A/data", "--socket", f"{W}/a.sock", "--log-level", "warning"], env=env, stderr=open(f"{W}/a.log", "w"))
pp = None
if perf and phase == "push":
    pp = start_perf({"server": srv.pid, "a": a.pid, "all": None}[perf])
wait_sock(f"{W}/a.sock"); ca = RPC(f"{W}/a.sock")
while True:
    st = ca.call("sync.status")
    if st["state"] == "idle" and st["pendingOps"] == 0 and st.get("lastSuccessAt"): break
    time.sleep(0.02)
push = time.time() - t0
if pp: pp.send_signal(2); pp.wait()
s1 = cpu(srv.pid)[0]; pg1 = pgbackends_cpu(); b1 = cpu(b.pid)[0]; acpu = cpu(a.pid)
if perf and phase == "pull":
    pp = start_perf({"server": srv.pid, "b": b.pid, "all": None}[perf])
t1 = time.time()
before = cb.call("sync.status").get("lastSuccessAt")
cb.call("sync.now", {"wait": False})
while True:
    st = cb.call("sync.status")
    if st["state"] == "idle" and st.get("lastSuccessAt") != before: break
    time.sleep(0.02)
pull = time.time() - t1
if pp: pp.send_signal(2); pp.wait()
s2 = cpu(srv.pid)[0]; pg2 = pgbackends_cpu(); b2 = cpu(b.pid)
print(f"{tag}: B after the pull: {mem(b.pid)}", flush=True)
print(f"{tag}: total {push+pull:.2f} push {push:.2f} pull {pull:.2f} | push CPU A {acpu[0]:.2f} srv {s1-s0:.2f} pg {pg1-pg0:.2f} | pull CPU srv {s2-s1:.2f} pg {pg2-pg1:.2f} B {b2[0]-b1:.2f} (B sys {b2[2]:.2f})", flush=True)
# The first search after the pull waits for the search catch-up (as the bench's "first search" figure).
# NOSEARCH=1 skips it (at 16x it takes a minute and a half).
if not os.environ.get("NOSEARCH"):
    if perf and phase == "search":
        pp = start_perf({"b": b.pid, "all": None}[perf])
    t2 = time.time(); cb.call("search.query", {"q": "grace"}); search = time.time() - t2
    if perf and phase == "search": pp.send_signal(2); pp.wait()
    print(f"{tag}: first search {search:.2f} s, B CPU over it {cpu(b.pid)[0] - b2[0]:.2f}; B after it: {mem(b.pid)}", flush=True)
for p in (a, b, srv): p.terminate()
for p in (a, b, srv): p.wait()
if backend == "pg":
    subprocess.run(["runuser", "-u", "postgres", "--", f"{PG}/psql", "-h", "/tmp/pgc", "-p", "55432", "-qc", f"DROP DATABASE {db}"])
if not os.environ.get("KEEPW"):
    for x in ("A", "B", "srv"): shutil.rmtree(f"{W}/{x}", ignore_errors=True)

#!/usr/bin/env python3
"""A Slurm cluster of virtual nodes on this host, for the tests.

Debian's Slurm allows several slurmd on one host (MULTIPLE_SLURMD): each
virtual node n1..nN is a slurmd of its own (`slurmd -N nX`, its own port and
spool directory) with NodeAddr 127.0.0.1. Everything lives in a temporary
directory: munge's key and socket, slurm.conf (SLURM_CONF points at it; nothing
is written to /etc), the controller's state, the logs. Every daemon is started
here as a child of this process (foreground, `-D`/`-F`) and stopped by its pid,
with whatever it started, whether the tests pass or fail.

  with Cluster(nodes=4) as c:        # started: every node idle
      subprocess.run(["srun", "-N4", "-n8", "hostname"], env=c.env)
      c.kill_node("n2")              # its slurmd, slurmstepd and tasks killed; marked down
      c.revive_node("n2")            # a new slurmd; resumed, idle again

As a command (for a person trying it):
  cluster.py shell [--nodes N]       # start, run $SHELL with SLURM_CONF set, stop
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "sinfo", "scontrol", "srun")


def missing_programs():
    return [p for p in DAEMONS if shutil.which(p) is None and not os.path.exists(f"/usr/sbin/{p}")]


def program(name):
    return shutil.which(name) or f"/usr/sbin/{name}"


def free_ports(n):
    """n TCP ports free on 127.0.0.1 now (bound together, so distinct)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def descendants(pids):
    """pids and every process under them (by parent pid)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), list(pids)
    while todo:
        p = todo.pop()
        if p in out:
            continue
        out.add(p)
        todo.extend(children.get(p, []))
    return out


def kill_all(pids, sig=signal.SIGKILL):
    for p in pids:
        try:
            os.kill(p, sig)
        except (ProcessLookupError, PermissionError):
            pass


class Cluster:
    def __init__(self, nodes=4, cpus=2, root=None, slurmd_timeout=10, keep=False):
        self.names = [f"n{i}" for i in range(1, nodes + 1)]
        self.cpus = cpus
        self.root = root or tempfile.mkdtemp(prefix="gds-slurm-")
        self.slurmd_timeout = slurmd_timeout
        self.keep = keep
        self.procs = {}  # name -> Popen ("munged", "slurmctld", "n1", ...)
        self.conf = os.path.join(self.root, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for var in list(self.env):  # a job of an outer Slurm must not leak into ours
            if var.startswith("SLURM_") and var != "SLURM_CONF":
                del self.env[var]

    # ---- set up -----------------------------------------------------------------
    def _path(self, *parts):
        return os.path.join(self.root, *parts)

    def _write_config(self):
        for d in ("munge", "state", "spool", "log"):
            os.makedirs(self._path(d), exist_ok=True)
        os.chmod(self._path("munge"), 0o755)  # munged checks that everyone can reach its socket
        key = self._path("munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        ports = free_ports(1 + len(self.names))
        self.ctld_port, self.node_ports = ports[0], dict(zip(self.names, ports[1:]))
        node_lines = "\n".join(
            f"NodeName={n} NodeHostname=localhost NodeAddr=127.0.0.1 Port={p} CPUs={self.cpus} State=UNKNOWN"
            for n, p in self.node_ports.items())
        with open(self.conf, "w") as f:
            f.write(f"""# A cluster of virtual nodes on one host (tests/slurm/cluster.py)
ClusterName=gdstest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={self.ctld_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self._path("munge", "munge.sock")}
CredType=cred/munge
StateSaveLocation={self._path("state")}
SlurmdSpoolDir={self._path("spool", "slurmd.%n")}
SlurmctldPidFile={self._path("slurmctld.pid")}
SlurmdPidFile={self._path("slurmd.%n.pid")}
SlurmctldLogFile={self._path("log", "slurmctld.log")}
SlurmdLogFile={self._path("log", "slurmd.%n.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmi2
ReturnToService=2
SlurmdTimeout={self.slurmd_timeout}
SlurmctldTimeout=10
MessageTimeout=10
InactiveLimit=0
KillWait=2
MinJobAge=5
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
PlugStackConfig={self._path("plugstack.conf")}
{node_lines}
PartitionName=debug Nodes={",".join(self.names)} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
""")
        open(self._path("plugstack.conf"), "w").close()

    def _spawn(self, name, argv):
        log = open(self._path("log", f"{name}.out"), "ab")
        self.procs[name] = subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, cwd=self.root, start_new_session=True)
        log.close()

    def _start_slurmd(self, node):
        self._spawn(node, [program("slurmd"), "-D", "-N", node, "-f", self.conf])

    def start(self, timeout=90):
        missing = missing_programs()
        if missing:
            raise RuntimeError("Slurm is not installed (missing " + ", ".join(missing) +
                               "): apt-get install slurmctld slurmd slurm-client munge")
        self._write_config()
        self._spawn("munged", [program("munged"), "-F", "-f", "--socket=" + self._path("munge", "munge.sock"),
                               "--key-file=" + self._path("munge", "munge.key"),
                               "--pid-file=" + self._path("munge", "munged.pid"),
                               "--log-file=" + self._path("log", "munged.log"),
                               "--seed-file=" + self._path("munge", "munged.seed")])
        self._wait(lambda: os.path.exists(self._path("munge", "munge.sock")), 20, "munged's socket")
        self._spawn("slurmctld", [program("slurmctld"), "-D", "-i", "-f", self.conf])
        self._wait(lambda: self._run(["scontrol", "ping"], 10)[0] == 0 and "UP" in self._run(["scontrol", "ping"], 10)[1],
                   30, "slurmctld answering")
        for n in self.names:
            self._start_slurmd(n)
        self.wait_idle(self.names, timeout)
        return self

    def _wait(self, ok, timeout, what):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise RuntimeError(f"{name} exited with {p.returncode} while waiting for {what}:\n" + self.logs())
            if ok():
                return
            time.sleep(0.2)
        raise RuntimeError(f"no {what} after {timeout} s:\n" + self.logs())

    def _run(self, argv, timeout=30):
        try:
            p = subprocess.run(argv, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=timeout)
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired:
            return None, "timed out"

    def states(self):
        """node -> its state as sinfo prints it (idle, alloc, down*, ...)."""
        rc, out = self._run(["sinfo", "-h", "-N", "-o", "%N %t"])
        if rc != 0:
            return {}
        return dict(line.split() for line in out.splitlines() if len(line.split()) == 2)

    def wait_idle(self, nodes, timeout=60):
        self._wait(lambda: all(self.states().get(n) in ("idle", "mix", "alloc") for n in nodes), timeout,
                   f"node(s) {','.join(nodes)} up")

    def settle(self, timeout=120):
        """Every node idle and no job queued, as a scenario's first job needs (a job of the
        scenario before may still be completing on a node, a step on a lost one cancelled):
        waits, then cancels what is left and waits again. Returns what it saw, if it waited."""
        def quiet():
            rc, out = self._run(["squeue", "-h", "-o", "%i %T"])
            return rc == 0 and not out.strip() and all(s == "idle" for s in self.states().values())
        end = time.monotonic() + timeout / 2
        while time.monotonic() < end:
            if quiet():
                return ""
            time.sleep(0.3)
        seen = f"queue: {self._run(['squeue', '-h', '-o', '%i %T %N'])[1].strip()!r}, nodes: {self.states()}"
        self._run(["scancel", "--full", "--user=root"], 10)
        # A node Slurm drained (a task that outlived SIGKILL: "Kill task failed") is
        # resumed, as an administrator would, so that one scenario's trouble does not
        # take the nodes of the ones after it.
        for node, state in self.states().items():
            if state.startswith(("drain", "drng", "down")):
                self._run(["scontrol", "update", f"nodename={node}", "state=resume"])
        self._wait(quiet, timeout / 2, "every node idle and no job queued")
        return seen

    def logs(self, lines=15):
        out = []
        for f in sorted(os.listdir(self._path("log"))) if os.path.isdir(self._path("log")) else []:
            try:
                with open(self._path("log", f), errors="replace") as fh:
                    tail = fh.readlines()[-lines:]
            except OSError:
                continue
            out.append(f"--- {f}\n" + "".join(tail))
        return "".join(out)

    # ---- a node lost, a node back --------------------------------------------------
    def node_processes(self, node):
        """The pids of a node: its slurmd, its slurmstepds (found by the sockets in its spool
        directory) and everything under them, its tasks (SLURMD_NODENAME in their environment)."""
        pids = set()
        if node in self.procs and self.procs[node].poll() is None:
            pids.add(self.procs[node].pid)
        spool = self._path("spool", f"slurmd.{node}") + "/"
        inodes = set()
        try:
            with open("/proc/net/unix") as f:
                for line in f:
                    fields = line.split()
                    if len(fields) >= 8 and fields[7].startswith(spool):
                        inodes.add(f"socket:[{fields[6]}]")
        except OSError:
            pass
        marker = f"SLURMD_NODENAME={node}".encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read().split(b"\0")
                if marker in env and f"SLURM_CONF={self.conf}".encode() in env:
                    pids.add(int(entry))
                    continue
                for fd in os.listdir(f"/proc/{entry}/fd"):
                    if os.readlink(f"/proc/{entry}/fd/{fd}") in inodes:
                        pids.add(int(entry))
                        break
            except OSError:
                continue
        return descendants(pids)

    def kill_node(self, node, mark_down=True, reason="killed by the test"):
        """The node as a crash takes it: its slurmd, its step daemons and its tasks SIGKILLed;
        then (as an administrator or a health check would, instead of waiting for
        SlurmdTimeout) marked down."""
        kill_all(self.node_processes(node))
        p = self.procs.pop(node, None)  # a daemon no longer expected to run
        if p is not None:
            p.wait()
        if mark_down:
            self._run(["scontrol", "update", f"nodename={node}", "state=down", f"reason={reason}"])

    def revive_node(self, node, timeout=60):
        self._start_slurmd(node)
        self._run(["scontrol", "update", f"nodename={node}", "state=resume"])
        self.wait_idle([node], timeout)

    # ---- tear down ----------------------------------------------------------------
    def stop(self):
        # Jobs first (their steps' daemons are not our children), then the daemons, by pid.
        self._run(["scancel", "--full", "--user=root"], 10) if shutil.which("scancel") else None
        pids = set()
        for n in self.names:
            pids |= self.node_processes(n)
        for name, p in self.procs.items():
            if p.poll() is None:
                pids |= descendants([p.pid])
        kill_all(pids, signal.SIGTERM)
        end = time.monotonic() + 5
        while time.monotonic() < end and any(p.poll() is None for p in self.procs.values()):
            time.sleep(0.1)
        kill_all(pids | {p.pid for p in self.procs.values() if p.poll() is None})
        for p in self.procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.procs.clear()
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()
        return False


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["shell"])
    ap.add_argument("--nodes", type=int, default=4)
    a = ap.parse_args(argv)
    with Cluster(nodes=a.nodes) as c:
        print(f"Slurm up: {len(c.names)} nodes, SLURM_CONF={c.conf}; exit the shell to stop it", flush=True)
        return subprocess.call([os.environ.get("SHELL", "/bin/sh")], env=c.env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

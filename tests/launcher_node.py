#!/usr/bin/env python3
"""Per-process wrapper for tests/launcher_test.py: one host acting as the nodes gds-run hands out.

  mpiexec -n {tasks} launcher_node.py <program> [args...]

The process's rank (PMI_RANK for MPICH, OMPI_COMM_WORLD_RANK for Open MPI, PMIX_RANK) picks its
node from GDS_RUN_NODES (gds-run's nodes in use), LAUNCHER_TASKS_PER_NODE ranks per node, block
by block; the node's name gives GDS_NODE_ID (its digits) and its node-local cache directory
(GDS_CACHE_BASE=$LAUNCHER_ROOT/cache/<node>). The process writes its pid to
$LAUNCHER_ROOT/pids/<node>.r<rank> (a test kills it from there), and LAUNCHER_KILL
("attempt:rank:point:n;..." with attempt * for every attempt) arms GDS_TEST_KILL=<point>:<n> on that
rank in that attempt (GDS_RUN_ATTEMPT). Then it becomes the program (exec: the same pid).
"""
import os
import re
import sys

env = os.environ
rank = int(env.get("PMI_RANK") or env.get("OMPI_COMM_WORLD_RANK") or env.get("PMIX_RANK") or 0)
nodes = [n for n in env["GDS_RUN_NODES"].split(",") if n]
per = int(env.get("LAUNCHER_TASKS_PER_NODE", "1"))
node = nodes[min(rank // per, len(nodes) - 1)]
root = env["LAUNCHER_ROOT"]
env["GDS_NODE_ID"] = re.sub(r"\D", "", node) or "0"
env["GDS_CACHE_BASE"] = os.path.join(root, "cache", node)
os.makedirs(env["GDS_CACHE_BASE"], exist_ok=True)
os.makedirs(os.path.join(root, "pids"), exist_ok=True)
with open(os.path.join(root, "pids", f"{node}.r{rank}"), "w") as f:
    f.write(str(os.getpid()))
env.pop("GDS_TEST_KILL", None)
for spec in filter(None, env.get("LAUNCHER_KILL", "").split(";")):
    attempt, r, point, n = spec.split(":")
    if attempt in ("*", env.get("GDS_RUN_ATTEMPT")) and int(r) == rank:
        env["GDS_TEST_KILL"] = f"{point}:{n}"
os.execvp(sys.argv[1], sys.argv[1:])

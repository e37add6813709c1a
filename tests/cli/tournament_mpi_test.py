#!/usr/bin/env python3
"""`amazons tournament` under mpirun: three ranks (rank 0 hands out the games, two play) give
the same records and ratings as one process with two threads.

    tournament_mpi_test.py AMAZONS MPIEXEC"""
import json
import os
import subprocess
import sys
import tempfile

ARGS = ["tournament", "random", "greedy", "ab:depth=1", "uct:iters=100", "-g", "6"]


def records(out):
    with open(os.path.join(out, "records.jsonl")) as f:
        return [(j["pair"], j["game"], j["white"], j["black"], j["moves"], j["result"])
                for j in map(json.loads, f)]


def ratings(out):
    with open(os.path.join(out, "ratings.json")) as f:
        return f.read()


def main():
    amazons, mpiexec = sys.argv[1], sys.argv[2]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with tempfile.TemporaryDirectory() as tmp:
        threads, ranks = os.path.join(tmp, "threads"), os.path.join(tmp, "ranks")
        p = subprocess.run([amazons, *ARGS, "--threads", "2", "--out", threads],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            sys.exit(f"threads: exit {p.returncode}\n{p.stderr}")
        p = subprocess.run([mpiexec, "--oversubscribe", "-np", "3", amazons, *ARGS, "--out", ranks],
                           capture_output=True, text=True, timeout=600, env=env)
        if p.returncode != 0:
            sys.exit(f"mpirun: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        if records(threads) != records(ranks):
            sys.exit("the records differ between two threads and three MPI ranks")
        if ratings(threads) != ratings(ranks):
            sys.exit("the ratings differ between two threads and three MPI ranks")
        if "6 of 6 pairs played, 36 games" not in p.stdout:
            sys.exit(f"rank 0 did not print the crosstable\n{p.stdout}")
    print("tournament: three MPI ranks give the records and ratings of two threads")


if __name__ == "__main__":
    main()

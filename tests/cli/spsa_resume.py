#!/usr/bin/env python3
"""`amazons spsa` killed part-way goes on from its state as if it had not stopped: the same
weights and state as a run that was not stopped, and records that replay, one iteration's
games each, none twice.

    spsa_resume.py AMAZONS

The kill (SIGKILL: nothing to clean up) comes once the run reports its tenth iteration, so the
test waits on the program, not on a clock."""
import json
import os
import signal
import subprocess
import sys
import tempfile

EIGHT = "2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1"


def spsa(amazons, tmp, name):
    return [amazons, "spsa", "--spec", "ab:depth=1", "--iterations", "30", "--fen", EIGHT,
            "--seed", "4", "--state", os.path.join(tmp, name + ".state.json"),
            "--out", os.path.join(tmp, name + ".weights.json"),
            "--records", os.path.join(tmp, name + ".jsonl")]


def read(path):
    with open(path) as f:
        return f.read()


def main():
    amazons = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(spsa(amazons, tmp, "whole"), check=True, stdout=subprocess.DEVNULL)

        proc = subprocess.Popen(spsa(amazons, tmp, "cut"), stdout=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        for line in proc.stdout:  # the table's rows: every tenth iteration
            if line.startswith(b"10 "):
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait()
        state = json.loads(read(os.path.join(tmp, "cut.state.json")))
        if state["done"] < 10:
            sys.exit(f"the killed run's state holds {state['done']} iterations, not 10 or more")
        out = subprocess.run(spsa(amazons, tmp, "cut"), check=True, capture_output=True,
                             text=True).stdout
        if f"continuing {os.path.join(tmp, 'cut.state.json')} after {state['done']} " not in out:
            sys.exit("the second run did not continue the first:\n" + out)

        whole = json.loads(read(os.path.join(tmp, "whole.state.json")))
        cut = json.loads(read(os.path.join(tmp, "cut.state.json")))
        if whole["values"] != cut["values"] or cut["done"] != 30:
            sys.exit(f"continued run differs: {cut['values']} after {cut['done']}, "
                     f"against {whole['values']}")
        w1 = json.loads(read(os.path.join(tmp, "whole.weights.json")))
        w2 = json.loads(read(os.path.join(tmp, "cut.weights.json")))
        if (w1["opening"], w1["ending"]) != (w2["opening"], w2["ending"]):
            sys.exit("continued run wrote other weights")
        iterations = [json.loads(l)["iteration"]
                      for l in read(os.path.join(tmp, "cut.jsonl")).splitlines()]
        if iterations != sorted(iterations) or sorted(set(iterations)) != list(range(1, 31)) \
                or len(iterations) != 60:
            sys.exit(f"the records hold iterations {iterations}, not two games of each of 1..30")
        def games(name):  # the records but the thinking times
            out = []
            for line in read(os.path.join(tmp, name + ".jsonl")).splitlines():
                record = json.loads(line)
                del record["seconds"]
                out.append(record)
            return out
        if games("whole") != games("cut"):
            sys.exit("the continued run's games differ from the whole run's")
        subprocess.run([amazons, "replay", os.path.join(tmp, "cut.jsonl")], check=True,
                       stdout=subprocess.DEVNULL)
    print("spsa: killed after iteration", state["done"], "and continued: the same weights")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""SIGINT and SIGTERM during `amazons match`: the games already played are written (records and
--json summary of those games), the command says so on stderr and exits 128 + the signal, and
nothing else is left in the output directory.

    match_interrupt.py AMAZONS

The signal is sent once the match's progress line (stderr on a terminal: a pseudo-terminal
here) shows three games played, so the test waits on the program, not on a clock."""
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile


def run(amazons, sig, name):
    with tempfile.TemporaryDirectory() as tmp:
        records = os.path.join(tmp, "records.jsonl")
        summary = os.path.join(tmp, "summary.json")
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [amazons, "match", "random", "random", "--games", "1000000", "--records", records,
             "--json", summary],
            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        seen = b""
        sent = False
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                proc.kill()
                sys.exit(f"{name}: no progress within 120 s")
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the program ended and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if not sent:
                m = re.findall(rb"\] (\d+)/1000000", seen)
                if m and int(m[-1]) >= 3:
                    proc.send_signal(sig)
                    sent = True
        out = proc.stdout.read().decode()
        code = proc.wait(timeout=120)
        os.close(master)
        err = seen.decode(errors="replace")
        show = f"exit {code}\n--- stdout ---\n{out}\n--- stderr ---\n{err}"
        if code != 128 + sig:
            sys.exit(f"{name}: expected exit {128 + sig}\n{show}")
        m = re.search(r"interrupted by (SIG\w+) after (\d+) of 1000000 games", err)
        if not m or m.group(1) != name:
            sys.exit(f"{name}: no 'interrupted by {name} after N of 1000000 games' line\n{show}")
        played = int(m.group(2))
        if played < 3:
            sys.exit(f"{name}: {played} games reported, at least 3 were played\n{show}")
        with open(records) as f:
            lines = [l for l in f.read().splitlines() if l]
        if len(lines) != played:
            sys.exit(f"{name}: {len(lines)} records for {played} games\n{show}")
        if [json.loads(l)["game"] for l in lines] != list(range(played)):
            sys.exit(f"{name}: the records are not games 0 to {played - 1} in order\n{show}")
        with open(summary) as f:
            s = json.load(f)
        if s["games"] != played or not s["interrupted"] or s["games_planned"] != 1000000:
            sys.exit(f"{name}: summary {s} does not describe the {played} games\n{show}")
        left = sorted(os.listdir(tmp))
        if left != ["records.jsonl", "summary.json"]:
            sys.exit(f"{name}: the directory holds {left}\n{show}")
        replay = subprocess.run([amazons, "replay", records], capture_output=True, text=True)
        if replay.returncode != 0 or not replay.stdout.startswith(f"{played} games replayed"):
            sys.exit(f"{name}: the records do not replay: {replay.stdout}{replay.stderr}")
        print(f"{name}: {played} games written and replayed, exit {code}")


def main():
    amazons = sys.argv[1]
    run(amazons, signal.SIGINT, "SIGINT")
    run(amazons, signal.SIGTERM, "SIGTERM")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""An independent referee for gsearch agents, spoken to through `amazons engine`.

What it checks: how strong an agent really is, and that every move it plays is legal.
It plays whole games against a uniformly random player (or a second engine), asks the
engine for its move through the line protocol of docs/engine-protocol.md, and judges every
answer by its own rules: an illegal or malformed move, `bestmove none` while a move exists,
an `error` answer, a crash or a timeout is a forfeit loss, reported with the reason.

Why it is independent: the rules of the Game of the Amazons (10x10, White a4 d1 g1 j4, Black
a7 d10 g10 j7, White first; a queen move, then an arrow shot like a queen from the new
square; a player who cannot move loses) are written here from scratch in plain Python,
sharing no code with the C++ project, whose only part used is the `amazons` binary as a
black box. `--selftest` checks the move generator: 2176 moves at the start, perft(2) =
4,307,152. `--fen` starts every game from a position of its own (a smaller board, such as
the 8x8 start "2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1"), read by the same rules; `--book
FILE` starts pair p from the book's position p mod its size, as `amazons match --book` does
(the books of examples/amazons/books hold 100 balanced openings each).

  python3 tools/referee.py --amazons build/release/bin/amazons --spec hybrid:n=30 --games 40

With --opponent-spec the opponent is a second engine, and with --opponent-amazons that engine
is another build, so one build can be played against another (a speed-up against the code
before it, at the same time a move):

  python3 tools/referee.py --amazons new/bin/amazons --spec invader:ms=1000 \
      --opponent-amazons old/bin/amazons --opponent-spec invader:ms=1000 --games 40 --jobs 2

Games are played in pairs that share their opening, the engine White in one and Black in the
other; the result is the engine's score with its Wilson interval over games and, as `amazons
match` reports it, the Elo difference with its pentanomial interval over pairs. `--sprt
elo0=0,elo1=50` stops the match once a sequential probability ratio test over the pairs (the
same test as `amazons match --sprt`) accepts one of its hypotheses, `--games` being the cap.
`--records FILE` appends every game to FILE, one JSON line each, which `amazons replay FILE`
checks move by move.

Exit status: 0, 1 if any forfeit happened, 2 on bad arguments or an engine that cannot start.
"""
import argparse
import json
import math
import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time

# ---------------------------------------------------------------------------- the rules
# A 12x12 array: the 10x10 board inside a frame of blocked squares, so rays stop by
# themselves. Square (col, row), both 0..9 (a..j, 1..10), is index (row + 1) * 12 + col + 1.
EMPTY, WHITE, BLACK, BLOCKED = 0, 1, 2, 3
DIRS = (1, -1, 12, -12, 11, -11, 13, -13)  # E W N S, NW SE, NE SW
COLOR = {WHITE: "white", BLACK: "black"}


def sq(name):
    return int(name[1:]) * 12 + "abcdefghij".index(name[0]) + 1


def sq_name(i):
    return "abcdefghij"[i % 12 - 1] + str(i // 12)


MOVE_RE = re.compile(r"^([a-j](?:10|[1-9]))-([a-j](?:10|[1-9]))/([a-j](?:10|[1-9]))$")


def parse_move(text):
    """'d1-d6/g9' -> (from, to, arrow) square indices, or None when malformed."""
    m = MOVE_RE.match(text)
    return tuple(sq(s) for s in m.groups()) if m else None


def move_text(move):
    f, t, a = move
    return f"{sq_name(f)}-{sq_name(t)}/{sq_name(a)}"


START_FEN = "3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1"


class Position:
    def __init__(self, fen=START_FEN):
        """The position of a FEN: ranks from the top, Q/q queens, * arrows, digits for runs of
        empty squares, then w or b to move. A board smaller than 10x10 sits in the lower left
        corner (a1 is a1); the squares outside it stay blocked. Raises ValueError."""
        fields = fen.split()
        if len(fields) < 2 or fields[1] not in ("w", "b"):
            raise ValueError(f"bad FEN {fen!r}: expected the board, then w or b")
        ranks = fields[0].split("/")
        cells = []
        for rank in ranks:
            row = []
            for run in re.findall(r"\d+|.", rank):
                if run.isdigit():
                    row += [EMPTY] * int(run)
                elif run in "Qq*":
                    row.append({"Q": WHITE, "q": BLACK, "*": BLOCKED}[run])
                else:
                    raise ValueError(f"bad FEN {fen!r}: {run!r} is not Q, q, * or a digit")
            cells.append(row)
        width = len(cells[0])
        if not 1 <= len(cells) <= 10 or not 1 <= width <= 10 or any(len(r) != width for r in cells):
            raise ValueError(f"bad FEN {fen!r}: ranks of unequal length or a board over 10x10")
        self.board = [BLOCKED] * 144
        self.queens = {WHITE: [], BLACK: []}
        for i, row in enumerate(cells):
            for col, cell in enumerate(row):
                s = (len(cells) - i) * 12 + col + 1  # the top rank of the FEN is the last row
                self.board[s] = cell
                if cell in self.queens:
                    self.queens[cell].append(s)
        self.side = WHITE if fields[1] == "w" else BLACK

    def legal_moves(self):
        """Every whole move (from, to, arrow) of the side to move, in a fixed order."""
        board, side, moves = self.board, self.side, []
        for q in self.queens[side]:
            board[q] = EMPTY  # the square the queen leaves is free for its arrow
            for d in DIRS:
                t = q + d
                while board[t] == EMPTY:
                    for d2 in DIRS:
                        a = t + d2
                        while board[a] == EMPTY:
                            moves.append((q, t, a))
                            a += d2
                    t += d
            board[q] = side
        return moves

    def play(self, move):
        f, t, a = move
        qs = self.queens[self.side]
        qs[qs.index(f)] = t
        self.board[f], self.board[t], self.board[a] = EMPTY, self.side, BLOCKED
        self.side = BLACK if self.side == WHITE else WHITE

    def undo(self, move):
        f, t, a = move
        self.side = BLACK if self.side == WHITE else WHITE
        qs = self.queens[self.side]
        qs[qs.index(t)] = f
        self.board[a], self.board[t], self.board[f] = EMPTY, EMPTY, self.side


def perft(pos, depth):
    if depth == 1:
        return len(pos.legal_moves())
    total = 0
    for m in pos.legal_moves():
        pos.play(m)
        total += perft(pos, depth - 1)
        pos.undo(m)
    return total


# ---------------------------------------------------------------------------- the engine
class StartError(Exception):
    """The engine binary could not be started at all."""


class Forfeit(Exception):
    """The engine broke the protocol or the rules; the message says how."""


def short(command):
    return command if len(command) <= 60 else command[:57] + "..."


class Engine:
    """One `amazons engine --agent SPEC` process; ask() writes a command, reads one line."""

    def __init__(self, amazons, spec, timeout, fen=None):
        self.timeout, self.buf, self.seconds = timeout, b"", 0.0
        self.fen = fen or "startpos"
        self.err = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen([amazons, "engine", "--agent", spec],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.err)
        except OSError as e:
            raise StartError(f"cannot start {amazons}: {e.strerror or e}") from None

    def _death(self):
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        self.err.seek(0)
        lines = self.err.read().decode(errors="replace").strip().splitlines()
        return f"exited with code {code}" + (f" ({lines[-1]})" if lines else "")

    def ask(self, command):
        shown = short(command)
        try:
            self.proc.stdin.write((command + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            raise Forfeit(f"engine {self._death()} before '{shown}'") from None
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.proc.kill()
                raise Forfeit(f"no answer to '{shown}' within {self.timeout:g} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise Forfeit(f"engine {self._death()} on '{shown}'")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        line = line.decode(errors="replace").strip()
        if line.startswith("error"):
            raise Forfeit(f"engine answered '{line}' to '{shown}'")
        return line

    def expect_ok(self, command):
        answer = self.ask(command)
        if answer != "ok":
            raise Forfeit(f"engine answered '{answer}' to '{short(command)}', not 'ok'")

    def best_move(self, history, pos, go="go"):
        """Ask for the move in pos (reached by history); check it by our rules."""
        start = time.monotonic()
        self.expect_ok(f"position {self.fen}" + ("" if not history else " moves " + " ".join(history)))
        answer = self.ask(go)
        self.seconds = time.monotonic() - start  # the engine's time: position, go, bestmove
        if not answer.startswith("bestmove "):
            raise Forfeit(f"engine answered '{answer}' to 'go'")
        text = answer[len("bestmove "):].strip()
        legal = pos.legal_moves()
        if text == "none":
            raise Forfeit(f"bestmove none with {len(legal)} legal moves (ply {len(history)})")
        move = parse_move(text)
        if move is None:
            raise Forfeit(f"malformed move '{text}' (ply {len(history)})")
        if move not in set(legal):
            raise Forfeit(f"illegal move '{text}' for {COLOR[pos.side]} (ply {len(history)})")
        return move

    def close(self):
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.err.close()


# ---------------------------------------------------------------------------- a game
def pair_start(opts, pair):
    """The FEN pair `pair` starts from: the book's position pair mod its size (as `amazons
    match --book` takes them), else --fen, else the 10x10 start."""
    if opts.book_fens:
        return opts.book_fens[pair % len(opts.book_fens)]
    return opts.fen or START_FEN


def read_book(path):
    """The FENs of an opening book (`amazons book` writes one): one per line, blank lines and
    lines starting with '#' skipped. Raises ValueError naming the file and line."""
    fens = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if line.split()[0].count("/") < 2:
                    raise ValueError(f"{path}:{number}: not a FEN (the referee reads books of "
                                     "positions, as `amazons book` writes them)")
                try:
                    pos = Position(line)
                except ValueError as e:
                    raise ValueError(f"{path}:{number}: {e}") from None
                if not pos.legal_moves():
                    raise ValueError(f"{path}:{number}: the game is already over")
                fens.append(line)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file") from None
    if not fens:
        raise ValueError(f"{path}: no positions")
    return fens


def play_game(opts, game):
    """Plays game `game`; returns a dict of what happened (see report())."""
    engine_color = WHITE if game % 2 == 0 else BLACK
    rng = random.Random(opts.seed * 1000 + game)
    start_fen = pair_start(opts, game // 2)
    pos, history, seconds = Position(start_fen), [], []
    # Both games of a pair share the opening: its RNG depends on the pair only.
    opening_rng = random.Random(f"{opts.seed}:opening:{game // 2}")
    for _ in range(opts.openings):
        moves = pos.legal_moves()
        if not moves:
            break
        move = opening_rng.choice(moves)
        pos.play(move)
        history.append(move_text(move))
    engine = opponent = None
    actor, forfeit = "engine", None
    # With --clock, both engines play on a clock the referee keeps: the wall time from sending
    # `position` to reading `bestmove` (input and output included; the referee's own check of
    # the move not) is charged to the mover.
    clock = {WHITE: opts.clock_ms[0], BLACK: opts.clock_ms[0]} if opts.clock_ms else None
    least_left = None

    def ask_move(eng):
        nonlocal least_left
        if not clock:
            return eng.best_move(history, pos)
        inc = opts.clock_ms[1]
        go = (f"go wtime {max(0, int(clock[WHITE]))} btime {max(0, int(clock[BLACK]))}"
              f" winc {inc} binc {inc}")
        move = eng.best_move(history, pos, go)
        clock[pos.side] -= 1000 * eng.seconds
        if eng is engine:
            least_left = clock[pos.side] if least_left is None else min(least_left, clock[pos.side])
        if clock[pos.side] < 0:
            raise Forfeit(f"lost on time, {-clock[pos.side]:.0f} ms over (ply {len(history)})")
        clock[pos.side] += inc
        return move

    try:
        engine = Engine(opts.amazons, opts.spec, opts.timeout, start_fen)
        engine.expect_ok("new")
        if opts.opponent_spec:
            actor = "opponent"
            opponent = Engine(opts.opponent_amazons or opts.amazons, opts.opponent_spec,
                              opts.timeout, start_fen)
            opponent.expect_ok("new")
        while pos.legal_moves():  # the side to move without a move has lost
            if pos.side == engine_color:
                actor, start = "engine", time.monotonic()
                move = ask_move(engine)
                seconds.append(time.monotonic() - start)
            elif opponent:
                actor = "opponent"
                move = ask_move(opponent)
            else:
                move = rng.choice(pos.legal_moves())
            pos.play(move)
            history.append(move_text(move))
        loser = pos.side
    except Forfeit as f:
        forfeit = f"({actor}) {f}"
        loser = engine_color if actor == "engine" else WHITE + BLACK - engine_color
    finally:
        for eng in (engine, opponent):
            if eng:
                eng.close()
    return {"game": game, "start": start_fen, "color": engine_color,
            "winner": WHITE + BLACK - loser, "plies": len(history), "forfeit": forfeit,
            "mean_s": sum(seconds) / len(seconds) if seconds else 0.0, "least_left": least_left,
            "moves": history, "opening_plies": min(opts.openings, len(history))}


def report(r):
    line = (f"game {r['game']:3d}  engine {COLOR[r['color']]:5s}  winner {COLOR[r['winner']]:5s}"
            f" ({'engine' if r['winner'] == r['color'] else 'opponent'})"
            f"  plies {r['plies']:3d}  engine {r['mean_s']:.3f} s/move")
    if r["least_left"] is not None:
        line += f"  least on its clock {r['least_left'] / 1000:.2f} s"
    if r["forfeit"]:
        line += f"  FORFEIT {r['forfeit']}"
    print(line, flush=True)


def record_line(opts, r):
    """The game as a records line of `amazons match --records` (what `amazons replay` reads).
    A forfeited game did not reach its end: its result is "*" and `forfeit` says why."""
    engine = opts.spec
    other = opts.opponent_spec or "random"
    white, black = (engine, other) if r["color"] == WHITE else (other, engine)
    result = "*" if r["forfeit"] else "1-0" if r["winner"] == WHITE else "0-1"
    return json.dumps({"game": r["game"], "white": white, "black": black,
                       "a_first": r["color"] == WHITE, "start": r["start"],
                       "opening_plies": r["opening_plies"], "moves": r["moves"],
                       "result": result, "winner": COLOR[r["winner"]], "forfeit": r["forfeit"],
                       "engine_mean_s": round(r["mean_s"], 4)})


def wilson(wins, n, z=1.959964):
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


# ------------------------------------------------------------- pairs: Elo and the SPRT
# The formulas of gsearch/arena/sprt.hpp, written again here. A pair's score is the engine's
# points over its two games, 0 to 2 in halves: counts[i] is the number of pairs that scored
# i / 2 (Amazons has no draws, so only 0, 1 and 2 occur).
def elo_difference(p):
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return -400 * math.log10(1 / p - 1)


def logistic_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def pair_summary(counts, z=1.959963984540054):
    """(score per game, its interval, Elo, its interval) from the pentanomial counts, with one
    virtual pair, half lost and half won, in the variance (as summarize_pairs does)."""
    n = sum(counts)
    if n == 0:
        return 0.5, (0.0, 1.0), 0.0, (-math.inf, math.inf)
    mean = sum(c * i / 4 for i, c in enumerate(counts)) / n
    c = list(counts)
    c[0] += 0.5
    c[4] += 0.5
    m1 = sum(ci * i / 4 for i, ci in enumerate(c)) / (n + 1)
    m2 = sum(ci * (i / 4) ** 2 for i, ci in enumerate(c)) / (n + 1)
    se = math.sqrt((m2 - m1 * m1) / n)
    lo, hi = max(0.0, mean - z * se), min(1.0, mean + z * se)
    return mean, (lo, hi), elo_difference(mean), (elo_difference(lo), elo_difference(hi))


def pentanomial_llr(counts, s0, s1):
    """The log-likelihood ratio of mean pair score s1 against s0 (per game), each hypothesis
    the distribution closest to the observed one with that mean."""
    n = sum(counts)
    if n == 0:
        return 0.0
    p = [max(1e-3, c) for c in counts]
    total = sum(p)
    p = [x / total for x in p]

    def closest(s):
        v = [i / 4 - s for i in range(5)]
        lo = max([-1 / x for x in v if x > 0], default=-1e300)
        hi = min([-1 / x for x in v if x < 0], default=1e300)
        margin = 1e-12 * (hi - lo)
        lo, hi = lo + margin, hi - margin
        for _ in range(200):
            mid = (lo + hi) / 2
            if sum(pi * vi / (1 + mid * vi) for pi, vi in zip(p, v)) > 0:
                lo = mid
            else:
                hi = mid
        x = (lo + hi) / 2
        return [pi / (1 + x * vi) for pi, vi in zip(p, v)]

    q0, q1 = closest(s0), closest(s1)
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1))


def parse_sprt(text):
    """elo0=A,elo1=B[,alpha=X,beta=Y] -> dict; ValueError naming what is wrong."""
    values = {"alpha": 0.05, "beta": 0.05}
    for item in text.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"{item!r} is not elo0=, elo1=, alpha= or beta= a number")
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"{key}: {value!r} is not a number") from None
        if not math.isfinite(values[key]):
            raise ValueError(f"{key}: {value!r} is not a finite number")
    if "elo0" not in values or "elo1" not in values:
        raise ValueError("give both elo0 and elo1")
    if not values["elo0"] < values["elo1"]:
        raise ValueError(f"elo0 ({values['elo0']:g}) must be below elo1 ({values['elo1']:g})")
    if not (0 < values["alpha"] < 0.5 and 0 < values["beta"] < 0.5):
        raise ValueError("alpha and beta must be in (0, 0.5)")
    values["lower"] = math.log(values["beta"] / (1 - values["alpha"]))
    values["upper"] = math.log((1 - values["beta"]) / values["alpha"])
    return values


# ---------------------------------------------------------------------------- self-test
def selftest():
    ok = True

    def check(name, got, want):
        nonlocal ok
        ok &= got == want
        print(f"{'ok  ' if got == want else 'FAIL'} {name}: {got}" + ("" if got == want else f" (want {want})"))

    pos = Position()
    start = pos.legal_moves()
    check("legal moves at the start", len(start), 2176)
    check("moves are distinct", len(set(start)), 2176)
    check("text round trip", all(parse_move(move_text(m)) == m for m in start), True)
    check("d1-d6/g9 parsed", move_text(parse_move("d1-d6/g9")), "d1-d6/g9")
    check("malformed moves rejected", [parse_move(t) for t in ("d1d6,d6g9", "k1-d6/g9", "d1-d11/g9",
                                                             "d0-d6/g9", "d1-d6/g9 ")], [None] * 5)
    check("arrow back to the square left", parse_move("d1-d2/d1") in start, True)
    check("no knight moves", parse_move("d1-e3/e4") in start, False)
    check("no jumping over a queen", parse_move("a4-a8/b8") in start, False)
    pos.play(parse_move("d1-d6/g9"))
    print(f"info Black's legal moves after d1-d6/g9: {len(pos.legal_moves())}")
    check("arrow square is blocked", parse_move("g10-g9/g8") in pos.legal_moves(), False)
    pos.undo(parse_move("d1-d6/g9"))
    check("undo restores the start", pos.legal_moves() == start and pos.side == WHITE, True)
    # A queen walled in by arrows has no move: the side to move loses.
    boxed = Position()
    for name in ("c1", "c2", "d2", "e2", "e1"):
        boxed.board[sq(name)] = BLOCKED
    boxed.queens[WHITE] = [sq("d1")]
    for name in ("a4", "g1", "j4"):
        boxed.board[sq(name)] = EMPTY
    check("walled-in side has no move", len(boxed.legal_moves()), 0)
    small = Position("2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1")
    check("8x8: queens from the FEN", sorted(map(sq_name, small.queens[WHITE])),
          ["a3", "c1", "f1", "h3"])
    check("8x8: legal moves at the start", len(small.legal_moves()), 1232)
    check("8x8: no move leaves the board", all(max(f % 12, t % 12, a % 12) <= 8
                                               and max(f, t, a) // 12 <= 8
                                               for f, t, a in small.legal_moves()), True)
    check("the start FEN is the start", Position(START_FEN).legal_moves() == start, True)
    for bad in ("3q2q3/10 x", "3q2q3/10/9", "3k6/10 w", "11/11/11/11/11/11/11/11/11/11/11 w"):
        try:
            Position(bad)
            check(f"bad FEN {bad!r} rejected", False, True)
        except ValueError:
            check(f"bad FEN {bad!r} rejected", True, True)
    # Pairs: the values gsearch/arena/sprt.hpp gives for the same counts (tests/arena/sprt.cpp
    # pins the C++ side).
    counts = [10, 0, 25, 0, 15]
    score, _, elo, (elo_lo, elo_hi) = pair_summary(counts)
    check("pair summary: score", round(score, 4), 0.55)
    check("pair summary: Elo and its interval", [round(elo, 1), round(elo_lo, 1), round(elo_hi, 1)],
          [34.9, -33.5, 106.0])
    check("pentanomial LLR (0 vs 50 Elo)", round(pentanomial_llr(counts, logistic_score(0),
                                                                 logistic_score(50)), 4), 0.4088)
    check("pentanomial LLR, no pairs", pentanomial_llr([0] * 5, 0.5, 0.6), 0.0)
    for bad in ("elo0=0", "elo0=0,elo1=x", "elo0=5,elo1=5", "elo0=0,elo1=5,alpha=0.6", "e=1"):
        try:
            parse_sprt(bad)
            check(f"bad --sprt {bad!r} rejected", False, True)
        except ValueError:
            check(f"bad --sprt {bad!r} rejected", True, True)
    t = time.monotonic()
    check("perft(2) from the start", perft(Position(), 2), 4307152)
    print(f"info perft(2) took {time.monotonic() - t:.1f} s")
    print("selftest " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


# ---------------------------------------------------------------------------- main
class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line on stderr, exit 2
        sys.stderr.write(f"referee.py: error: {message}\n")
        sys.exit(2)


def main(argv):
    p = Parser(description=__doc__.splitlines()[0])
    p.add_argument("--amazons", help="the amazons binary")
    p.add_argument("--spec", help="the agent under test (amazons agents lists them)")
    p.add_argument("--opponent-spec", help="a second engine's agent instead of the random player")
    p.add_argument("--opponent-amazons", help="the second engine's binary (default: --amazons),"
                   " to play one build against another")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--openings", type=int, default=0, help="random plies opening each pair")
    p.add_argument("--fen", help="the position every game starts from (default: the 10x10 start)")
    p.add_argument("--book", help="an opening book of FENs (amazons book writes one): pair p"
                   " starts from its position p mod its size (--openings random plies after it)")
    p.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for an answer")
    p.add_argument("--clock", help="play on a clock, BASE+INC in seconds (e.g. 10+0.1): the engines"
                   " get go wtime/btime, and a side whose clock runs out forfeits")
    p.add_argument("--sprt", help="stop once a sequential test over the pairs decides:"
                   " elo0=A,elo1=B[,alpha=X,beta=Y] (logistic Elo; alpha and beta 0.05)")
    p.add_argument("--records", help="append every game to this file, one JSON line each"
                   " (amazons replay checks it)")
    p.add_argument("--selftest", action="store_true", help="check the rules and exit")
    opts = p.parse_args(argv)
    opts.clock_ms = None
    if opts.clock is not None:
        m = re.fullmatch(r"(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?", opts.clock)
        if not m or float(m.group(1)) <= 0:
            p.error(f"--clock {opts.clock!r} is not BASE+INC in seconds, e.g. 10+0.1")
        opts.clock_ms = (1000 * float(m.group(1)), int(1000 * float(m.group(2) or 0)))
    if opts.selftest:
        return selftest()
    if not opts.amazons or not opts.spec:
        p.error("--amazons and --spec are required (or --selftest)")
    for name in ("games", "jobs"):
        if getattr(opts, name) < 1:
            p.error(f"--{name} must be at least 1")
    if opts.openings < 0 or opts.seed < 0 or not opts.timeout > 0:
        p.error("--openings and --seed must be >= 0, --timeout > 0")
    if opts.fen is not None:
        try:
            Position(opts.fen)
        except ValueError as e:
            p.error(f"--fen: {e}")
    opts.book_fens = None
    if opts.book is not None:
        if opts.fen is not None:
            p.error("--book and --fen: give one (a book's positions are the starts)")
        try:
            opts.book_fens = read_book(opts.book)
        except ValueError as e:
            p.error(f"--book: {e}")
    opts.sprt_params = None
    if opts.sprt is not None:
        try:
            opts.sprt_params = parse_sprt(opts.sprt)
        except ValueError as e:
            p.error(f"--sprt {opts.sprt!r}: {e}")
    if opts.opponent_amazons and not opts.opponent_spec:
        p.error("--opponent-amazons needs --opponent-spec")
    for binary in (opts.amazons, opts.opponent_amazons or opts.amazons):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            p.error(f"cannot start {binary}: not an executable file")
    records = None
    if opts.records is not None:
        try:  # appended to: a file of earlier games keeps them
            records = open(opts.records, "a", encoding="utf-8")
        except OSError as e:
            p.error(f"--records: cannot open {opts.records} for appending: {e.strerror}")
    results, counts, sprt = [], [0] * 5, opts.sprt_params
    decided = None

    def on_result(r):  # False once the SPRT has decided: no more games are started
        nonlocal decided
        results.append(r)
        report(r)
        if records:
            records.write(record_line(opts, r) + "\n")
            records.flush()
        if r["game"] % 2 == 1:  # a pair is complete (games arrive in order)
            pair = sum(x["winner"] == x["color"] for x in results[-2:])
            counts[2 * pair] += 1
            if sprt and not decided:
                llr = pentanomial_llr(counts, logistic_score(sprt["elo0"]),
                                      logistic_score(sprt["elo1"]))
                if llr >= sprt["upper"] or llr <= sprt["lower"]:
                    decided = (r["game"] // 2 + 1, "H1" if llr > 0 else "H0", llr)
        return not decided

    try:
        run_games(opts, on_result)
    except StartError as e:
        sys.stderr.write(f"referee.py: error: {e}\n")
        return 2
    finally:
        if records:
            records.close()
    wins = sum(r["winner"] == r["color"] for r in results)
    forfeits = [r for r in results if r["forfeit"]]
    lo, hi = wilson(wins, len(results))
    print(f"engine {opts.spec}: {wins} wins, {len(results) - wins} losses of {len(results)} games:"
          f" {100 * wins / len(results):.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%]")
    if sum(counts):
        score, _, elo, (elo_lo, elo_hi) = pair_summary(counts)
        print(f"pairs: {sum(counts)} (lost both {counts[0]}, split {counts[2]}, won both"
              f" {counts[4]}): Elo {elo:+.0f} [{elo_lo:+.0f}, {elo_hi:+.0f}] (pentanomial)")
    if sprt:
        llr = pentanomial_llr(counts, logistic_score(sprt["elo0"]), logistic_score(sprt["elo1"]))
        bounds = f"bounds [{sprt['lower']:.2f}, {sprt['upper']:.2f}]"
        if decided:
            print(f"sprt elo0={sprt['elo0']:g} elo1={sprt['elo1']:g}: {decided[1]} accepted after"
                  f" {decided[0]} pairs (LLR {decided[2]:.2f}, {bounds}); LLR over all {llr:.2f}")
        else:
            print(f"sprt elo0={sprt['elo0']:g} elo1={sprt['elo1']:g}: undecided after"
                  f" {sum(counts)} pairs (LLR {llr:.2f}, {bounds})")
    if forfeits:
        print(f"forfeits: {len(forfeits)} (games {', '.join(str(r['game']) for r in forfeits)})")
    return 1 if forfeits else 0


def run_games(opts, on_result):
    """Plays games 0, 1, ... up to --games, --jobs at a time, and hands each result to
    on_result in the order of the games; once on_result returns False no game is started,
    and those already playing finish and are handed on too."""
    if opts.jobs == 1:
        for g in range(opts.games):
            if not on_result(play_game(opts, g)):
                return
        return
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=opts.jobs) as pool:
        playing, started, go_on = {}, 0, True
        for g in range(opts.games):
            while go_on and started < opts.games and len(playing) < opts.jobs:
                playing[started] = pool.submit(play_game, opts, started)
                started += 1
            if g not in playing:
                return
            go_on = on_result(playing.pop(g).result()) and go_on


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

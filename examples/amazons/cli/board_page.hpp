// cli/board_page.hpp — the page `amazons serve` serves: a board, play against an agent, set up a
// position, step through a records file, the engine's analysis. Self-contained (no CDN, no
// fonts to fetch); it speaks to the JSON API of serve_commands.cpp. @AGENT@ is replaced by the
// default agent spec.
//
// Mouse: click a queen, its destination, then the arrow's square (click the queen again
// before its destination to start over). Keys: g engine move, u take back, n new game, ← → step
// through records, Escape clears the selection.
#pragma once

namespace amazons::cli {

inline constexpr const char* kBoardPage = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gsearch: the Game of the Amazons</title>
<style>
body { font-family: system-ui, sans-serif; margin: 16px; color: #222; }
#main { display: flex; gap: 24px; align-items: flex-start; }
#board { display: grid; border: 2px solid #444; user-select: none; }
.cell { width: 44px; height: 44px; display: flex; align-items: center; justify-content: center;
        font-size: 30px; cursor: pointer; position: relative; }
.light { background: #eed9b6; } .dark { background: #b88a5a; }
.wq { color: #fff; text-shadow: 0 0 2px #000, 0 0 2px #000; } .bq { color: #111; }
.arrow::after { content: ""; width: 18px; height: 18px; border-radius: 50%; background: #444; }
.sel { outline: 3px solid #1f77b4; outline-offset: -3px; }
.target::before { content: ""; position: absolute; width: 12px; height: 12px; border-radius: 50%;
                  background: rgba(31, 119, 180, .6); }
.last { box-shadow: inset 0 0 0 3px rgba(214, 39, 40, .7); }
.mark span.visits { position: absolute; right: 2px; bottom: 0; font-size: 10px; color: #d62728; }
.coord { font-size: 11px; color: #555; display: flex; align-items: center; justify-content: center; }
#side { max-width: 420px; } #side label { display: block; margin: 6px 0; }
#status { font-weight: 600; min-height: 1.4em; margin-bottom: 8px; }
#fen, #agent { width: 100%; box-sizing: border-box; font-family: monospace; }
#analysis table { border-collapse: collapse; font-size: 13px; } #analysis td { padding: 1px 8px; }
#moves { font-family: monospace; font-size: 13px; max-height: 220px; overflow: auto; }
button { margin: 2px 2px 2px 0; }
</style></head>
<body>
<h2>The Game of the Amazons</h2>
<div id="main">
  <div><div id="board" aria-label="board"></div></div>
  <div id="side">
    <div id="status">Loading…</div>
    <label>Agent <input id="agent" value="@AGENT@"></label>
    <label>You play <select id="colour">
      <option value="white">White</option><option value="black">Black</option>
      <option value="both">both sides</option></select></label>
    <button id="new">New game (n)</button><button id="engine">Engine move (g)</button><button id="undo">Take back (u)</button>
    <label>FEN <input id="fen"></label><button id="setfen">Set position</button>
    <label>Records file <input type="file" id="records"></label>
    <div><button id="prev">◀ (←)</button> <span id="gameinfo"></span> <button id="next">(→) ▶</button></div>
    <div id="analysis"></div>
    <ol id="moves"></ol>
  </div>
</div>
<script>
"use strict";
const S = { fen: null, legal: [], over: false, toMove: "white", winner: null, history: [],
            sel: [], busy: false, marks: {}, last: null, replay: null };
window.gsearchBoard = S;  // for tests and the curious
const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                body: JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || r.statusText);
  return j;
}
function squares(fen) {  // rows top first; each a list of '.', 'Q', 'q', '*'
  return fen.split(" ")[0].split("/").map((row) => {
    const out = [];
    for (const m of row.matchAll(/(\d+)|([Qq*])/g))
      if (m[1]) for (let k = 0; k < +m[1]; ++k) out.push("."); else out.push(m[2]);
    return out;
  });
}
const name = (file, rank) => String.fromCharCode(97 + file) + (rank + 1);
const parts = (move) => { const m = move.match(/^([a-z]\d+)-([a-z]\d+)\/([a-z]\d+)$/); return m ? [m[1], m[2], m[3]] : null; };
function mine() {
  const c = $("colour").value;
  return !S.replay && !S.over && (c === "both" || c === S.toMove);
}
function setStatus(text) { $("status").textContent = text; }
function describe() {
  if (S.replay) return;
  if (S.over) setStatus(`Game over: ${S.winner === "white" ? "White" : "Black"} wins.`);
  else if (S.busy) setStatus(`${S.toMove === "white" ? "White" : "Black"}: the engine is thinking…`);
  else setStatus(`${S.toMove === "white" ? "White" : "Black"} to move` + (mine() ? " (you)." : "."));
}
function render() {
  const grid = squares(S.fen), rows = grid.length, cols = grid[0].length;
  const b = $("board");
  b.style.gridTemplateColumns = `20px repeat(${cols}, 44px)`;
  b.innerHTML = "";
  const step = S.sel.length;
  const targets = new Set(S.legal.map(parts).filter((p) => p && S.sel.every((s, i) => p[i] === s)).map((p) => p[step]));
  const lastSquares = S.last ? parts(S.last) : [];
  for (let r = 0; r < rows; ++r) {
    const rank = rows - 1 - r;
    const label = document.createElement("div"); label.className = "coord"; label.textContent = rank + 1; b.appendChild(label);
    for (let f = 0; f < cols; ++f) {
      const sq = name(f, rank), c = grid[r][f];
      const d = document.createElement("div");
      d.className = "cell " + ((f + rank) % 2 ? "light" : "dark");
      d.dataset.square = sq;
      if (c === "Q") { d.textContent = "♛"; d.classList.add("wq"); }
      if (c === "q") { d.textContent = "♛"; d.classList.add("bq"); }
      if (c === "*") d.classList.add("arrow");
      if (S.sel.includes(sq)) d.classList.add("sel");
      if (step > 0 && step < 3 && targets.has(sq)) d.classList.add("target");
      if (lastSquares.includes(sq)) d.classList.add("last");
      if (S.marks[sq]) { d.classList.add("mark"); const v = document.createElement("span"); v.className = "visits"; v.textContent = S.marks[sq]; d.appendChild(v); }
      d.addEventListener("click", () => click(sq));
      b.appendChild(d);
    }
  }
  b.appendChild(document.createElement("div"));
  for (let f = 0; f < cols; ++f) { const l = document.createElement("div"); l.className = "coord"; l.textContent = String.fromCharCode(97 + f); b.appendChild(l); }
  $("fen").value = S.fen;
  $("moves").innerHTML = S.history.map((m) => `<li>${m}</li>`).join("");
  document.body.dataset.fen = S.fen;
  document.body.dataset.over = S.over ? "yes" : "no";
  document.body.dataset.busy = S.busy ? "yes" : "no";
  describe();
}
function setState(st) {
  S.fen = st.fen; S.legal = st.legal; S.over = st.over; S.toMove = st.to_move; S.winner = st.winner || null;
  S.sel = [];
}
async function load(fen, history) {
  setState(await api("/api/state", { fen }));
  S.history = history || []; S.marks = {}; S.last = null; S.start = fen;
  render();
  maybeEngine();
}
function click(sq) {
  if (S.busy) return setStatus("Wait: the engine is thinking.");
  if (S.replay) return setStatus("Replaying a records file: use ◀ ▶ (or set a position to play).");
  if (S.over) return setStatus("The game is over: start a new game or set a position.");
  if (!mine()) return setStatus("It is the engine's turn (press g, or play both sides).");
  const step = S.sel.length;
  // The selected queen clicked again starts the move over (later, its square is a fine target
  // for the arrow).
  if (step === 1 && sq === S.sel[0]) { S.sel = []; return render(); }
  const candidates = S.legal.map(parts).filter((p) => p && S.sel.every((s, i) => p[i] === s) && p[step] === sq);
  if (!candidates.length) {
    const what = ["one of your queens that can move", "a square the queen can reach", "a square the arrow can reach"][step];
    return setStatus(`Illegal: ${sq} is not ${what}.`);
  }
  S.sel.push(sq);
  if (S.sel.length < 3) return render();
  play(`${S.sel[0]}-${S.sel[1]}/${S.sel[2]}`);
}
async function play(move) {
  try {
    setState(await api("/api/play", { fen: S.fen, move }));
    S.history.push(move); S.last = move; S.marks = {};
    render();
    maybeEngine();
  } catch (e) { S.sel = []; render(); setStatus("Illegal: " + e.message); }
}
function maybeEngine() {
  const c = $("colour").value;
  if (!S.replay && !S.over && c !== "both" && c !== S.toMove) engineMove();
}
async function engineMove() {
  if (S.busy || S.over || S.replay) return;
  S.busy = true; render();
  try {
    const r = await api("/api/go", { fen: S.fen, agent: $("agent").value });
    showAnalysis(r);
    S.busy = false;
    await play(r.move);
  } catch (e) { S.busy = false; render(); setStatus("Engine: " + e.message); }
}
function showAnalysis(r) {
  S.marks = {};
  for (const c of r.children.slice(0, 8)) {  // a whole move marks its destination; a decision, its square
    const p = parts(c.move), sq = p ? p[1] : (/^[a-z]\d+$/.test(c.move) ? c.move : null);
    if (sq) S.marks[sq] = (S.marks[sq] || 0) + c.visits;
  }
  const rows = r.children.slice(0, 8).map((c) => `<tr><td>${c.move}</td><td>${c.visits}</td><td>${c.value.toFixed(3)}</td></tr>`).join("");
  $("analysis").innerHTML = `<div><b>${r.agent}</b>: ${r.move}, value ${r.value.toFixed(3)}, ${r.iterations} searched in ${r.seconds.toFixed(3)} s</div>` +
    `<div>line: ${r.pv.join(" ")}</div>` + (rows ? `<table><tr><th>move</th><th>visits</th><th>value</th></tr>${rows}</table>` : "");
}
async function undo() {
  if (S.busy || S.replay || !S.history.length) return;
  const c = $("colour").value;
  let back = c === "both" ? 1 : (S.toMove === c ? 2 : 1);
  const moves = S.history.slice(0, Math.max(0, S.history.length - back));
  let st = await api("/api/state", { fen: S.start });
  for (const m of moves) st = await api("/api/play", { fen: st.fen, move: m });
  setState(st); S.history = moves; S.last = moves[moves.length - 1] || null; S.marks = {};
  render();
}
async function openRecords(file) {
  try {
    const r = await api("/api/records", { text: await file.text() });
    S.replay = { games: r.games, g: 0, ply: 0, fens: [] };
    await showGame(0);
  } catch (e) { setStatus("Records: " + e.message); }
}
async function showGame(g) {
  const game = S.replay.games[g];
  let st = await api("/api/state", { fen: game.start });
  const fens = [st];
  for (const m of game.moves) { st = await api("/api/play", { fen: st.fen, move: m }); fens.push(st); }
  Object.assign(S.replay, { g, ply: 0, fens });
  showPly();
}
function showPly() {
  const R = S.replay, game = R.games[R.g];
  setState(R.fens[R.ply]); S.history = game.moves.slice(0, R.ply); S.last = S.history[R.ply - 1] || null; S.marks = {};
  render();
  $("gameinfo").textContent = `game ${R.g + 1}/${R.games.length}, move ${R.ply}/${game.moves.length}`;
  setStatus(`Replay: ${game.white} – ${game.black}, ${game.result}` + (R.ply === game.moves.length ? " (end)." : "."));
}
async function stepReplay(d) {
  const R = S.replay; if (!R) return;
  const n = R.games[R.g].moves.length;
  if (R.ply + d >= 0 && R.ply + d <= n) { R.ply += d; showPly(); }
  else if (d > 0 && R.g + 1 < R.games.length) await showGame(R.g + 1);
  else if (d < 0 && R.g > 0) await showGame(R.g - 1);
}
$("new").onclick = () => { S.replay = null; $("gameinfo").textContent = ""; $("analysis").innerHTML = ""; load(S.initial); };
$("engine").onclick = () => engineMove();
$("undo").onclick = () => undo();
$("setfen").onclick = async () => { try { S.replay = null; await load($("fen").value.trim()); } catch (e) { setStatus("FEN: " + e.message); } };
$("records").onchange = (e) => { if (e.target.files[0]) openRecords(e.target.files[0]); };
$("prev").onclick = () => stepReplay(-1);
$("next").onclick = () => stepReplay(1);
$("colour").onchange = () => { render(); maybeEngine(); };
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") return;
  if (e.key === "ArrowRight") stepReplay(1);
  else if (e.key === "ArrowLeft") stepReplay(-1);
  else if (e.key === "g") engineMove();
  else if (e.key === "u") undo();
  else if (e.key === "n") $("new").click();
  else if (e.key === "Escape") { S.sel = []; render(); }
});
S.initial = "3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1";
load(S.initial).catch((e) => setStatus("Cannot reach the server: " + e.message));
</script>
</body></html>
)HTML";

}  // namespace amazons::cli

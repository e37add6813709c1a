// The board of `amazons serve`, driven in headless chromium by Playwright: a whole game against
// `random` played by clicking, an illegal click refused, a records file loaded and stepped
// through to its end. Writes a screenshot of the board.
//
//   node tests/browser/board.mjs AMAZONS RECORDS_FILE SCREENSHOT.png
//
// Exit 0 passed, 1 failed, 77 skipped (no chromium or no playwright-core: ctest reports it as
// skipped; tools/install-deps.sh --browser installs both).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const [amazons, records, screenshot] = process.argv.slice(2);
const chromiumPath = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
let chromium;
try {
  const require = createRequire(import.meta.url);
  ({ chromium } = require("playwright-core"));
} catch {
  console.log("skipped: playwright-core is not installed (tools/install-deps.sh --browser)");
  process.exit(77);
}
if (!chromiumPath) {
  console.log("skipped: no chromium (tools/install-deps.sh --browser)");
  process.exit(77);
}

function fail(message) {
  console.error("FAILED: " + message);
  process.exitCode = 1;
  throw new Error(message);
}

const server = spawn(amazons, ["serve", "--port", "0", "--agent", "random"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    const m = out.match(/amazons serve: (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on("exit", (code) => reject(new Error(`amazons serve exited with ${code}`)));
});
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  page.on("pageerror", (e) => fail("page error: " + e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.gsearchBoard && window.gsearchBoard.legal.length > 0);
  const status = () => page.textContent("#status");

  // An illegal click is refused: e5 is empty at the start, and nothing is selected.
  await page.click('[data-square="e5"]');
  if (!(await status()).startsWith("Illegal")) fail("an empty square was accepted as a queen: " + (await status()));
  if ((await page.evaluate(() => window.gsearchBoard.sel.length)) !== 0) fail("the illegal click selected a square");
  // So is a queen's impossible destination once a queen is selected.
  await page.click('[data-square="d1"]');
  await page.click('[data-square="e5"]');
  if (!(await status()).startsWith("Illegal")) fail("an unreachable destination was accepted");
  await page.click('[data-square="d1"]');  // start over

  // A whole game as White against random: each move clicked square by square.
  let plies = 0;
  for (;;) {
    await page.waitForFunction(() => document.body.dataset.busy === "no");
    const st = await page.evaluate(() => ({ over: window.gsearchBoard.over, toMove: window.gsearchBoard.toMove, legal: window.gsearchBoard.legal }));
    if (st.over) break;
    if (st.toMove !== "white") { await page.waitForTimeout(20); continue; }
    const [from, to, arrow] = st.legal[0].match(/^([a-z]\d+)-([a-z]\d+)\/([a-z]\d+)$/).slice(1);
    const before = await page.evaluate(() => window.gsearchBoard.history.length);
    for (const sq of [from, to, arrow]) await page.click(`[data-square="${sq}"]`);
    await page.waitForFunction((n) => window.gsearchBoard.history.length > n, before);
    if (++plies > 200) fail("the game did not end");
  }
  const end = await status();
  if (!/^Game over: (White|Black) wins\.$/.test(end)) fail("no result at the end: " + end);
  const history = await page.evaluate(() => window.gsearchBoard.history.length);
  console.log(`a whole game through the page: ${history} moves, ${end}`);
  if (screenshot) await page.screenshot({ path: screenshot });

  // A records file: loaded, stepped through to its end with the keyboard.
  await page.setInputFiles("#records", records);
  await page.waitForFunction(() => window.gsearchBoard.replay && window.gsearchBoard.replay.fens.length > 0);
  const moves = await page.evaluate(() => window.gsearchBoard.replay.games[0].moves.length);
  for (let k = 0; k < moves; ++k) await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => /\(end\)\.$/.test(document.getElementById("status").textContent));
  const info = await page.textContent("#gameinfo");
  if (!info.includes(`move ${moves}/${moves}`)) fail("the records file did not step to its end: " + info);
  // Clicks during a replay move nothing.
  const fen = await page.evaluate(() => window.gsearchBoard.fen);
  await page.click('[data-square="a1"]');
  if ((await page.evaluate(() => window.gsearchBoard.fen)) !== fen) fail("a click changed a replayed position");
  console.log(`a records file stepped through: ${moves} moves`);
} finally {
  await browser.close();
  server.kill();
}

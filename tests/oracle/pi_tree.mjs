#!/usr/bin/env node
// pi's own /tree navigator (TreeSelectorComponent, pinned in package.json next to this file)
// rendered as plain text, for the tests to compare pitui's tree with.
//
//   node pi_tree.mjs < REQUESTS        one JSON request a line, one JSON answer a line
//
// A request: {"file": PATH, "filter": "default"|"no-tools"|"user-only"|"labeled-only"|"all",
// "width": 200, "home": "/home/me", "leaf": ID, "keys": ["\u001b[1;5D", "ab", ...]}. "keys" are
// fed to the navigator one by one as terminal input (typed text, Ctrl+← and so on) before
// rendering; "leaf" replaces the session's leaf (the last entry) as the navigator's current leaf.
// "copies": true adds what Ctrl+X copies on every row (pi's getEntryCopyText, null when pi says
// "Selected entry has no text to copy"). The answer: {"rows": [...], "status": "(3/5) [user]",
// "selected": 2, "selectedId": ID, "copied": [...], "copies": [...]} with ANSI styling stripped,
// every row as pi shows it (the cursor column "› " included), "copied" what each Ctrl+X ("\u0018")
// among the keys copied; or {"error": message}. pi 1.6.0 (@earendil-works) by default; $PI_PKG
// may name pi 0.73.1's package instead (it has no Ctrl+X copy).
//
// pi rewrites old files when it opens them, so it only ever gets copies, in a temporary folder
// that is removed afterwards. The package is found through $PI_PKG (the package folder), else
// in node_modules beside this script. Files with a parentId cycle on the leaf's path make pi
// loop forever: never pass them.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_PKG || path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");

async function load(relative) {
  const file = path.join(PKG, "dist", ...relative.split("/"));
  statSync(file);
  return import(pathToFileURL(file).href);
}

let sessions, selector, themes, keys, tui;
try {
  sessions = await load("core/session-manager.js");
  selector = await load("modes/interactive/components/tree-selector.js");
  themes = await load("modes/interactive/theme/theme.js");
  keys = await load("core/keybindings.js");
  // pi-tui as pi itself resolves it, so that both share one keybindings registry; under the
  // npm scope of the pi it belongs to (@earendil-works for pi 1.6, @mariozechner for 0.73.1).
  const scope = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8")).name.split("/")[0];
  const fromPi = createRequire(path.join(PKG, "package.json"));
  tui = await import(pathToFileURL(fromPi.resolve(`${scope}/pi-tui`)).href);
} catch (error) {
  process.stderr.write(`pi not found at ${PKG}: ${error.message}\n`);
  process.exit(3);
}
// What pi's interactive mode sets up: the dark theme and the default keys (app.tree.* included).
themes.initTheme("dark");
tui.setKeybindings(new keys.KeybindingsManager({}));

// SGR colours, and any other CSI or OSC sequence the theme might emit.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
const strip = (line) => line.replace(ANSI, "");

function render(request, tmp, slot) {
  const dir = path.join(tmp, String(slot));
  mkdirSync(dir);
  const copy = path.join(dir, path.basename(request.file));
  copyFileSync(request.file, copy);
  try {
    if (request.home !== undefined) process.env.HOME = request.home;
    const sm = sessions.SessionManager.open(copy, dir);
    const tree = sm.getTree();
    const rows = sm.getEntries().length + 10;
    // Tall enough that every row shows: pi shows max(5, floor(rows / 2)) rows.
    const component = new selector.TreeSelectorComponent(
      tree, request.leaf ?? sm.getLeafId(), 2 * rows + 2, () => {}, () => {}, () => {}, undefined, request.filter ?? "default",
    );
    const list = component.getTreeList();
    const copied = [];
    component.onCopy = (text) => copied.push(text ?? null);
    for (const key of request.keys ?? []) component.handleInput(key);
    const lines = list.render(request.width ?? 1000).map(strip);
    const status = lines.pop().trim();
    const empty = lines.length === 1 && lines[0].trim() === "No entries found";
    const answer = {
      rows: empty ? [] : lines, status, selected: empty ? -1 : list.selectedIndex,
      selectedId: list.getSelectedNode()?.entry.id ?? null, copied,
    };
    if (request.copies) {
      // What Ctrl+X copies on each row (null: "Selected entry has no text to copy").
      const selected = list.selectedIndex;
      answer.copies = [];
      const count = empty ? 0 : lines.length;
      for (let i = 0; i < count; i++) {
        list.selectedIndex = i;
        let text = null;
        list.onCopy = (t) => { text = t ?? null; };
        list.copySelected();
        answer.copies.push(text);
      }
      list.selectedIndex = selected;
    }
    return answer;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "pitui-tree-oracle-"));
try {
  const requests = readFileSync(0, "utf8").split("\n").filter((line) => line.trim() !== "");
  const out = [];
  for (const [i, line] of requests.entries()) {
    let answer;
    try {
      answer = render(JSON.parse(line), tmp, i);
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    }
    out.push(JSON.stringify(answer));
  }
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

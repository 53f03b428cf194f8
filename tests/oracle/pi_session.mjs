#!/usr/bin/env node
// pitui's conformance oracle: pi's own SessionManager (pinned in package.json next to this
// file) loads session files and prints what it sees as JSON, in the schema that
// `pitui inspect --json` prints, so the tests can compare the two. It runs pi 1.6.0
// (@earendil-works, the reference) or pi 0.73.1 (@mariozechner), whichever $PI_PKG names.
//
//   node pi_session.mjs open FILE            one session (JSON object)
//   node pi_session.mjs open-many FILE...    {FILE: session | {"error": message}, ...}
//   node pi_session.mjs open-many -          the same, file names read from stdin, one a line
//   node pi_session.mjs stringify < LINES    [JSON.stringify(JSON.parse(line)) or null, ...]
//   node pi_session.mjs rewrite FILE         the bytes pi leaves in FILE when it opens it (v1 and
//                                            v2 files are rewritten as v3), from a copy
//   node pi_session.mjs list DIR [CWD]       SessionManager.list(CWD, DIR) of one folder (JSON array;
//                                            pi 1.6 keeps only sessions whose header cwd is CWD)
//   node pi_session.mjs listdir DIR          every session of one folder (1.6: listAll(DIR);
//                                            0.73.1: list)
//   node pi_session.mjs dir CWD [AGENT_DIR]  the folder pi uses for CWD (pi creates it)
//   node pi_session.mjs version              the version of pi that was loaded
//
// When pi cannot load a file, `open` prints {"piVersion", "error": {"name", "message"}} and
// exits 3 (`open-many` gives that file {"error": message}).
//
// pi rewrites old files when it opens them (and pi 1.6 appends a missing final newline; pi
// 0.73.1 overwrites files it cannot read), so `open`, `open-many` and `list` only ever give pi
// copies, made in a temporary folder that is removed afterwards. The package is found through
// $PI_PKG (the package folder), else in node_modules beside this script (pi 1.6.0).
import {
  copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_PKG || path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");


class UsageError extends Error {}

async function loadPi() {
  const file = path.join(PKG, "dist", "core", "session-manager.js");
  try {
    statSync(file);
  } catch {
    throw new Error(`pi not found at ${PKG}: run npm install --prefix tests/oracle, or set PI_PKG`);
  }
  return import(pathToFileURL(file).href);
}

const pi = await loadPi().catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
const PI_VERSION = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8")).version;
// pi 1.x: listAll(dir), buildSessionProjection, a header-less non-empty file throws on open.
const PI_1 = !PI_VERSION.startsWith("0.");

// ---------------------------------------------------------------------------------------------
// open

// pi's getTree() places the last entry with an id once for every line with that id. If one of
// those lines names as parent an entry below that last one, the tree it builds has a cycle, and
// its sorting walk from the roots never returns. True when the tree of `entries` has one.
function treeHasCycle(entries) {
  const nodes = new Map();
  for (const entry of entries) if (entry.type !== "session") nodes.set(entry.id, entry);
  const children = new Map();
  const roots = [];
  for (const entry of entries) {
    if (entry.type === "session") continue;
    const node = nodes.get(entry.id);
    const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : nodes.get(entry.parentId);
    if (parent === undefined) roots.push(node);
    else if (children.has(parent)) children.get(parent).push(node);
    else children.set(parent, [node]);
  }
  const state = new Map(); // node -> 1 while its subtree is walked, 2 when done
  for (const root of roots) {
    if (state.has(root)) continue;
    const stack = [[root, 0]];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const kids = children.get(top[0]) || [];
      if (top[1] === kids.length) {
        state.set(top[0], 2);
        stack.pop();
        continue;
      }
      const kid = kids[top[1]++];
      if (state.get(kid) === 1) return true;
      if (!state.has(kid)) {
        state.set(kid, 1);
        stack.push([kid, 0]);
      }
    }
  }
  return false;
}

// Before pi sees a file: pi 0.73.1 replaces a file without a valid header with a new session
// (random id, so nothing to compare; pi 1.6 throws itself, and initialises only a 0-byte file);
// pi walks parentId links from the leaf with no guard, so a cycle there never returns (0.73.1)
// or dies of an out-of-memory abort (1.6), and getTree() never returns either when duplicated
// ids make a cycle in the tree. All are reported as errors instead.
function precheck(file) {
  const entries = pi.loadEntriesFromFile(file);
  if (entries.length === 0) {
    if (PI_1) return;
    throw new Error("not a pi session: no valid header line (pi 0.73.1 would overwrite the file)");
  }
  pi.migrateSessionEntries(entries);
  const byId = new Map();
  let last;
  for (const entry of entries) {
    if (entry.type === "session") continue;
    byId.set(entry.id, entry);
    last = entry;
  }
  const seen = new Set();
  for (let entry = last; entry; entry = entry.parentId ? byId.get(entry.parentId) : undefined) {
    if (seen.has(entry)) throw new Error(`parentId cycle through ${entry.id} (pi would not return)`);
    seen.add(entry);
  }
  if (treeHasCycle(entries)) {
    throw new Error("duplicated ids make a cycle in the tree (pi's getTree would not return)");
  }
}

// Roots in order, and for every entry that has children its child ids in order. Iterative,
// since real chains are tens of thousands of entries deep.
function flatTree(roots) {
  const children = Object.create(null);
  const stack = roots.slice();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node.children.length > 0) children[node.entry.id] = node.children.map((c) => c.entry.id);
    for (const child of node.children) stack.push(child);
  }
  return { roots: roots.map((r) => r.entry.id), children };
}

// What the comparison needs of a context message: its role, its text or block types, and the
// fields that tie it to the tree. Undefined fields vanish in JSON.stringify, as in pitui's output.
// The summed UTF-16 length of the text blocks' text, so that a replaced content is seen, not
// only its shape.
const textLen = (blocks) =>
  blocks.reduce((n, b) => n + (b && b.type === "text" && typeof b.text === "string" ? b.text.length : 0), 0);

function digest(m) {
  const d = { role: m.role };
  if (typeof m.content === "string") d.text = m.content;
  else if (Array.isArray(m.content)) {
    d.blocks = m.content.map((b) => b.type);
    d.textLen = textLen(m.content);
  }
  switch (m.role) {
    case "compactionSummary":
      d.summary = m.summary;
      break;
    case "branchSummary":
      d.summary = m.summary;
      d.fromId = m.fromId;
      break;
    case "custom":
      d.customType = m.customType;
      break;
    case "toolResult":
      d.toolCallId = m.toolCallId;
      break;
    case "bashExecution":
      d.command = m.command;
      break;
    case "system":
      if (m.sections) {
        d.sections = Object.fromEntries(Object.entries(m.sections).map(([k, v]) => [k, v === null ? null : "set"]));
      }
      if (m.toolsAdded) d.toolsAdded = m.toolsAdded.map((t) => t.name);
      if (m.toolsRemoved) d.toolsRemoved = m.toolsRemoved.map((t) => t.name);
      break;
  }
  return d;
}

// pi's /session totals: the loop of AgentSession.getSessionStats() over every entry (pi 1.6
// counts usage entries, tool results' usage and compaction and branch-summary usage; on a
// 0.73.1 file there are none of those). {"error": message} where pi would throw.
function sessionStats(entries) {
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const add = (u) => {
    t.input += u.input;
    t.output += u.output;
    t.cacheRead += u.cacheRead;
    t.cacheWrite += u.cacheWrite;
    t.cost += u.cost.total;
  };
  const c = { userMessages: 0, assistantMessages: 0, toolCalls: 0, toolResults: 0, totalMessages: 0 };
  try {
    for (const e of entries) {
      if (e.type === "usage") add(e.usage);
      else if ((e.type === "branch_summary" || e.type === "compaction") && e.usage) add(e.usage);
      if (e.type !== "message") continue;
      c.totalMessages++;
      const m = e.message;
      if (m.role === "user") c.userMessages++;
      else if (m.role === "toolResult") {
        c.toolResults++;
        if (m.usage) add(m.usage);
      } else if (m.role === "assistant") {
        c.assistantMessages++;
        if (Array.isArray(m.content)) c.toolCalls += m.content.filter((b) => b.type === "toolCall").length;
        add(m.usage);
      }
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const tokens = { ...t, total: t.input + t.output + t.cacheRead + t.cacheWrite };
  delete tokens.cost;
  return { ...c, tokens, cost: Math.round(t.cost * 1e9) / 1e9 };
}

function describe(sm) {
  const entries = sm.getEntries();
  const labels = Object.create(null);
  for (const entry of entries) {
    const label = sm.getLabel(entry.id);
    if (label !== undefined) labels[entry.id] = label;
  }
  const context = sm.buildSessionContext();
  const projection = sm.buildSessionProjection
    ? sm.buildSessionProjection().entries.map((p) => [p.sourceEntry.id, p.messages.length])
    : undefined;
  return {
    piVersion: PI_VERSION,
    header: sm.getHeader(),
    entryIds: entries.map((e) => [e.id, e.type, e.parentId]),
    leafId: sm.getLeafId(),
    branch: sm.getBranch().map((e) => e.id),
    tree: flatTree(sm.getTree()),
    labels,
    name: sm.getSessionName() ?? null,
    context: {
      model: context.model,
      thinkingLevel: context.thinkingLevel,
      messages: context.messages.map(digest),
    },
    ...(projection ? { projection } : {}),
    stats: sessionStats(entries),
  };
}

// Opens a copy of `file`, made inside `tmp`, and removes the copy again.
function openCopy(file, tmp, slot) {
  const dir = path.join(tmp, String(slot));
  mkdirSync(dir);
  const copy = path.join(dir, path.basename(file));
  copyFileSync(file, copy);
  try {
    precheck(copy);
    return describe(pi.SessionManager.open(copy, dir));
  } catch (error) {
    // pi names the file it was given: name the original, not the copy.
    if (error instanceof Error) error.message = error.message.split(copy).join(file);
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function withTmp(fn) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "pitui-oracle-"));
  try {
    return fn(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function write(text) {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

class PiFailed extends Error {}

async function cmdOpen(args) {
  if (args.length !== 1) throw new UsageError("open takes one FILE");
  let result;
  try {
    result = withTmp((tmp) => openCopy(args[0], tmp, 0));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    await write(`${JSON.stringify({ piVersion: PI_VERSION, error: { name: e.name, message: e.message } })}\n`);
    throw new PiFailed(e.message);
  }
  await write(`${JSON.stringify(result)}\n`);
}

function readStdin() {
  return readFileSync(0, "utf8").split("\n").filter((line) => line !== "");
}

// One object, written file by file so that a big batch is never one huge string.
async function cmdOpenMany(args) {
  const files = args.length === 1 && args[0] === "-" ? readStdin() : args;
  const tmp = mkdtempSync(path.join(os.tmpdir(), "pitui-oracle-"));
  try {
    await write("{");
    for (const [i, file] of files.entries()) {
      let result;
      try {
        result = openCopy(file, tmp, i);
      } catch (error) {
        result = { error: error instanceof Error ? error.message : String(error) };
      }
      await write(`${i ? ",\n" : "\n"}${JSON.stringify(file)}:${JSON.stringify(result)}`);
    }
    await write("\n}\n");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// rewrite: the bytes pi leaves in a file it opens. pi rewrites a file that needs migrating (v1,
// v2) as v3, every entry through JSON.stringify; other files stay as they are.

async function cmdRewrite(args) {
  if (args.length !== 1) throw new UsageError("rewrite takes one FILE");
  const bytes = withTmp((tmp) => {
    const dir = path.join(tmp, "0");
    mkdirSync(dir);
    const copy = path.join(dir, path.basename(args[0]));
    copyFileSync(args[0], copy);
    precheck(copy);
    pi.SessionManager.open(copy, dir);
    return readFileSync(copy);
  });
  await write(bytes);
}

// ---------------------------------------------------------------------------------------------
// stringify: how pi writes what it read. pi writes every entry with JSON.stringify, and when it
// rewrites a file (migration, fork) it writes JSON.stringify(JSON.parse(line)). For each line on
// stdin this prints that, or null when the line is not JSON, as one JSON array.

async function cmdStringify(args) {
  if (args.length !== 0) throw new UsageError("stringify takes no arguments (lines on stdin)");
  const lines = readFileSync(0, "utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out = lines.map((line) => {
    try {
      return JSON.stringify(JSON.parse(line));
    } catch {
      return null;
    }
  });
  await write(`${JSON.stringify(out)}\n`);
}

// ---------------------------------------------------------------------------------------------
// list, dir, version

const isoOrNull = (date) => (Number.isNaN(date.getTime()) ? null : date.toISOString());

async function cmdList(args) {
  if (args.length < 1 || args.length > 2) throw new UsageError("list takes DIR [CWD]");
  await listCopy(args[0], (tmp) => pi.SessionManager.list(args[1] ?? process.cwd(), tmp));
}

async function cmdListDir(args) {
  if (args.length !== 1) throw new UsageError("listdir takes DIR");
  await listCopy(args[0], (tmp) => (PI_1 ? pi.SessionManager.listAll(tmp) : pi.SessionManager.list(process.cwd(), tmp)));
}

async function listCopy(folder, listIt) {
  const dir = path.resolve(folder);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "pitui-oracle-"));
  let infos;
  try {
    // pi reads only the *.jsonl files directly in the folder. The copies keep the originals'
    // modification times, which pi uses when a file has no other date.
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith(".jsonl")) continue;
      const source = path.join(dir, name);
      const stat = statSync(source);
      if (!stat.isFile()) continue;
      copyFileSync(source, path.join(tmp, name));
      utimesSync(path.join(tmp, name), stat.atime, stat.mtime);
    }
    infos = await listIt(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const out = infos.map((s) => ({
    path: path.join(dir, path.basename(s.path)),
    id: s.id,
    cwd: s.cwd,
    name: s.name ?? null,
    parentSessionPath: s.parentSessionPath ?? null,
    created: isoOrNull(s.created),
    modified: isoOrNull(s.modified),
    messageCount: s.messageCount,
    firstMessage: s.firstMessage,
  }));
  await write(`${JSON.stringify(out)}\n`);
}

async function cmdDir(args) {
  if (args.length < 1 || args.length > 2) throw new UsageError("dir takes CWD [AGENT_DIR]");
  await write(`${args.length === 2 ? pi.getDefaultSessionDir(args[0], args[1]) : pi.getDefaultSessionDir(args[0])}\n`);
}

async function cmdVersion() {
  await write(`${PI_VERSION}\n`);
}

const COMMANDS = {
  open: cmdOpen,
  "open-many": cmdOpenMany,
  stringify: cmdStringify,
  rewrite: cmdRewrite,
  list: cmdList,
  listdir: cmdListDir,
  dir: cmdDir,
  version: cmdVersion,
};
const USAGE =
  "usage: pi_session.mjs open FILE | open-many FILE...|- | stringify < LINES | rewrite FILE | list DIR [CWD] | listdir DIR | dir CWD [AGENT_DIR] | version\n";

const [command, ...args] = process.argv.slice(2);
if (!Object.hasOwn(COMMANDS, command ?? "")) {
  process.stderr.write(USAGE);
  process.exitCode = 2;
} else {
  try {
    await COMMANDS[command](args);
  } catch (error) {
    if (!(error instanceof PiFailed)) process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof UsageError) process.stderr.write(USAGE);
    process.exitCode = error instanceof UsageError ? 2 : error instanceof PiFailed ? 3 : 1;
  }
}

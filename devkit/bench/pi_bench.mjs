#!/usr/bin/env node
// pi's own SessionManager on the benchmark data, timed: pi 1.6.0 (npm
// @earendil-works/pi-coding-agent), or pi 0.73.1 (@mariozechner/pi-coding-agent), whichever
// $PI_PKG names. The benchmarks run it on Node 22, as pi 1.6.0's own command line needs.
//
//   node devkit/bench/pi_bench.mjs open FILE [--no-copy] [--no-emit]
//       SessionManager.open on a copy of FILE, then getEntries, getTree, buildSessionContext,
//       buildSessionProjection (pi 1.6), getBranch, labels, name and the /session totals, and
//       the oracle's JSON of all that written to /dev/null: what the pi oracle's
//       (`tests/oracle/pi_session.mjs`) `open` does. --no-copy opens FILE itself (pi rewrites
//       files that need migrating, and pi 1.6 appends a missing final newline; the generated
//       files need neither).
//   node devkit/bench/pi_bench.mjs label FILE [N]
//       SessionManager.open on a copy of FILE, then N times (default 20): appendLabelChange on
//       an entry (what /tree's Shift+L writes) and getTree() (what reopening /tree rebuilds to
//       show it; pi does not rebuild its open tree). Medians in "append_ms" and "tree_ms".
//   node devkit/bench/pi_bench.mjs listAll [AGENT_DIR]
//       SessionManager.listAll() with PI_CODING_AGENT_DIR = AGENT_DIR (or as set).
//   node devkit/bench/pi_bench.mjs list DIR
//       SessionManager.list(cwd, DIR).
//   node devkit/bench/pi_bench.mjs search QUERY [AGENT_DIR]
//       listAll, then the /resume picker's filterAndSortSessions(sessions, QUERY, "relevance")
//       (what the picker does with a query in its default "threaded" sort).
//
// Prints one JSON object: the phases in seconds, "in_process_s" (from the first line of this
// script to the end), "since_launch_s" (from the process's start, node's own start-up
// included), and counts to check the work was done.
//
// The package is found at $PI_PKG, else tests/oracle/node_modules/@earendil-works/... (pi
// 1.6.0, where `npm install --prefix tests/oracle` puts it), else its @mariozechner/ sibling.
import { copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const scriptStart = performance.now();
const here = path.dirname(fileURLToPath(import.meta.url));
const PKGS = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];

function packageDir() {
  const candidates = [
    process.env.PI_PKG,
    ...PKGS.map((name) => path.join(here, "..", "..", "tests", "oracle", "node_modules", name)),
  ].filter(Boolean);
  for (const dir of candidates) {
    if (existsSync(path.join(dir, "dist", "core", "session-manager.js"))) return dir;
  }
  throw new Error(`pi's package not found (looked in ${candidates.join(", ")}); set PI_PKG`);
}

const pkg = packageDir();
const piVersion = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")).version;
const distUrl = (rel) => pathToFileURL(path.join(pkg, "dist", rel)).href;
const secs = (ms) => Math.round(ms) / 1000;

const [, , cmd, ...rest] = process.argv;
const flags = new Set(rest.filter((a) => a.startsWith("--")));
const args = rest.filter((a) => !a.startsWith("--"));

// The oracle's flattened tree, without recursion.
function flatTree(roots) {
  const children = {};
  const stack = [...roots];
  while (stack.length) {
    const n = stack.pop();
    if (n.children.length) children[n.entry.id] = n.children.map((c) => c.entry.id);
    for (const c of n.children) stack.push(c);
  }
  return { roots: roots.map((r) => r.entry.id), children };
}

// The oracle's message digest (its README's schema).
function messageDigest(m) {
  const d = { role: m.role };
  if (typeof m.content === "string") d.text = m.content;
  else if (Array.isArray(m.content)) {
    d.blocks = m.content.map((b) => b.type);
    d.textLen = m.content.reduce((n, b) => n + (b.type === "text" && typeof b.text === "string" ? b.text.length : 0), 0);
  }
  if (m.role === "system") {
    if (m.sections) d.sections = Object.fromEntries(Object.entries(m.sections).map(([k, v]) => [k, v === null ? null : "set"]));
    if (m.toolsAdded) d.toolsAdded = m.toolsAdded.map((t) => t.name);
    if (m.toolsRemoved) d.toolsRemoved = m.toolsRemoved.map((t) => t.name);
  }
  if (m.role === "compactionSummary") d.summary = m.summary;
  if (m.role === "branchSummary") { d.summary = m.summary; d.fromId = m.fromId; }
  if (m.role === "custom") d.customType = m.customType;
  if (m.role === "toolResult") d.toolCallId = m.toolCallId;
  if (m.role === "bashExecution") d.command = m.command;
  return d;
}

// pi's /session totals: AgentSession.getSessionStats() runs this loop over every entry (as the
// oracle does; AgentSession itself needs a model and a settings folder).
function sessionStats(entries) {
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const add = (u) => { t.input += u.input; t.output += u.output; t.cacheRead += u.cacheRead; t.cacheWrite += u.cacheWrite; t.cost += u.cost.total; };
  const c = { userMessages: 0, assistantMessages: 0, toolCalls: 0, toolResults: 0, totalMessages: 0 };
  for (const e of entries) {
    if (e.type === "usage") add(e.usage);
    else if ((e.type === "branch_summary" || e.type === "compaction") && e.usage) add(e.usage);
    if (e.type !== "message") continue;
    c.totalMessages++;
    const m = e.message;
    if (m.role === "user") c.userMessages++;
    else if (m.role === "toolResult") { c.toolResults++; if (m.usage) add(m.usage); }
    else if (m.role === "assistant") {
      c.assistantMessages++;
      if (Array.isArray(m.content)) c.toolCalls += m.content.filter((b) => b.type === "toolCall").length;
      add(m.usage);
    }
  }
  return { ...c, tokens: { input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite,
    total: t.input + t.output + t.cacheRead + t.cacheWrite }, cost: Math.round(t.cost * 1e9) / 1e9 };
}

const out = { op: cmd, piVersion, pkg };
let t = performance.now();
function phase(name) {
  const now = performance.now();
  out[`${name}_s`] = secs(now - t);
  t = now;
}

async function main() {
  if (cmd === "listAll" || cmd === "search") {
    const agentDir = cmd === "listAll" ? args[0] : args[1];
    if (agentDir) process.env.PI_CODING_AGENT_DIR = agentDir;
    if (!process.env.PI_CODING_AGENT_DIR) throw new Error("set PI_CODING_AGENT_DIR or pass AGENT_DIR");
  }
  const { SessionManager } = await import(distUrl("core/session-manager.js"));
  phase("import");

  if (cmd === "open") {
    const file = args[0];
    let target = file;
    let tmp = null;
    if (!flags.has("--no-copy")) {
      tmp = mkdtempSync(path.join(os.tmpdir(), "pi-bench-"));
      target = path.join(tmp, path.basename(file));
      copyFileSync(file, target);
      phase("copy");
    }
    const sm = SessionManager.open(target, path.dirname(target));
    phase("open");
    const entries = sm.getEntries();
    const tree = sm.getTree();
    phase("tree");
    const ctx = sm.buildSessionContext();
    phase("context");
    // pi 1.6: which entry gives which model messages (context_edits applied); not in 0.73.1.
    const projection = sm.buildSessionProjection
      ? sm.buildSessionProjection().entries.map((p) => [p.sourceEntry.id, p.messages.length])
      : undefined;
    if (projection) phase("projection");
    const branch = sm.getBranch();
    phase("branch");
    const stats = sessionStats(entries);
    phase("stats");
    if (!flags.has("--no-emit")) {
      const labels = {};
      for (const e of entries) {
        const l = sm.getLabel(e.id);
        if (l !== undefined) labels[e.id] = l;
      }
      const doc = {
        piVersion,
        header: sm.getHeader(),
        entryIds: entries.map((e) => [e.id, e.type, e.parentId]),
        leafId: sm.getLeafId(),
        branch: branch.map((e) => e.id),
        tree: flatTree(tree),
        labels,
        name: sm.getSessionName() ?? null,
        context: { model: ctx.model, thinkingLevel: ctx.thinkingLevel, messages: ctx.messages.map(messageDigest) },
        ...(projection ? { projection } : {}),
        stats,
      };
      const fd = openSync("/dev/null", "w");
      writeSync(fd, JSON.stringify(doc, null, 1) + "\n");
      closeSync(fd);
      phase("emit");
    }
    out.entries = entries.length;
    out.branch = branch.length;
    out.context_messages = ctx.messages.length;
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  } else if (cmd === "label") {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "pi-bench-"));
    const target = path.join(tmp, path.basename(args[0]));
    copyFileSync(args[0], target);
    const sm = SessionManager.open(target, tmp);
    phase("open");
    const entries = sm.getEntries();
    const id = entries[Math.floor(entries.length / 2)].id;
    const reps = Number(args[1] ?? 20);
    const appends = [];
    const trees = [];
    for (let i = 0; i < reps; i++) {
      let start = performance.now();
      sm.appendLabelChange(id, `label ${i}`);
      appends.push(performance.now() - start);
      start = performance.now();
      sm.getTree();
      trees.push(performance.now() - start);
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    out.append_ms = Math.round(median(appends) * 1000) / 1000;
    out.tree_ms = Math.round(median(trees) * 1000) / 1000;
    out.entries = entries.length;
    rmSync(tmp, { recursive: true, force: true });
  } else if (cmd === "listAll") {
    const sessions = await SessionManager.listAll();
    phase("listAll");
    out.sessions = sessions.length;
  } else if (cmd === "list") {
    const sessions = await SessionManager.list(process.cwd(), path.resolve(args[0]));
    phase("list");
    out.sessions = sessions.length;
  } else if (cmd === "search") {
    const { filterAndSortSessions } = await import(distUrl("modes/interactive/components/session-selector-search.js"));
    phase("import_search");
    const sessions = await SessionManager.listAll();
    phase("listAll");
    const found = filterAndSortSessions(sessions, args[0], "relevance", "all");
    phase("filter");
    out.sessions = sessions.length;
    out.matches = found.length;
  } else {
    process.stderr.write("usage: pi_bench.mjs open FILE [--no-copy] [--no-emit] | listAll [AGENT_DIR] | list DIR | search QUERY [AGENT_DIR]\n");
    process.exit(2);
  }
  const end = performance.now();
  out.in_process_s = secs(end - scriptStart);
  out.since_launch_s = secs(end); // performance.now() counts from the process's time origin
  out.rss_mb = Math.round(process.memoryUsage.rss() / 1e6);
  process.stdout.write(JSON.stringify(out) + "\n");
}

await main();

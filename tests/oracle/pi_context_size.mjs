#!/usr/bin/env node
// pi 1.6.0's own context-size figures, for the tests to compare pitui.store.context_size with.
//
//   node pi_context_size.mjs FILE...        {FILE: {entryId: {"tokens": n | null, "usageTokens",
//                                             "trailingTokens", "lastUsageIndex"}, ...}, ...}
//                                             ({"error": message} for a file or entry pi fails on)
//   node pi_context_size.mjs estimate < L   one JSON message a line -> [estimateTokens(m), ...]
//
// For each entry of FILE taken as the leaf: AgentSession.getContextUsage's token count
// (core/agent-session.ts), which pi's footer shows: null after a compaction with no assistant
// usage since, else estimateProjectedContextTokens(projection, branch) (core/compaction/
// compaction.ts). The context window is left out: pitui adds it from the model table. The
// file is read from a copy (pi may append a final newline when it opens one). The package is
// found through $PI_PKG, else in node_modules beside this script.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_PKG || path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");
const load = (rel) => import(pathToFileURL(path.join(PKG, "dist", ...rel.split("/"))).href);
const sm = await load("core/session-manager.js");
const compaction = await load("core/compaction/compaction.js");
const { calculateContextTokens, estimateProjectedContextTokens, estimateTokens } = compaction;

// agent-session.ts getContextUsage, without the model window.
function contextTokens(manager, leafId) {
  const entries = manager.getEntries();
  const projection = sm.buildSessionProjection(entries, leafId);
  const branch = manager.getBranch(leafId);
  const latestCompaction = sm.getLatestCompactionEntry(branch);
  if (latestCompaction) {
    const projectedAssistants = new Set(
      projection.entries.flatMap((entry) =>
        entry.messages.some(
          (message) =>
            message.role === "assistant" &&
            message.stopReason !== "aborted" &&
            message.stopReason !== "error" &&
            calculateContextTokens(message.usage) > 0,
        )
          ? [entry.sourceEntry.id]
          : [],
      ),
    );
    const compactionIndex = branch.findIndex((entry) => entry.id === latestCompaction.id);
    const hasPostCompactionUsage = branch.slice(compactionIndex + 1).some((entry) => projectedAssistants.has(entry.id));
    if (!hasPostCompactionUsage) return { tokens: null };
  }
  return estimateProjectedContextTokens(projection, branch);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "estimate") {
  const out = [];
  for (const line of readFileSync(0, "utf8").split("\n")) {
    if (line) out.push(estimateTokens(JSON.parse(line)));
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} else {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pi-context-size-"));
  const out = {};
  try {
    for (const [n, file] of [mode, ...args].entries()) {
      try {
        const copy = path.join(dir, `${n}-${path.basename(file)}`);
        copyFileSync(file, copy);
        const manager = sm.SessionManager.open(copy, dir);
        const sizes = {};
        for (const entry of manager.getEntries()) {
          try {
            sizes[entry.id] = contextTokens(manager, entry.id);
          } catch (e) {
            sizes[entry.id] = { error: e.message };
          }
        }
        out[file] = sizes;
      } catch (e) {
        out[file] = { error: e.message };
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

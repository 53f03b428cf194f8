#!/usr/bin/env node
// pi's own branch-summary preparation (core/compaction/branch-summarization.js), for the tests
// to compare pitui's digest and summarizer input with.
//
//   node pi_branch.mjs < REQUESTS      one JSON request a line, one JSON answer a line
//
// A request: {"file": PATH, "target": ENTRY_ID}: the user moves from the session's leaf to the
// target. The answer: {"entryIds": [...], "transcript": TEXT, "readFiles": [...],
// "modifiedFiles": [...]}: the entries pi would summarise (collectEntriesForBranchSummary), the
// text its model would be given (serializeConversation of convertToLlm of
// prepareBranchEntries, no token budget unless the request gives "budget") and the file lists
// it stores as details; or {"error": message}. pi only ever gets copies of the files, as in
// pi_tree.mjs.
//
// With "reply": TEXT (pi 1.6), pi's own generateBranchSummary runs too, its model a stand-in
// that answers TEXT (and "customInstructions", "contextWindow" passed on): the answer adds
// "prompt" (the user text pi sent its model), "systemPrompt" and "summary" (what pi writes).
// pi 1.6.0 (@earendil-works) by default; $PI_PKG may name another pi package folder (0.73.1
// works too, without "reply").
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
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

let sessions, summaries, utils, messages;
try {
  sessions = await load("core/session-manager.js");
  summaries = await load("core/compaction/branch-summarization.js");
  utils = await load("core/compaction/utils.js");
  messages = await load("core/messages.js");
} catch (error) {
  process.stderr.write(`pi not found at ${PKG}: ${error.message}\n`);
  process.exit(3);
}

function answer(request, tmp, slot) {
  const dir = path.join(tmp, String(slot));
  mkdirSync(dir);
  const copy = path.join(dir, path.basename(request.file));
  copyFileSync(request.file, copy);
  try {
    const sm = sessions.SessionManager.open(copy, dir);
    const { entries } = summaries.collectEntriesForBranchSummary(sm, sm.getLeafId(), request.target);
    const { messages: prepared, fileOps } = summaries.prepareBranchEntries(entries, request.budget ?? 0);
    const transcript = utils.serializeConversation(messages.convertToLlm(prepared));
    const { readFiles, modifiedFiles } = utils.computeFileLists(fileOps);
    const result = { entryIds: entries.map((e) => e.id), transcript, readFiles, modifiedFiles };
    if (request.reply === undefined) return result;
    return generate(entries, request).then((generated) => ({ ...result, ...generated }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function generate(entries, request) {
  const seen = {};
  const streamFn = async (_model, context) => {
    const system = context.messages.find((m) => m.role === "system");
    const user = context.messages.find((m) => m.role === "user");
    seen.systemPrompt = typeof system?.content === "string" ? system.content : null;
    seen.prompt = user.content[0].text;
    const reply = {
      role: "assistant",
      content: [{ type: "text", text: request.reply }],
      api: "faux",
      provider: "faux",
      model: "faux",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: Date.now(),
    };
    return { result: async () => reply };
  };
  const model = { id: "faux", provider: "faux", api: "faux", contextWindow: request.contextWindow ?? 0, reasoning: false };
  const out = await summaries.generateBranchSummary(entries, {
    model,
    signal: new AbortController().signal,
    customInstructions: request.customInstructions,
    streamFn,
  });
  if (out.error) throw new Error(out.error);
  return { prompt: seen.prompt ?? null, systemPrompt: seen.systemPrompt ?? null, summary: out.summary, details: { readFiles: out.readFiles ?? [], modifiedFiles: out.modifiedFiles ?? [] } };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "pitui-branch-oracle-"));
try {
  const input = readFileSync(0, "utf8").split("\n").filter((line) => line.trim());
  for (const [slot, line] of input.entries()) {
    let result;
    try {
      result = await answer(JSON.parse(line), tmp, slot);
    } catch (error) {
      result = { error: String(error?.message ?? error) };
    }
    process.stdout.write(JSON.stringify(result) + "\n");
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

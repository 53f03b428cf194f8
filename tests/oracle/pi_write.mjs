#!/usr/bin/env node
// pi's own writes, for the tests to hold pitui's against: pi's SessionManager opens a copy of a
// session file and makes one write to it, and this prints the lines that write added.
//
//   node pi_write.mjs fork FILE ENTRY             createBranchedSession(ENTRY): the new file's lines
//   node pi_write.mjs branch-summary FILE ENTRY SUMMARY
//                                                 branchWithSummary(ENTRY, SUMMARY): the line appended
//   node pi_write.mjs label FILE ENTRY [LABEL]    appendLabelChange(ENTRY, LABEL): the line appended
//   node pi_write.mjs name FILE NAME              appendSessionInfo(NAME): the line appended
//   node pi_write.mjs context-edit FILE ENTRY R [T=R2 ...]
//                                                 appendContextEdit(ENTRY, R) (R as JSON: null or
//                                                 {"content": ...}), then appendContextEdit(T, R2)
//                                                 for each further "T=R2": the lines appended
//
// Prints {"piVersion", "lines": [line, ...]} (each line the text pi wrote, without its newline);
// when pi throws, {"piVersion", "error": {"name", "message"}} and exit 3. ENTRY "root" is null
// (branch before everything). The copy lives in a temporary folder, removed afterwards, so pi
// never writes to the file given. The package is found through $PI_PKG.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.PI_PKG;
if (!PKG) {
  process.stderr.write("set PI_PKG to pi's package folder\n");
  process.exit(2);
}
const pi = await import(pathToFileURL(path.join(PKG, "dist", "core", "session-manager.js")).href);
const piVersion = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8")).version;

const [op, file, entry, ...rest] = process.argv.slice(2);
const tmp = mkdtempSync(path.join(os.tmpdir(), "pi-write-"));
try {
  const copy = path.join(tmp, path.basename(file));
  copyFileSync(file, copy);
  const manager = pi.SessionManager.open(copy, tmp);
  const before = readFileSync(copy);
  const target = entry === "root" ? null : entry;
  let written;
  if (op === "fork") {
    const made = manager.createBranchedSession(target);
    written = made ? readFileSync(made) : Buffer.alloc(0);
  } else {
    if (op === "branch-summary") manager.branchWithSummary(target, rest[0]);
    else if (op === "label") manager.appendLabelChange(target, rest[0]);
    else if (op === "name") manager.appendSessionInfo(entry);
    else if (op === "context-edit") {
      // Several edits, each "TARGET=JSON" after the first (whose target is ENTRY).
      manager.appendContextEdit(target, JSON.parse(rest[0]));
      for (const more of rest.slice(1)) {
        const at = more.indexOf("=");
        manager.appendContextEdit(more.slice(0, at), JSON.parse(more.slice(at + 1)));
      }
    }
    else throw new Error(`unknown operation ${op}`);
    written = readFileSync(copy).subarray(before.length);
  }
  const text = written.toString("utf8");
  const lines = text.split("\n").filter((line, i, all) => line !== "" || i < all.length - 1);
  process.stdout.write(`${JSON.stringify({ piVersion, lines, files: readdirSync(tmp).length })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ piVersion, error: { name: error.name, message: error.message } })}\n`);
  process.exitCode = 3;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

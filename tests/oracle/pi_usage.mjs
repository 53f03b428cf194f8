// pi's own usage breakdown of sessions: getUsageCostBreakdown (core/usage-totals.js, what pi 1.6
// groups /session's cost by) over the entries SessionManager.open loads, per file.
//   node pi_usage.mjs -      file names read from stdin, one a line
// Prints {file: [{key, cost, tokens}] or {"error": message}}. The package: $PI_PKG, else pi 1.6.0
// in node_modules beside this script.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_PKG || path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");
const url = (rel) => pathToFileURL(path.join(PKG, rel)).href;
const { SessionManager } = await import(url("dist/core/session-manager.js"));
const { getUsageCostBreakdown } = await import(url("dist/core/usage-totals.js"));

const files = readFileSync(0, "utf8").split("\n").filter(Boolean);
const tmp = mkdtempSync(path.join(os.tmpdir(), "pi-usage-"));
const out = {};
try {
  files.forEach((file, slot) => {
    // a copy: opening a file that lacks its last newline appends one
    const dir = path.join(tmp, String(slot));
    mkdirSync(dir);
    const copy = path.join(dir, path.basename(file));
    copyFileSync(file, copy);
    try {
      out[file] = getUsageCostBreakdown(SessionManager.open(copy, dir).getEntries());
    } catch (error) {
      out[file] = { error: String(error && error.message) };
    }
  });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out));

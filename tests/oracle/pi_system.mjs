#!/usr/bin/env node
// pi-ai's own replay of a transcript's system messages (utils/transcript.js, pi 1.6), for the
// tests to compare pitui.store.system_prompt with.
//
//   node pi_system.mjs < REQUESTS        one JSON array of messages a line, one JSON answer a line
//
// The answer: {"message": getCurrentSystemMessage(messages) or null, "text":
// getCurrentSystemPrompt(messages)}, or {"error": message} when pi-ai throws. pi-ai is found
// beside the pi-coding-agent package named by $PI_PKG (its own node_modules, or the folder above
// it), else in node_modules beside this script.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const candidates = [
  ...(process.env.PI_PKG
    ? [path.join(process.env.PI_PKG, "node_modules", "@earendil-works", "pi-ai"), path.join(process.env.PI_PKG, "..", "pi-ai")]
    : []),
  path.join(HERE, "node_modules", "@earendil-works", "pi-ai"),
];
const piAi = candidates.find((dir) => existsSync(path.join(dir, "dist", "utils", "transcript.js")));
if (!piAi) {
  process.stderr.write(`pi-ai (with utils/transcript.js) not found in: ${candidates.join(", ")}\n`);
  process.exit(2);
}
const { getCurrentSystemMessage, getCurrentSystemPrompt } = await import(
  pathToFileURL(path.join(piAi, "dist", "utils", "transcript.js")).href
);

const out = [];
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (!line) continue;
  const messages = JSON.parse(line);
  try {
    out.push(JSON.stringify({ message: getCurrentSystemMessage(messages) ?? null, text: getCurrentSystemPrompt(messages) }));
  } catch (e) {
    out.push(JSON.stringify({ error: e.message }));
  }
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));

#!/usr/bin/env node
// pi 1.6's /resume search, run by pi itself, for pitui's tests to compare with.
//
//   node pi_search.mjs DIR < REQUEST
//
// DIR is listed with SessionManager.listAll(DIR) (every session in the folder, no cwd filter,
// in pi's order). REQUEST is JSON: {"queries": [query, ...], "modes": ["threaded", "recent",
// "relevance"], "nameFilter": "all" | "named"}. Printed: {"piVersion", "sessions": [every listed
// session, in pi's order, with the fields of `pitui ls --json`], "results": [{query, mode, paths: [...] (pi's
// filterAndSortSessions), scores: [...] (matchSession's score of each of those)}, ...],
// "crashing": [sessions left out because pi's search throws on them]}.
//
// Listing only reads (buildSessionInfo streams each file), so no copy is made. The package is
// found through $PI_PKG (the package folder), else in node_modules beside this script.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = process.env.PI_PKG || path.join(HERE, "node_modules", "@earendil-works", "pi-coding-agent");

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write("usage: node pi_search.mjs DIR < REQUEST\n");
    process.exit(2);
  }
  const dist = path.join(PKG, "dist");
  const { SessionManager } = await import(pathToFileURL(path.join(dist, "core", "session-manager.js")).href);
  const search = await import(
    pathToFileURL(path.join(dist, "modes", "interactive", "components", "session-selector-search.js")).href
  );
  const version = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8")).version;
  const request = JSON.parse(readFileSync(0, "utf8"));
  const listedAll = await SessionManager.listAll(path.resolve(dir));
  // A listed session whose header id is not a string makes pi's search throw on every query
  // (session.id.toLowerCase): those are left out, and named in "crashing".
  const sessions = listedAll.filter((s) => typeof s.id === "string");
  const crashing = listedAll.filter((s) => typeof s.id !== "string").map((s) => s.path);
  const nameFilter = request.nameFilter || "all";
  const results = [];
  for (const query of request.queries) {
    const parsed = search.parseSearchQuery(query);
    for (const mode of request.modes) {
      const found = search.filterAndSortSessions(sessions, query, mode, nameFilter);
      results.push({
        query,
        mode,
        paths: found.map((s) => s.path),
        scores: found.map((s) => (query.trim() && !parsed.error ? search.matchSession(s, parsed).score : 0)),
      });
    }
  }
  const listed = listedAll.map((s) => ({
    path: s.path, id: s.id, cwd: s.cwd, name: s.name ?? null, parentSessionPath: s.parentSessionPath ?? null,
    created: isNaN(s.created) ? null : s.created.toISOString(),
    modified: isNaN(s.modified) ? null : s.modified.toISOString(),
    messageCount: s.messageCount, firstMessage: s.firstMessage,
  }));
  process.stdout.write(JSON.stringify({ piVersion: version, sessions: listed, crashing, results }) + "\n");
}

main().catch((error) => {
  process.stderr.write(`${error?.stack || error}\n`);
  process.exit(1);
});

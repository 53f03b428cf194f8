#!/usr/bin/env node
// Real sessions written by pi 1.6 itself: pi's AgentSession driven through its SDK with pi-ai's
// scripted faux provider (no network, no model), running its real tools in scratch projects.
//
//   PI_PKG=<@earendil-works/pi-coding-agent folder> node pi_written.mjs SESSIONS_DIR PROJECTS_DIR
//
// Needs Node >= 22.19 (pi's AgentSession). Writes every session into SESSIONS_DIR (one flat
// folder, as pi's --session-dir), makes the projects the sessions work in under PROJECTS_DIR,
// and prints one JSON object: {"piVersion", "sessions": [{"file", "cwd", "story"}, ...]}.
// The faux answers are fixed; ids, timestamps and tool timings are pi's own and vary per run.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [sessionsArg, projectsArg] = process.argv.slice(2);
if (!sessionsArg || !projectsArg || !process.env.PI_PKG) {
	process.stderr.write("usage: PI_PKG=<pi 1.6 package> node pi_written.mjs SESSIONS_DIR PROJECTS_DIR\n");
	process.exit(2);
}
const sessionsDir = path.resolve(sessionsArg);
const projectsDir = path.resolve(projectsArg);
const PKG = path.resolve(process.env.PI_PKG);
const piVersion = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;

function findPiAi() {
	for (const dir of [path.join(PKG, "node_modules", "@earendil-works", "pi-ai"), path.join(path.dirname(PKG), "pi-ai")]) {
		if (fs.existsSync(path.join(dir, "dist", "index.js"))) return dir;
	}
	throw new Error(`@earendil-works/pi-ai not found next to ${PKG}`);
}
const pi = await import(pathToFileURL(path.join(PKG, "dist", "index.js")).href);
const ai = await import(pathToFileURL(path.join(findPiAi(), "dist", "index.js")).href);
const { fauxAssistantMessage: reply, fauxText: text, fauxThinking: thinking, fauxToolCall } = ai;

fs.mkdirSync(sessionsDir, { recursive: true });
const agentDir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-written-agent-"));

// ------------------------------------------------------------------------------------------------
// the scratch projects

function project(name, files) {
	const dir = path.join(projectsDir, name);
	fs.mkdirSync(dir, { recursive: true });
	for (const [file, body] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.writeFileSync(path.join(dir, file), body);
	}
	return dir;
}

const LOREM =
	"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ";
const projA = project("alpha", {
	"notes.md": "# Notes\n\nTODO: fix the teh typo\nsecond line\n",
	"src/app.py": "def main():\n    print('hello')  # TODO greet by name\n",
	"data.csv": "a,b\n1,2\n",
});
const projB = project("beta", { "README.txt": "beta project\n" });

// A 1x1 PNG.
const PNG = {
	type: "image",
	mimeType: "image/png",
	data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
};

// ------------------------------------------------------------------------------------------------
// pi, with the faux provider

const faux = ai.fauxProvider({
	provider: "faux",
	models: [
		{ id: "faux-1", name: "Faux One", reasoning: true, input: ["text", "image"], contextWindow: 32000 },
		{ id: "faux-2", name: "Faux Two", reasoning: true, input: ["text", "image"], contextWindow: 32000 },
	],
});
const modelRuntime = await pi.ModelRuntime.create({ authPath: path.join(agentDir, "auth.json"), modelsPath: null });
modelRuntime.registerNativeProvider(faux.provider);

async function start(cwd) {
	const sessionManager = pi.SessionManager.create(cwd, sessionsDir);
	const settingsManager = pi.SettingsManager.inMemory({
		compaction: { enabled: false, reserveTokens: 2000, keepRecentTokens: 300 },
		retry: { enabled: false },
		cacheWarming: "off",
		enableInstallTelemetry: false,
	});
	const { session } = await pi.createAgentSession({
		cwd,
		agentDir,
		model: faux.getModel("faux-1"),
		thinkingLevel: "medium",
		modelRuntime,
		sessionManager,
		settingsManager,
		tools: ["read", "bash", "edit", "write", "grep", "ls"],
	});
	return session;
}

let callNo = 0;
const call = (name, args) => fauxToolCall(name, args, { id: `call_${++callNo}` });
const toolUse = (...blocks) => reply(blocks, { stopReason: "toolUse" });
const summary = (title) => () => reply(`## Goal\n${title}\n\n## Progress\n- done what was asked\n\n## Next Steps\n- none`);

async function ask(session, prompt, answers, options) {
	faux.setResponses(answers);
	await session.prompt(prompt, options);
	const left = faux.getPendingResponseCount();
	if (left !== 0) throw new Error(`${left} scripted answers left after ${JSON.stringify(prompt)}`);
}

const entries = (session) => session.sessionManager.getEntries();
const lastOf = (session, pred) => entries(session).filter(pred).at(-1);
const isRole = (role) => (e) => e.type === "message" && e.message.role === role;
const userWith = (session, needle) =>
	entries(session).find((e) => isRole("user")(e) && JSON.stringify(e.message.content).includes(needle));
const USAGE = { input: 10, output: 0, cacheRead: 1200, cacheWrite: 0, totalTokens: 1210, cost: { input: 0.00003, output: 0, cacheRead: 0.00036, cacheWrite: 0, total: 0.00039 } };

const written = [];
function done(session, story) {
	written.push({ file: session.sessionManager.getSessionFile(), cwd: session.sessionManager.getCwd(), story });
	session.dispose?.();
}

// ------------------------------------------------------------------------------------------------
// 1. tools: every built-in tool, tool errors, `!` runs, an image, assistant errors, model and
//    thinking changes, a name with CR/LF, labels, usage entries

{
	const s = await start(projA);
	s.setSessionName("Tool\r\ntour\n\nof alpha");
	await ask(s, "Look around the project", [
		reply([thinking("I should list the folder first."), call("ls", { path: "." })], { stopReason: "toolUse" }),
		toolUse(call("read", { path: "notes.md" }), call("grep", { pattern: "TODO", path: "." })),
		reply([thinking("Two TODOs."), text("The project has notes, a CSV and one Python file; there are two TODOs.")]),
	]);
	await ask(s, "Fix the typo in notes.md and add a changelog", [
		toolUse(call("edit", { path: "notes.md", edits: [{ oldText: "the teh typo", newText: "the typo" }] })),
		toolUse(call("write", { path: "CHANGELOG.md", content: "# Changelog\n\n- fixed a typo\n" })),
		toolUse(call("bash", { command: "cat CHANGELOG.md && wc -l notes.md" })),
		reply("Fixed the typo and wrote CHANGELOG.md."),
	]);
	await ask(s, "Now break things", [
		toolUse(call("read", { path: "missing.txt" })),
		toolUse(call("edit", { path: "notes.md", edits: [{ oldText: "no such text", newText: "x" }] })),
		toolUse(call("bash", { command: "echo failing >&2; exit 3" })),
		reply("Three tools failed, as asked."),
	]);
	await s.executeBash("echo from-bang && ls");
	await s.executeBash("echo hidden from context", undefined, { excludeFromContext: true });
	await ask(s, "What is in this image?", [reply("A single pixel.")], { images: [PNG] });
	await ask(s, "Try again", [reply([], { stopReason: "error", errorMessage: "faux: 529 overloaded" })]);
	await ask(s, "And once more", [
		reply([text("Partial answer bef")], { stopReason: "aborted", errorMessage: "Request was aborted" }),
	]);
	await s.setModel(faux.getModel("faux-2"));
	s.setThinkingLevel("high");
	await ask(s, "Which model are you?", [reply([thinking("deep thought"), text("faux-2, thinking hard.")])]);
	const first = userWith(s, "Look around");
	s.sessionManager.appendLabelChange(first.id, "start");
	s.sessionManager.appendLabelChange(lastOf(s, isRole("assistant")).id, "model-two");
	s.sessionManager.appendLabelChange(first.id, undefined);
	s.sessionManager.appendLabelChange(first.id, "tour-start");
	s.sessionManager.appendUsage("cache_warm", "faux", "faux-2", USAGE);
	s.sessionManager.appendUsage("cache_warm", "faux", "faux-2", USAGE, "extension override");
	done(s, "tools");
}

// ------------------------------------------------------------------------------------------------
// 2. compactions, tree moves with and without a summary, context edits, labels; then a clone and
//    a fork of it

let compacted;
{
	const s = await start(projA);
	for (let i = 1; i <= 4; i++) {
		await ask(s, `Question ${i}: ${LOREM.repeat(6)}`, [
			...(i === 2 ? [toolUse(call("read", { path: "data.csv" }))] : []),
			reply(`Answer ${i}: ${LOREM.repeat(6)}`),
		]);
	}
	s.sessionManager.appendLabelChange(userWith(s, "Question 1").id, "q1");
	faux.setResponses([summary("compaction one"), summary("compaction one, turn prefix")]);
	await s.compact();
	faux.setResponses([]);
	await ask(s, `Question 5 after compaction: ${LOREM.repeat(6)}`, [reply(`Answer 5: ${LOREM.repeat(6)}`)]);
	const q5 = userWith(s, "Question 5");
	const a5 = lastOf(s, isRole("assistant"));
	await ask(s, "Question 6", [toolUse(call("bash", { command: "ls -1" })), reply(`Answer 6: ${LOREM.repeat(6)}`)]);
	const toolResult = lastOf(s, isRole("toolResult"));
	const a6 = lastOf(s, isRole("assistant"));
	s.sessionManager.appendContextEdit(q5.id, { content: "Question 5, shortened" });
	s.sessionManager.appendContextEdit(a5.id, { content: "Answer 5, shortened" });
	s.sessionManager.appendContextEdit(toolResult.id, { content: [{ type: "text", text: "(listing elided)" }] });
	s.sessionManager.appendContextEdit(a6.id, null);
	s.sessionManager.appendLabelChange(a6.id, "omitted");
	// Back to answer 5 with a summary of what is left behind (the faux model writes it).
	faux.setResponses([summary("the abandoned question 6")]);
	const nav = await s.navigateTree(a5.id, { summarize: true });
	if (!nav.summaryEntry) throw new Error("navigateTree wrote no branch summary");
	await ask(s, `Question 7 on a new branch: ${LOREM.repeat(4)}`, [reply(`Answer 7: ${LOREM.repeat(4)}`)]);
	// Back to before question 5 without a summary: the leaf moves in memory, the next prompt
	// branches off there.
	const nav2 = await s.navigateTree(q5.id, { summarize: false });
	if (nav2.cancelled) throw new Error("navigateTree was cancelled");
	await ask(s, `Question 8, another branch: ${LOREM.repeat(6)}`, [reply(`Answer 8: ${LOREM.repeat(6)}`)]);
	await ask(s, `Question 9: ${LOREM.repeat(6)}`, [reply(`Answer 9: ${LOREM.repeat(6)}`)]);
	s.sessionManager.appendLabelChange(userWith(s, "Question 8").id, "q8");
	faux.setResponses([summary("compaction two"), summary("compaction two, turn prefix")]);
	await s.compact();
	faux.setResponses([]);
	await ask(s, "Question 10, the last", [reply("Answer 10.")]);
	s.sessionManager.appendUsage("cache_warm", "faux", "faux-1", USAGE);
	compacted = { file: s.sessionManager.getSessionFile(), q10: userWith(s, "Question 10").id };
	done(s, "compactions");
}

// /clone (at the leaf) and /fork (before a user message) of the compacted session, the way
// AgentSessionRuntime.fork does them: the file reopened, then createBranchedSession.
{
	const clone = pi.SessionManager.open(compacted.file, sessionsDir);
	clone.createBranchedSession(clone.getLeafId());
	written.push({ file: clone.getSessionFile(), cwd: clone.getCwd(), story: "clone" });
	const fork = pi.SessionManager.open(compacted.file, sessionsDir);
	fork.createBranchedSession(fork.getEntry(compacted.q10).parentId);
	written.push({ file: fork.getSessionFile(), cwd: fork.getCwd(), story: "fork" });
}

// ------------------------------------------------------------------------------------------------
// 3. a one-exchange session in the same project, and one in another project

{
	const s = await start(projA);
	await ask(s, "Just say hi", [reply("Hi.")]);
	done(s, "short");
}
{
	const s = await start(projB);
	await ask(s, "What is this project?", [toolUse(call("read", { path: "README.txt" })), reply("The beta project.")]);
	done(s, "other-cwd");
}

fs.rmSync(agentDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ piVersion, sessions: written })}\n`);
process.exit(0);

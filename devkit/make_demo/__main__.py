"""Write the demo sessions in pitui/demo/ (deterministic: fixed seeds, fixed timestamps).

    python -m devkit.make_demo            # (re)write pitui/demo/sessions/...
    PI_ORACLE=tests/oracle/pi_session.mjs python -m devkit.make_demo --check
                                          # also load every file with pi's SessionManager

Each session is a module of ``devkit.make_demo.sessions``. Under ``devkit/make_demo/projects/``,
``weatherapp/`` and ``shortlinks/`` are the two projects as their first sessions find them, and
``<session>/`` holds what that session writes, its longer edit texts and its tools' longer outputs,
read byte for byte.

The files are laid out as under a pi agent folder (``sessions/<encoded cwd>/<ts>_<id>.jsonl``).
Two projects, so the all-projects view has something to show:

weatherapp (/home/user/projects/weatherapp, a Python CLI for Open-Meteo)

1. ``cache`` "Cache never expires after reboot" (claude-opus-4-5, thinking high). A debugging
   session with three branches. The cache stored ``time.monotonic()``; a regression test fails
   (toolResult with isError). Branch A fixes it with ``time.time()``; the user goes back in /tree
   with a summary (``branch_summary`` parented at the assistant's options message). Branch B asks
   for a migration and is interrupted (stopReason ``aborted``); the user edits that prompt
   (navigation without summary, nothing written) and branch C stores ISO UTC timestamps. Labels:
   ``repro`` set on the failing test result and later changed to ``regression test``; ``fix-v1`` set
   on branch A's edit and cleared after going back; ``fix`` set on branch C's edit. Session name
   set with ``session_info``. The leaf (last line) is on branch C. Tools: read, grep, write, edit
   (with diff details), bash.
2. ``units`` "--units imperial" (claude-sonnet-4-5, thinking medium). A long linear session: a new
   option across three files, a failing test and its fix; ``!`` commands (bashExecution), one of
   them ``!!`` (excludeFromContext); a user message with an image block (a tiny PNG "screenshot");
   a manual compaction with ``firstKeptEntryId`` (v0.58-style, no retainedTail), then more work
   after it.
3. ``fork`` "Cache: clear command and --no-cache" (fork of 1). Header ``parentSession`` points at
   session 1 (``/DEMO_AGENT_DIR/...``, see pitui/demo/README.md). Made like pi's /fork on the "Commit
   it." message: the path of branch C without label entries, re-linked (no orphans), then the two
   labels still set on that path as a chain with their original timestamps. It then switches to
   openai/gpt-5.1-codex (model_change, thinking_level_change mid-session; toolCall ids of the
   ``call_...|fc_...`` form), has a failing test (isError), switches back to claude-opus-4-5, and
   gets an ``error`` stopReason with an Anthropic 529 errorMessage before the commit succeeds.

shortlinks (/home/user/projects/shortlinks, a small Flask link shortener)

4. ``slugs`` "Non-ASCII slugs -> 400" (claude-sonnet-4-5, thinking low). A 500 on non-ASCII
   slugs. A ``custom_message`` from an extension (git-context, string content, displayed) after
   the first prompt, and later one with block content that is not displayed; ``custom`` entries
   (an extension's todo state). A first approach (percent-encoding) is abandoned with a
   ``branch_summary``; an assistant turn with two parallel tool calls; a compaction that also
   carries a ``retainedTail`` key (copies of the kept messages, which no released pi reads: the
   context comes from ``firstKeptEntryId``) and ``usage``; session name set at the end.
5. ``ratelimit`` "Docs: rate limiting" (claude-sonnet-4-5, thinking off then low). Short and linear:
   an explanation, an ``error`` stopReason (529 overloaded, empty content, zero usage) followed by
   a thinking level change and a retry, a ``write`` of a docs file; the session name set and later
   renamed.
6. ``docker`` (claude-opus-4-5, thinking medium). A Dockerfile and compose file; ``docker compose
   build`` fails (isError) because the daemon is down, the user starts it with a ``!`` command, and
   ``!!`` looks at logs. A session name set and then cleared with ``""``, so it lists unnamed.

Every file is what pi 1.6.0 writes: header ``{"type":"session","version":3,"id":<uuidv7>,
"timestamp","cwd"}``, then a ``model_change`` root and a ``thinking_level_change``, then the
``system`` message pi records before the first request (the sections and tool definitions of
``devkit/make_demo/pi16_system.json``, taken from a session pi 1.6.0 wrote) and the first user
message (the fork starts with the copied path instead); ``thinkingLevel`` on every assistant
message, ``durationMs`` on tool results; compactions with ``fromHook: false`` and the
``systemMessage`` checkpoint; a ``context_edit`` (units: the README as read before its edit,
replaced) and ``usage`` cache-warm entries (the leaf of units and ratelimit); entries in pi
1.6's key order, 8-hex ids, ISO timestamps with milliseconds; message timestamps in Unix ms;
usage with tokens and cost. ``--check`` loads each file in pi 1.6.0 (``$PI_ORACLE``, by default
``tests/oracle/pi_session.mjs`` on pi 1.6.0).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from devkit.make_demo.sessions import cache, docker, fork, ratelimit, rel_path, slugs, units
from devkit.oracle import open_copy_in_pi
from devkit.simulator import Session

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "pitui" / "demo"


# ==================================================================================================


def build() -> list[tuple[str, Session, dict]]:
    cache_s, cache_expect = cache.build()
    fork_s, fork_expect = fork.build(cache_s)
    units_s, units_expect = units.build(fork_s.files)
    slugs_s, slugs_expect = slugs.build()
    ratelimit_s, ratelimit_expect = ratelimit.build(slugs_s.files)
    docker_s, docker_expect = docker.build(ratelimit_s.files)
    return [
        ("cache", cache_s, cache_expect),
        ("fork", fork_s, fork_expect),
        ("units", units_s, units_expect),
        ("slugs", slugs_s, slugs_expect),
        ("ratelimit", ratelimit_s, ratelimit_expect),
        ("docker", docker_s, docker_expect),
    ]


def write_all(sessions: list[tuple[str, Session, dict]]) -> list[Path]:
    out = DEMO / "sessions"
    if out.exists():
        shutil.rmtree(out)
    paths = []
    for _key, s, _ in sessions:
        p = DEMO / rel_path(s)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(s.to_bytes())
        paths.append(p)
    return paths


# ---- checking with pi's own SessionManager ------------------------------------------------------


def expected_tree(s: Session) -> dict:
    children: dict[str, list[str]] = {}
    roots = []
    for e in s.entries:
        if e["parentId"] is None or e["parentId"] not in s.by_id:
            roots.append(e["id"])
        else:
            children.setdefault(e["parentId"], []).append(e["id"])
    # Timestamps grow in file order in these files, except label chains in a fork.
    for k, v in children.items():
        children[k] = sorted(v, key=lambda i: s.by_id[i]["timestamp"])
    return {"roots": roots, "children": children}


def context_roles(s: Session) -> list[str]:
    """Context roles by pi's rule: the latest compaction, the entries from its firstKeptEntryId
    on, then the entries after it (a retainedTail key is not read)."""
    path = s.path()
    comp = max((i for i, e in enumerate(path) if e["type"] == "compaction"), default=None)

    omitted = {e["targetId"] for e in path if e["type"] == "context_edit" and e["replacement"] is None}

    def roles(e: dict) -> list[str]:
        if e["id"] in omitted:
            return []
        if e["type"] == "message":
            return [e["message"]["role"]]
        if e["type"] == "custom_message":
            return ["custom"]
        if e["type"] == "branch_summary" and e["summary"]:
            return ["branchSummary"]
        if e["type"] == "compaction":
            return ["system", "compactionSummary"] if e.get("systemMessage") else ["compactionSummary"]
        return []

    if comp is None:
        return [r for e in path for r in roles(e)]
    c = path[comp]
    ids = [e["id"] for e in path[:comp]]
    start = ids.index(c["firstKeptEntryId"]) if c.get("firstKeptEntryId") in ids else comp
    selected = [c, *path[start:comp], *path[comp + 1 :]]
    out = []
    for e in selected:
        kept_system = e is not c and e["type"] == "message" and e["message"]["role"] == "system"
        out += roles(e) if e is c or (e["type"] != "compaction" and not kept_system) else []
    return out


def check(sessions: list[tuple[str, Session, dict]], paths: list[Path]) -> bool:
    ok = True
    for (key, s, exp), path in zip(sessions, paths, strict=True):
        res = open_copy_in_pi(path)
        if res.returncode != 0:
            print(f"{key}: oracle failed: {res.stderr.strip()[:500]}")
            ok = False
            continue
        got = json.loads(res.stdout)
        problems = []
        if got["header"] != s.header:
            problems.append("header")
        if [e[0] for e in got["entryIds"]] != [e["id"] for e in s.entries]:
            problems.append("entry ids")
        if got["leafId"] != s.entries[-1]["id"]:
            problems.append(f"leaf {got['leafId']}")
        if got["branch"] != [e["id"] for e in s.path()]:
            problems.append("branch")
        if got["tree"] != expected_tree(s):
            problems.append("tree")
        if got["labels"] != exp["labels"] or got["labels"] != s.labels:
            problems.append(f"labels {got['labels']}")
        if got["name"] != exp["name"] or got["name"] != s.name:
            problems.append(f"name {got['name']!r}")
        points = sum(1 for v in got["tree"]["children"].values() if len(v) > 1)
        if points != exp["branch_points"]:
            problems.append(f"branch points {points}")
        roles = [m["role"] for m in got["context"]["messages"]]
        if roles != context_roles(s):
            problems.append("context differs from pi's rule")
        print(
            f"{key:9} {len(s.entries):3} entries, leaf {got['leafId']}, path {len(got['branch'])}, "
            f"branch points {points}, labels {got['labels']}, name {got['name']!r}, "
            f"context {len(roles)} messages ({', '.join(sorted(set(roles)))}), model "
            f"{got['context']['model']['modelId']}, thinking {got['context']['thinkingLevel']}"
        )
        for p in problems:
            print(f"  MISMATCH: {p}")
        ok = ok and not problems
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(prog="python -m devkit.make_demo", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="load every file with pi's SessionManager")
    args = ap.parse_args()
    sessions = build()
    paths = write_all(sessions)
    for p in paths:
        print(p.relative_to(ROOT))
    if args.check:
        return 0 if check(sessions, paths) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Session 4, shortlinks: non-ASCII slugs (custom entries, a branch summary, a compaction with
retainedTail)."""

from __future__ import annotations

from devkit.make_demo.sessions import SHORTLINKS_CWD, data, scripted_session
from devkit.simulator import Session
from devkit.tool_calls import bash, edit, pytest_quiet, read, write


def build() -> tuple[Session, dict]:
    s = scripted_session(104, SHORTLINKS_CWD, "2026-03-18T10:02:44.871Z", "anthropic/claude-sonnet-4-5", "low")
    s.user(
        'POST /api/links returns a 500 when the slug has non-ASCII characters, e.g. {"url": '
        '"https://example.org/tokyo", "slug": "東京-guide"}. I\'d expect a 400, or for it to just '
        "work. Can you look?",
        think=(30, 60),
    )
    s.custom_message(
        "git-context",
        "Branch: main (up to date with origin/main)\nLast commit: 61d0b2e Add /healthz\nWorking tree clean",
        True,
        {"branch": "main", "ahead": 0, "behind": 0, "dirty": False},
    )
    s.step(
        thinking="Slug validation is in slugs.py; the 500 probably comes from somewhere after validation.",
        tools=[read("shortlinks/slugs.py"), read("shortlinks/app.py")],
    )
    repro = s.step(
        "`is_valid()` uses `str.isalnum()`, which is true for any Unicode letter — so `東京-guide` "
        "passes validation. Let me reproduce the 500.",
        tools=[
            bash(
                "uv run flask --app shortlinks.app run --port 5055 >/tmp/flask.log 2>&1 & sleep 1; "
                "curl -s -i -X POST localhost:5055/api/links -H 'content-type: application/json' "
                '-d \'{"url":"https://example.org/tokyo","slug":"東京-guide"}\'; kill %1; tail -n 5 /tmp/flask.log',
                data("slugs", "flask-500.txt"),
                duration=2.4,
            )
        ],
    )[0]
    s.step(
        "The link is stored, then the response fails: `Location: /東京-guide` can't be encoded, "
        "because HTTP header values are Latin-1. Two ways out: percent-encode the slug in headers "
        "(keep Unicode slugs), or only allow ASCII slugs. I'll try percent-encoding first, since it "
        "keeps the feature.",
        tools=[
            edit(
                "shortlinks/app.py",
                (
                    "from flask import Flask, abort, jsonify, redirect, request\n",
                    "from urllib.parse import quote\n\nfrom flask import Flask, abort, jsonify, redirect, request\n",
                ),
                (
                    '        resp.headers["Location"] = f"/{slug}"\n',
                    '        resp.headers["Location"] = "/" + quote(slug, safe="")\n',
                ),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run pytest -q && uv run flask --app shortlinks.app run --port 5055 >/dev/null 2>&1 & sleep 1; "
                "curl -s -o /dev/null -D - -X POST localhost:5055/api/links -H 'content-type: application/json' "
                '-d \'{"url":"https://example.org/tokyo","slug":"東京-guide-2"}\' | head -n 1; '
                "curl -s -o /dev/null -w '%{http_code} %{redirect_url}\\n' "
                "localhost:5055/%E6%9D%B1%E4%BA%AC-guide-2; kill %1",
                pytest_quiet("." * 8, "8 passed in 0.22s") + "\nHTTP/1.1 201 CREATED\n302 https://example.org/tokyo",
                duration=3.1,
            )
        ]
    )
    s.say(
        "With percent-encoding, creating `東京-guide-2` returns 201 with `Location: "
        "/%E6%9D%B1%E4%BA%AC-guide-2`, and following that URL redirects correctly (Flask decodes "
        "the path). All 8 tests pass.\n\nOne caveat: `東京-guide` and visually identical slugs in other "
        "scripts or normalisation forms (NFC vs NFD) are different keys in the database."
    )
    s.branch_summary(
        repro,
        data("slugs", "percent-encoding-summary.md"),
    )
    s.user(
        "Let's not support Unicode slugs at all (homoglyphs, normalisation…). Allow a-z, 0-9 and '-', "
        "return 400 with a clear error otherwise. Revert the quote() change in app.py.",
        think=(30, 60),
    )
    s.custom(
        "todo",
        {
            "items": [
                {"text": "ASCII-only slugs + 400", "done": False},
                {"text": "revert quote() in app.py", "done": False},
                {"text": "tests for rejected slugs", "done": False},
            ]
        },
    )
    s.step(
        thinking="Regex ^[a-z0-9]+(?:-[a-z0-9]+)*$, length 3..32. Error message should say what is allowed.",
        tools=[
            edit(
                "shortlinks/slugs.py",
                ("import secrets\nimport string\n", "import re\nimport secrets\nimport string\n"),
                (
                    "ALPHABET = string.ascii_lowercase + string.digits\n",
                    "ALPHABET = string.ascii_lowercase + string.digits\n"
                    'SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")\n'
                    'RULES = "3-32 characters: a-z, 0-9 and single dashes between them"\n',
                ),
                (
                    '    return 3 <= len(slug) <= 32 and all(c.isalnum() or c == "-" for c in slug)\n',
                    "    return 3 <= len(slug) <= 32 and SLUG_RE.fullmatch(slug) is not None\n",
                ),
            ),
            edit(
                "shortlinks/app.py",
                (
                    "from urllib.parse import quote\n\nfrom flask import Flask, abort, jsonify, redirect, request\n",
                    "from flask import Flask, abort, jsonify, redirect, request\n",
                ),
                (
                    '        resp.headers["Location"] = "/" + quote(slug, safe="")\n',
                    '        resp.headers["Location"] = f"/{slug}"\n',
                ),
                (
                    '            return jsonify(error="invalid slug"), 400\n',
                    '            return jsonify(error=f"invalid slug: {slugs.RULES}"), 400\n',
                ),
            ),
        ],
    )
    s.step(
        tools=[
            edit(
                "tests/test_api.py",
                ("def test_create_random_slug(client):", "import pytest\n\n\ndef test_create_random_slug(client):"),
                (
                    "def test_duplicate_slug(client):",
                    data("slugs", "test_api-bad-slug.new.py"),
                ),
            )
        ]
    )
    s.step(
        tools=[
            bash(
                "uv run pytest -q",
                pytest_quiet("." + "F" + "." * 13, data("slugs", "pytest-summer-sale-fails.txt")),
                exit_code=1,
                duration=2.0,
            )
        ]
    )
    s.say(
        "The new rejections all work, but an existing test creates `Summer-Sale`, which has "
        "uppercase letters and is now a 400.\n\nShould slugs be case-insensitive (lowercased on "
        "create and on lookup), or should uppercase be rejected?"
    )
    kept = s.user("Lowercase them on create, and make lookups case-insensitive too.", think=(15, 30))
    s.step(
        "Normalising in one place (`slugs.normalize`) and using it on create and lookup:",
        tools=[
            edit(
                "shortlinks/slugs.py",
                (
                    "def is_valid(slug: str) -> bool:",
                    "def normalize(slug: str) -> str:\n"
                    '    """Slugs are case-insensitive: store and look them up lowercased."""\n'
                    "    return slug.strip().lower()\n\n\n"
                    "def is_valid(slug: str) -> bool:",
                ),
            ),
            edit(
                "shortlinks/app.py",
                (
                    '        slug = body.get("slug") or slugs.random_slug()\n',
                    '        slug = slugs.normalize(body.get("slug") or "") or slugs.random_slug()\n',
                ),
                (
                    "    def follow(slug: str):\n        link = db.get_link(slug)\n",
                    "    def follow(slug: str):\n"
                    "        slug = slugs.normalize(slug)\n"
                    "        link = db.get_link(slug)\n",
                ),
                (
                    "        return jsonify(slug=slug, hits=db.hit_count(slug))\n",
                    "        slug = slugs.normalize(slug)\n"
                    "        return jsonify(slug=slug, hits=db.hit_count(slug))\n",
                ),
            ),
            edit(
                "tests/test_api.py",
                (
                    '    assert resp.headers["Location"] == "/Summer-Sale"\n',
                    '    assert resp.headers["Location"] == "/summer-sale"\n'
                    '    assert client.get("/SUMMER-sale").status_code == 302\n',
                ),
            ),
        ],
    )
    s.step(tools=[bash("uv run pytest -q", pytest_quiet("." * 15, "15 passed in 0.25s"), duration=2.0)])
    s.say(
        "Done:\n\n- `slugs.is_valid()`: 3–32 characters, `a-z`, `0-9` and single dashes between "
        "them; the 400 error says so.\n- `slugs.normalize()` lowercases on create, redirect and "
        "stats, so `/SUMMER-sale` finds `summer-sale`.\n- `quote()` is reverted.\n- New parametrised "
        "test for rejected slugs (including `ﬁle` with the U+FB01 ligature). 15 tests pass."
    )
    s.custom(
        "todo",
        {
            "items": [
                {"text": "ASCII-only slugs + 400", "done": True},
                {"text": "revert quote() in app.py", "done": True},
                {"text": "tests for rejected slugs", "done": True},
            ]
        },
    )
    s.compaction(
        data("slugs", "compaction-summary.md"),
        kept,
        retained_tail=True,
        with_usage=True,
    )
    s.user(
        "Good point about existing links. Write a one-off check that lists slugs in the db that "
        "would be unreachable now (uppercase or invalid).",
        think=(40, 70),
    )
    s.custom_message(
        "git-context",
        [
            {
                "type": "text",
                "text": "Branch: main\nUncommitted: shortlinks/app.py, shortlinks/slugs.py, tests/test_api.py",
            }
        ],
        False,
    )
    s.step(
        thinking="A script under scripts/ that opens the db read-only and prints slugs where "
        "normalize(slug) != slug or not is_valid(slug).",
        tools=[
            write(
                "scripts/check_slugs.py",
                data("slugs", "check_slugs.py"),
            )
        ],
    )
    s.step(
        tools=[
            bash(
                "uv run python scripts/check_slugs.py ~/srv/shortlinks/shortlinks.sqlite3",
                "Summer-Sale\thttps://shop.example.org/sale\n"
                "konferenz-München\thttps://example.org/konferenz\n\n"
                "2 unreachable link(s)",
                exit_code=1,
                duration=0.5,
            )
        ]
    )
    s.say(
        "Two links in the production copy are affected:\n\n| slug | problem |\n|---|---|\n"
        "| `Summer-Sale` | uppercase (reachable as `summer-sale` only after renaming it) |\n"
        "| `konferenz-München` | non-ASCII `ü` |\n\nI'd rename them in the database (`update links "
        "set slug = 'summer-sale' …`) and tell whoever shared the second one. Want a migration for "
        "that, or will you do it by hand?"
    )
    s.user("By hand is fine, thanks.", think=(20, 40))
    s.session_info("Non-ASCII slugs → 400")
    expect = {"branch_points": 1, "labels": {}, "name": "Non-ASCII slugs → 400"}
    return s, expect

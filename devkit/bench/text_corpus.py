"""The text the benchmark's sessions are cut from: long strings of prose, code, shell output and
base64, built once per process from the seed, then sliced. Slicing keeps generation fast; the
corpus is large and varied enough that the sessions do not look like copies."""

from __future__ import annotations

import base64
import random


def _words(text: str) -> list[str]:
    return text.split()


_PROSE_WORDS = _words("""
the a to of and in is it that for this with on be as we can not are if should will
file function test error value type state session entry tree branch leaf label message
user assistant tool result output input change fix bug issue code line path folder read
write edit run build check look see add remove update use make sure need want think
first then next now also still just only again here there when where why how what which
because so but or all any each some more most other new old same different right wrong
parse load save open close list show render update cache index scan query search filter
sort group count size time date timestamp offset length buffer stream chunk block byte
config option setting flag default argument parameter return call method class module
import export package dependency version release commit diff patch merge rebase remote
server client request response handler route endpoint status header body json yaml text
async await promise callback event listener queue worker thread process signal timeout
memory disk network socket port host address token key secret hash id uuid random seed
performance slow fast latency throughput benchmark profile trace log debug warning info
works fails passes breaks crashes hangs returns throws logs prints writes reads calls
looks seems appears happens means expect expected actually probably maybe definitely
let's I'll we'll it's that's there's don't doesn't can't won't isn't aren't wasn't
simple complex small large empty full missing broken valid invalid correct careful
because before after during until while since unless although however therefore
""")

_RARE_WORDS = _words("""
idempotent serialization backpressure monotonic invariant heuristic amortized quadratic
deduplicate normalization tokenizer concurrency deterministic reproducible regression
migration rollback checkpoint compaction summarization truncation pagination virtualization
unicode surrogate codepoint grapheme escape sequence terminal viewport scrollback keybinding
café naïve résumé Zürich 日本語 テスト 中文 ✓ → … «quoted» ünïcödé emoji 🚀 🎉
""")

_IDENT_PARTS = _words("""
session entry tree node leaf label path branch context message tool result cache index
scan row list view item file dir name id parent child root summary model usage cost token
reader writer parser loader builder manager store catalog watcher digest render format
get set load save parse build make find read write open close append update compute resolve
""")

_FILE_DIRS = [
    "src",
    "src/core",
    "src/ui",
    "src/utils",
    "lib",
    "tests",
    "test/fixtures",
    "packages/app/src",
    "packages/core/src",
    "scripts",
    "docs",
    "internal",
    "cmd",
    "pkg/store",
]
_FILE_EXTS = [".ts", ".ts", ".tsx", ".py", ".py", ".go", ".rs", ".js", ".json", ".md", ".toml"]


class Corpus:
    """Long strings of prose, code, shell output and base64 to take slices from."""

    def __init__(self, seed: int, scale: int = 1) -> None:
        rng = random.Random(seed)
        self.prose = self._prose(rng, 2_500_000 * scale)
        self.code = self._code(rng, 2_500_000 * scale)
        self.shell = self._shell(rng, 1_000_000 * scale)
        self.b64 = base64.b64encode(rng.randbytes(300_000)).decode()

    @staticmethod
    def _prose(rng: random.Random, size: int) -> str:
        common = _PROSE_WORDS
        weights = [1.0 / (i + 1) ** 0.8 for i in range(len(common))]
        out: list[str] = []
        total = 0
        while total < size:
            n = rng.randint(6, 22)
            words = rng.choices(common, weights, k=n)
            if rng.random() < 0.35:
                words[rng.randrange(n)] = rng.choice(_RARE_WORDS)
            if rng.random() < 0.4:
                words[rng.randrange(n)] = "`" + _ident(rng) + "`"
            if rng.random() < 0.2:
                words[rng.randrange(n)] = file_path(rng)
            sentence = " ".join(words)
            sentence = sentence[0].upper() + sentence[1:] + rng.choice(".....?!:")
            out.append(sentence)
            out.append("\n\n" if rng.random() < 0.15 else " ")
            total += len(sentence) + 1
        return "".join(out)

    @staticmethod
    def _code(rng: random.Random, size: int) -> str:
        out: list[str] = []
        total = 0
        indent = 0
        while total < size:
            r = rng.random()
            if r < 0.12:
                line = (
                    f"{'export ' if rng.random() < 0.5 else ''}function {_ident(rng)}({_ident(rng)}, {_ident(rng)}) {{"
                )
                indent_next = 1
            elif indent > 0 and r < 0.12 + 0.06 * indent:
                line, indent_next = "}", -1
            elif r < 0.35:
                line = f"const {_ident(rng)} = await {_ident(rng)}({_ident(rng)}, {{ limit: {rng.randint(1, 5000)} }});"
                indent_next = 0
            elif r < 0.45:
                line = f"if ({_ident(rng)}.{_ident(rng)} === {rng.randint(0, 99)}) {{"
                indent_next = 1
            elif r < 0.55:
                line = f"// {' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(3, 12)))}"
                indent_next = 0
            elif r < 0.62:
                line = f"return {_ident(rng)}.{_ident(rng)}({_ident(rng)});"
                indent_next = 0
            elif r < 0.68:
                line = f'import {{ {_ident(rng)}, {_ident(rng)} }} from "./{_ident(rng)}.js";'
                indent_next = 0
            elif r < 0.72:
                line = ""
                indent_next = 0
            elif r < 0.8:
                line = f"throw new Error(`{rng.choice(_PROSE_WORDS)} {_ident(rng)}: ${{{_ident(rng)}}}`);"
                indent_next = 0
            else:
                line = (
                    f"{_ident(rng)}.{_ident(rng)} = {_ident(rng)}[{rng.randint(0, 64)}] ?? "
                    f'"{rng.choice(_RARE_WORDS + _PROSE_WORDS)}";'
                )
                indent_next = 0
            if indent_next < 0:
                indent = max(0, indent - 1)
            text = "    " * indent + line
            if indent_next > 0:
                indent = min(indent + 1, 6)
            out.append(text)
            total += len(text) + 1
        return "\n".join(out) + "\n"

    @staticmethod
    def _shell(rng: random.Random, size: int) -> str:
        out: list[str] = []
        total = 0
        while total < size:
            r = rng.random()
            if r < 0.3:
                line = (
                    f"{file_path(rng)}:{rng.randint(1, 2000)}:{rng.randint(1, 80)}: "
                    f"{' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(3, 10)))}"
                )
            elif r < 0.45:
                line = (
                    f"  \x1b[32m✓\x1b[39m {' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(3, 8)))} "
                    f"\x1b[2m({rng.randint(1, 900)}ms)\x1b[22m"
                )
            elif r < 0.55:
                line = f"  \x1b[31m✗\x1b[39m {_ident(rng)} > {' '.join(rng.choices(_PROSE_WORDS, k=5))}"
            elif r < 0.75:
                line = file_path(rng)
            elif r < 0.85:
                line = (
                    f"-rw-r--r--  1 dev  staff  {rng.randint(10, 99999):>6} Mar {rng.randint(1, 28):>2} "
                    f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {_ident(rng)}.ts"
                )
            else:
                line = (
                    f"[{rng.choice(['INFO', 'WARN', 'DEBUG', 'ERROR'])}] {_ident(rng)}: "
                    f"{' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(4, 14)))}"
                )
            out.append(line)
            total += len(line) + 1
        return "\n".join(out) + "\n"


def _ident(rng: random.Random) -> str:
    a, b = rng.choice(_IDENT_PARTS), rng.choice(_IDENT_PARTS)
    return a + b[0].upper() + b[1:] if rng.random() < 0.7 else a


def file_path(rng: random.Random) -> str:
    return f"{rng.choice(_FILE_DIRS)}/{_ident(rng)}{rng.choice(_FILE_EXTS)}"


def text_slice(rng: random.Random, text: str, length: int) -> str:
    length = max(1, min(length, len(text) - 1))
    start = rng.randrange(0, len(text) - length)
    space = text.find(" ", start, start + 40)
    if space >= 0:
        start = space + 1
    return text[start : start + length].strip() or "ok"


def lines_slice(rng: random.Random, text: str, length: int) -> str:
    length = max(1, min(length, len(text) - 1))
    start = text.find("\n", rng.randrange(0, len(text) - length)) + 1
    end = text.rfind("\n", start, start + length)
    if end <= start:
        end = start + length
    return text[start:end]


_CORPUS: Corpus | None = None


def shared_corpus(seed: int) -> Corpus:
    """The process's corpus, built on first use (the generator's workers inherit it)."""
    global _CORPUS
    if _CORPUS is None:
        _CORPUS = Corpus(seed)
    return _CORPUS

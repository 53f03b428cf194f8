"""Regenerate ``pitui/store/context_windows.json``: each built-in model's context window, from
the pi-ai installed for the oracle (``tests/oracle/node_modules/@earendil-works/pi-ai``,
``MODELS`` in ``dist/models.generated.js``).

    python -m devkit.context_windows          # rewrite the table
    python -m devkit.context_windows --check  # exit 1 when the table differs from pi-ai's
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from devkit.oracle import ORACLE_DIR, locate_node22

PI_AI = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-ai"
TABLE = Path(__file__).resolve().parent.parent / "pitui" / "store" / "context_windows.json"

_SCRIPT = """
const { MODELS } = await import(process.argv[1]);
const out = {};
for (const [provider, models] of Object.entries(MODELS)) {
  out[provider] = {};
  for (const [id, model] of Object.entries(models)) {
    if (model.contextWindow > 0) out[provider][model.id ?? id] = model.contextWindow;
  }
}
process.stdout.write(JSON.stringify(out));
"""


def read_pi_ai(node: str) -> dict[str, dict[str, int]]:
    """provider -> model id -> context window, as pi-ai declares them."""
    url = (PI_AI / "dist" / "models.generated.js").as_uri()
    proc = subprocess.run(
        [node, "--input-type=module", "-e", _SCRIPT, url], capture_output=True, text=True, check=True, timeout=120
    )
    data: dict[str, dict[str, int]] = json.loads(proc.stdout)
    return data


def render(table: dict[str, dict[str, int]]) -> str:
    version = json.loads((PI_AI / "package.json").read_text())["version"]
    ordered = {p: dict(sorted(models.items())) for p, models in sorted(table.items())}
    return json.dumps({"piAi": version, "windows": ordered}, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, do not write")
    args = parser.parse_args(argv)
    node = locate_node22()
    if node is None:
        print("no Node.js >= 22.19 (npm install --prefix tests/oracle gives one)", file=sys.stderr)
        return 2
    text = render(read_pi_ai(node))
    if args.check:
        return 0 if TABLE.exists() and TABLE.read_text() == text else 1
    TABLE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

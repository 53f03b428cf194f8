"""The check of ``--verify``: with Node, every generated line is byte-identical to
``JSON.stringify(JSON.parse(line))``, as pi writes it."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from devkit.bench.generate import Dataset


_VERIFY_JS = r"""
const fs = require("fs");
let bad = 0, lines = 0;
for (const file of process.argv.slice(1)) {
  const text = fs.readFileSync(file, "utf8");
  if (!text.endsWith("\n")) { console.log("no final newline: " + file); bad++; }
  for (const line of text.slice(0, -1).split("\n")) {
    lines++;
    const again = JSON.stringify(JSON.parse(line));
    if (again !== line) { if (bad++ < 5) console.log("differs in " + file + ":\n" + line.slice(0, 300)); }
  }
}
console.log(JSON.stringify({lines, bad}));
process.exit(bad ? 1 : 0);
"""


def verify(data: Dataset) -> int:
    files = [str(data.big), *sorted(str(p) for p in data.agent_dir.glob("sessions/*/*.jsonl"))]
    rc = 0
    for i in range(0, len(files), 200):
        rc |= subprocess.run(["node", "-e", _VERIFY_JS, *files[i : i + 200]]).returncode
    return rc

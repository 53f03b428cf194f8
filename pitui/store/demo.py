"""The bundled demo sessions, copied to a fresh temporary agent folder for each use."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from importlib import resources

from msgspec import Struct

from pitui.demo import AGENT_DIR_PLACEHOLDER
from pitui.store.jsonl import parse_line

# Demo files name their parents under this prefix; the copy puts the real folder in its place.
PLACEHOLDER = AGENT_DIR_PLACEHOLDER.encode()


class DemoInstall(Struct, frozen=True):
    agent_dir: str
    cwd: str  # the project with the most demo history: "this folder" for the demo


def install_demo(parent: str | None = None) -> DemoInstall:
    """Copy the demo sessions into ``<new temp folder>/agent/sessions/...`` and return it.

    The package itself is never written to; every call gets its own copy.
    """
    root = tempfile.mkdtemp(prefix="pitui-demo-", dir=parent)
    agent = os.path.join(root, "agent")
    source = resources.files("pitui.demo").joinpath("sessions")
    cwds: Counter[str] = Counter()
    for folder in sorted(source.iterdir(), key=lambda p: p.name):
        if not folder.is_dir():
            continue
        target = os.path.join(agent, "sessions", folder.name)
        os.makedirs(target, exist_ok=True)
        for item in sorted(folder.iterdir(), key=lambda p: p.name):
            if not item.name.endswith(".jsonl"):
                continue
            data = item.read_bytes().replace(PLACEHOLDER, agent.encode())
            with open(os.path.join(target, item.name), "wb") as handle:
                handle.write(data)
            header = parse_line(data.split(b"\n", 1)[0])
            if isinstance(header, dict) and isinstance(header.get("cwd"), str):
                cwds[header["cwd"]] += len(data)
    cwd = cwds.most_common(1)[0][0] if cwds else os.getcwd()
    return DemoInstall(agent, cwd)

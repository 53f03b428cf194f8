"""A branch summary pi 1.6.0 wrote itself, through its model (the faux provider of
tests/oracle/pi_written.mjs), against what pitui would write from the same answer: the same file
lists in ``details``, the same preamble and ``<read-files>``/``<modified-files>`` trailer."""

from __future__ import annotations

from typing import Any

from pitui.store.branch_prompt import BRANCH_SUMMARY_PREAMBLE, branch_prompt, finish_summary
from pitui.store.digest import abandoned_entries
from pitui.store.reader import Session


def test_the_summary_pi_itself_wrote_has_pituis_trailer_and_details(pi_written: Any) -> None:
    """pi 1.6.0 summarised a branch with its faux model (tests/oracle/pi_written.mjs): from the
    same entries, pitui finds the same file lists, and finishing pi's answer gives pi's text."""
    found = 0
    for written in pi_written:
        session = Session.load(str(written.file))
        for summary in (e for e in session.entries if e.type == "branch_summary" and e.get("fromHook") is not True):
            text = summary.get("summary")
            if not isinstance(text, str) or not text.startswith(BRANCH_SUMMARY_PREAMBLE):
                continue
            found += 1
            left = abandoned_entries(session, summary.get("fromId"), summary.parent_id)
            prompt = branch_prompt(left, token_budget=32_000 - 16_384)  # the faux model's window
            assert prompt.files.details() == summary.get("details")
            answer = text.removeprefix(BRANCH_SUMMARY_PREAMBLE).split("\n\n<read-files>")[0].split("\n\n<modified-")[0]
            assert finish_summary(answer, prompt.files) == text
            assert prompt.text is not None and prompt.text.startswith("<conversation>\n[User]: ")
    assert found

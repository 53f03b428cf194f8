"""JavaScript's string lengths and cuts (UTF-16 code units) on Python strings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pitui.store.js import js_head, js_len, utf16_index

# Any code point a JSON string can hold: ASCII, the BMP, beyond it, and lone surrogates.
texts = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=60)


def units(text: str) -> int:
    """The definition: one unit per code point, two beyond the BMP."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


@given(texts)
def test_js_len_counts_utf16_units(text: str) -> None:
    assert js_len(text) == units(text)


@given(texts, st.integers(min_value=0, max_value=70))
def test_utf16_index_counts_the_units_before(text: str, index: int) -> None:
    index = min(index, len(text))
    assert utf16_index(text, index) == units(text[:index])


def test_known_lengths() -> None:
    assert js_len("") == 0
    assert js_len("abc") == 3
    assert js_len("héllo") == 5
    assert js_len("😀") == 2  # "😀".length is 2 in JavaScript
    assert js_len("a😀b") == 4
    assert js_len("\ud800") == 1  # a lone surrogate is one unit
    assert js_head("a😀b", 2) == "a\ud83d"  # slice(0, 2) cuts the pair, as pi does

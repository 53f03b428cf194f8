"""pi 1.6.0's /resume search rules (session-selector-search.js, pi-tui fuzzyMatch), one by one."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pitui.store.fuzzy import fuzzy_match
from pitui.store.jsregex import translate_js_regex
from pitui.store.query import (
    QueryError,
    Token,
    filter_and_sort_sessions,
    has_session_name,
    match_session,
    match_spans,
    parse_search_query,
    phrase_chunks,
    session_search_text,
)


@dataclass
class S:
    """The fields of pi's SessionInfo that search reads."""

    id: str
    all_messages_text: str = ""
    name: str | None = None
    cwd: str = ""
    modified: float = 0.0


def paths(items: list[S]) -> list[str]:
    return [s.id for s in items]


# -- parsing ------------------------------------------------------------------------------------


def test_empty_query_is_no_tokens():
    parsed = parse_search_query("   ")
    assert parsed.mode == "tokens" and parsed.tokens == () and parsed.empty


def test_tokens_split_on_whitespace_and_quotes():
    parsed = parse_search_query('foo "node cve" bar')
    assert parsed.tokens == (Token("fuzzy", "foo"), Token("phrase", "node cve"), Token("fuzzy", "bar"))


def test_quote_adjacent_to_text_splits_it():
    assert parse_search_query('ab"c d"').tokens == (Token("fuzzy", "ab"), Token("phrase", "c d"))


def test_empty_phrases_are_dropped():
    assert parse_search_query('"" x "  "').tokens == (Token("fuzzy", "x"),)


def test_unbalanced_quotes_make_every_word_fuzzy_quotes_included():
    parsed = parse_search_query('foo "bar baz')
    assert parsed.tokens == (Token("fuzzy", "foo"), Token("fuzzy", '"bar'), Token("fuzzy", "baz"))


def test_js_whitespace_separates_tokens():
    # U+00A0 and U+3000 are whitespace for JavaScript's \s, \x1c is not.
    assert parse_search_query("a\u00a0b\u3000c\x1cd").tokens == (
        Token("fuzzy", "a"),
        Token("fuzzy", "b"),
        Token("fuzzy", "c\x1cd"),
    )


def test_regex_mode_after_trim():
    parsed = parse_search_query("  re:  br.ve  ")
    assert parsed.mode == "regex" and parsed.pattern == "br.ve"
    assert parsed.regex is not None and parsed.regex.search("BRAVE")


def test_re_prefix_is_case_sensitive():
    assert parse_search_query("RE:x").mode == "tokens"


@pytest.mark.parametrize("query", ["re:(", "re:[a-", "re:a{2,1}", "re:  "])
def test_invalid_or_empty_regex_raises_a_clear_error(query):
    with pytest.raises(QueryError, match="regular expression"):
        parse_search_query(query)


def test_filter_raises_for_a_bad_regex_instead_of_showing_nothing():
    # pi: `re:(` gives [] silently; pitui says why.
    with pytest.raises(QueryError):
        filter_and_sort_sessions([S("a", "x")], "re:(", "relevance")


# -- JavaScript regex translation ---------------------------------------------------------------


def test_js_regex_classes_are_ascii_like_javascript():
    import re

    rx = re.compile(translate_js_regex(r"\w+\d"), re.I)
    assert rx.search("é1") is None  # \w is ASCII in JavaScript
    assert re.compile(translate_js_regex(r"a\sb")).search("a\u00a0b")
    assert re.compile(translate_js_regex("a.b")).search("a\nb") is None
    assert re.compile(translate_js_regex("a$")).search("a\n") is None  # $ is the very end
    assert re.compile(translate_js_regex(r"(?<x>a)\k<x>")).search("aa")
    assert re.compile(translate_js_regex(r"[\d\s]+")).fullmatch("1 2")
    assert re.compile(translate_js_regex(r"\bbrave\b"), re.I).search("Brave is great")
    assert re.compile(translate_js_regex(r"\bbrave\b"), re.I).search("bravery") is None
    assert re.compile(translate_js_regex(r"a\/b")).search("a/b")


# -- fuzzy scoring: values printed by pi-tui's fuzzyMatch ----------------------------------------

PI_FUZZY = [
    ("abc", "abc", True, -139.7),
    ("abc", "a b c", True, -30.400000000000002),
    ("node", "node cve", True, -59.4),
    ("cve", "node cve", True, -23.2),
    ("nc", "node cve", True, -16.5),
    ("abc123", "123abc", True, -208.5),  # letters+digits swapped, +5
    ("123abc", "abc 123", True, -56.199999999999996),
    ("xyz", "abc", False, 0),
    ("ABC", "xabc", True, -14.399999999999999),
    ("😀", "a😀b", True, -4.7),  # UTF-16 code units, as in JavaScript
    ("b", "a😀b", True, 0.30000000000000004),
    ("toolong", "short", False, 0),
    ("", "x", True, 0),
    ("a", "-a", True, -9.9),
    # pi-tui 1.6: a contiguous occurrence of the whole query scores too, the best one is kept
    ("opus", "openrouter openrouter/anthropic/claude-opus", True, -23.8),
    ("auth", "refactor auth", True, -35.8),
    ("rfctr", "refactor auth", True, -12.200000000000001),
    ("1024", "019a-1b0c-2d4e", True, 9),
]


@pytest.mark.parametrize(("query", "text", "matches", "score"), PI_FUZZY)
def test_fuzzy_match_equals_pi_tui(query, text, matches, score):
    result = fuzzy_match(query, text)
    assert result.matches is matches
    assert result.score == score  # exactly: ties decide the order


def test_search_text_is_id_name_messages_cwd_not_path():
    s = S("id1", "hello world", name=None, cwd="/home/me")
    assert session_search_text(s) == "id1  hello world /home/me"
    s.name = "Named"
    assert session_search_text(s, "other") == "id1 Named other /home/me"


TIER = 1_000_000


def test_each_field_is_matched_on_its_own_in_tiers():
    # pi-1.6.md U-R5's example: the name is tier 0 with its fuzzy score, the message and the cwd
    # tier 1 with 0 (scores printed by pi 1.6.0)
    parsed = parse_search_query("auth")
    assert match_session(S("a", name="Refactor auth"), parsed).score == -35.8
    assert match_session(S("b", "fix auth"), parsed).score == TIER
    assert match_session(S("c", cwd="/home/me/auth-service"), parsed).score == TIER


def test_scattered_letters_match_only_the_name_and_cwd():
    parsed = parse_search_query("rfa")
    assert match_session(S("a", name="Refactor auth"), parsed).matches
    assert not match_session(S("b", "refactor auth"), parsed).matches
    result = match_session(S("c", cwd="/r/f/a"), parsed)
    assert result.matches and result.score == 2 * TIER + fuzzy_match("rfa", "/r/f/a").score
    assert not match_session(S("019a-1b0c-2d4e"), parse_search_query("1024")).matches


def test_a_token_never_spans_two_fields():
    s = S("x", "node", name="cve")
    assert not match_session(s, parse_search_query("nodecve")).matches
    assert match_session(s, parse_search_query("node cve")).score == TIER + fuzzy_match("cve", "cve").score


def test_phrase_matches_across_whitespace_runs():
    s = S("x", "node\n\n   cve was discussed")
    result = match_session(s, parse_search_query('"node cve"'))
    assert result.matches and result.score == TIER


def test_phrase_in_the_name_scores_its_fuzzy_score_there():
    s = S("ab", name="x   Node\tCVE")
    result = match_session(s, parse_search_query('"node cve"'))
    assert result.matches and result.score == fuzzy_match("node cve", "x node cve").score


def test_phrase_has_no_scattered_fallback():
    assert not match_session(S("x", name="node big cve"), parse_search_query('"node cve"')).matches


def test_regex_word_boundary():
    parsed = parse_search_query(r"re:\bbrave\b")
    assert match_session(S("a", "Brave is great"), parsed).matches
    assert not match_session(S("b", "bravery"), parsed).matches


def test_regex_tiers_name_first_no_position_score():
    parsed = parse_search_query("re:z")
    assert match_session(S("a", name="😀z"), parsed).score == 0
    assert match_session(S("b", "😀😀z"), parsed).score == TIER
    # the pattern is tried on each field: it cannot match across the space between two
    assert not match_session(S("ab", "cd"), parse_search_query("re:b c")).matches


def test_all_tokens_must_match_and_scores_add():
    parsed = parse_search_query('node "was discussed"')
    s = S("x", "node cve was discussed", name="node")
    result = match_session(s, parsed)
    assert result.matches
    assert result.score == fuzzy_match("node", "node").score + TIER
    assert not match_session(S("y", "node only"), parsed).matches


def test_recent_keeps_input_order():
    sessions = [S("a", "brave new", modified=1), S("b", "xxxx brave", modified=3), S("c", "nothing", modified=2)]
    assert paths(filter_and_sort_sessions(sessions, "brave", "recent")) == ["a", "b"]


def test_relevance_orders_by_score_then_newer_first():
    # message hits all score the same (tier 1): newest first; a name hit before them all
    sessions = [
        S("s1", "xxxx brave", modified=3),
        S("s2", "brave xxxx", modified=1),
        S("s3", "brave xxxx", modified=2),
        S("s4", name="the brave one", modified=0),
    ]
    assert paths(filter_and_sort_sessions(sessions, "brave", "relevance")) == ["s4", "s1", "s3", "s2"]


def test_threaded_with_a_query_sorts_like_relevance():
    sessions = [S("s1", "xxxx brave", modified=3), S("s2", name="brave xxxx", modified=1)]
    assert paths(filter_and_sort_sessions(sessions, "brave", "threaded")) == ["s2", "s1"]


def test_empty_query_keeps_input_order():
    sessions = [S("b", modified=1), S("a", modified=2)]
    assert paths(filter_and_sort_sessions(sessions, "  ", "relevance")) == ["b", "a"]


def test_named_filter_excludes_whitespace_only_names():
    sessions = [S("a", name="  "), S("b", name="Real"), S("c", name=None)]
    assert [has_session_name(s) for s in sessions] == [False, True, False]
    assert paths(filter_and_sort_sessions(sessions, "", "recent", "named")) == ["b"]


def test_text_of_supplies_message_text():
    sessions = [S("a"), S("b")]
    texts = {"a": "nothing", "b": "the brave one"}
    got = filter_and_sort_sessions(sessions, "brave", "relevance", text_of=lambda s: texts[s.id])
    assert paths(got) == ["b"]


# -- highlighting and index hints -------------------------------------------------------------------


def test_match_spans_for_each_kind():
    text = "id  Node\n CVE here"
    assert match_spans(text, parse_search_query('"node cve"')) == [(4, 13)]
    assert match_spans(text, parse_search_query("re:cve")) == [(10, 13)]
    assert match_spans(text, parse_search_query("here")) == [(14, 18)]


def test_phrase_chunks_only_from_phrases():
    assert phrase_chunks(parse_search_query('fuzzy "Node  CVE-2024 ab" "xyz"')) == ["node", "cve-2024", "xyz"]
    assert phrase_chunks(parse_search_query("re:node")) == []
    assert phrase_chunks(parse_search_query("plain words")) == []


# -- order --------------------------------------------------------------------------------------

from pitui.store.query import order_matches  # noqa: E402


def test_order_matches_sorts_by_score_then_newest_keeping_ties_in_order():
    items = [
        S("a", modified=1.0),
        S("b", modified=3.0),
        S("c", modified=3.0),
        S("d", modified=float("nan")),
        S("e", modified=2),
    ]
    scored = [(items[0], 1.5), (items[1], 1.5), (items[2], 1.5), (items[3], 0.0), (items[4], 1.5)]
    assert [s.id for s in order_matches(scored, "relevance")] == ["d", "b", "c", "e", "a"]
    assert [s.id for s in order_matches(scored, "recent")] == ["a", "b", "c", "d", "e"]


def test_order_matches_puts_an_invalid_time_last_among_ties_when_every_time_is_a_float():
    # (every listed session's time is a float: the order is then made without a call per match)
    items = [S("a", modified=1.0), S("b", modified=float("nan")), S("c", modified=3.0), S("d", modified=-5.0)]
    scored = [(item, 1.0) for item in items]
    assert [s.id for s in order_matches(scored, "relevance")] == ["c", "a", "d", "b"]
    mixed = [(S("e", modified=2), 1.0), *scored]
    assert [s.id for s in order_matches(mixed, "relevance")] == ["c", "e", "a", "d", "b"]

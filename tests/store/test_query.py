"""pi's /resume search rules (session-selector-search.js, pi-tui fuzzyMatch), one by one."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pitui.store.fuzzy import fuzzy_match, normalize_whitespace_lower
from pitui.store.jsregex import translate_js_regex
from pitui.store.query import (
    QueryError,
    Token,
    filter_and_sort_sessions,
    has_session_name,
    match_session,
    match_spans,
    match_text,
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


def test_phrase_matches_across_whitespace_runs():
    s = S("x", "node\n\n   cve was discussed")
    assert match_session(s, parse_search_query('"node cve"')).matches


def test_phrase_score_is_normalized_index_tenth():
    s = S("ab", "x   Node\tCVE")
    result = match_session(s, parse_search_query('"node cve"'))
    # normalized: "ab  x node cve " -> "ab x node cve" ... index of "node cve" is 5
    assert result.matches and result.score == 5 * 0.1


def test_regex_word_boundary():
    parsed = parse_search_query(r"re:\bbrave\b")
    assert match_session(S("a", "Brave is great"), parsed).matches
    assert not match_session(S("b", "bravery"), parsed).matches


def test_regex_score_counts_utf16_units():
    parsed = parse_search_query("re:z")
    assert match_text("😀z", parsed).score == 2 * 0.1


def test_all_tokens_must_match_and_scores_add():
    parsed = parse_search_query('node "was discussed"')
    s = S("x", "node cve was discussed")
    result = match_session(s, parsed)
    assert result.matches
    text = session_search_text(s)
    expected = fuzzy_match("node", text).score + normalize_whitespace_lower(text).index("was discussed") * 0.1
    assert result.score == expected
    assert not match_session(S("y", "node only"), parsed).matches


def test_recent_keeps_input_order():
    sessions = [S("a", "brave new", modified=1), S("b", "xxxx brave", modified=3), S("c", "nothing", modified=2)]
    assert paths(filter_and_sort_sessions(sessions, "brave", "recent")) == ["a", "b"]


def test_relevance_orders_by_score_then_newer_first():
    sessions = [
        S("s1", "xxxx brave", modified=3),
        S("s2", "brave xxxx", modified=1),
        S("s3", "brave xxxx", modified=2),
    ]
    assert paths(filter_and_sort_sessions(sessions, "brave", "relevance")) == ["s3", "s2", "s1"]


def test_threaded_with_a_query_sorts_like_relevance():
    sessions = [S("s1", "xxxx brave", modified=3), S("s2", "brave xxxx", modified=1)]
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


# -- the keystroke fast path: a query typed further starts from the last one's outcomes -----------

import random  # noqa: E402

from pitui.store.fuzzy import TokenMatcher, lowered_utf16  # noqa: E402
from pitui.store.query import order_matches  # noqa: E402

_ALPHABET = "abcdeklmnorstw 0123-_./:ΣσςİIı😀é\u00a0\tXYZ"


def _random_text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(n))


def _random_query(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(1, 3)):
        word = _random_text(rng, rng.randint(1, 6)).replace(" ", "").replace("\t", "").replace("\u00a0", "")
        if not word:
            continue
        if rng.random() < 0.2:
            word = f'"{word} {_random_text(rng, 2).strip()}"'
        elif rng.random() < 0.2:
            word = rng.choice(["ab12", "12ab", "k3", "3k", "abc1"])
        words.append(word)
    return " ".join(words) or "a"


def _slow(query: str, text: str) -> tuple[bool, float]:
    result = match_text(None, parse_search_query(query), lowered_utf16(text))
    return result.matches, result.score


def _fast_chain(queries: list[str], texts: list[str]) -> list[list[tuple[bool, float]]]:
    """Every query in turn, each starting from the outcomes of the one before when it extends
    it, as the catalog does (texts the previous query did not match are skipped)."""
    out = []
    base = None
    before: list = [None] * len(texts)
    for query in queries:
        parsed = parse_search_query(query)
        matcher = TokenMatcher(parsed)
        extends = base is not None and matcher.start_from(base)
        row = []
        for n, text in enumerate(texts):
            tl = lowered_utf16(text)
            if extends and before[n] is None:
                row.append((False, 0))
                continue
            result = matcher.match(tl, before[n]) if extends else matcher.match(tl)
            before[n] = result
            row.append((False, 0) if result is None else (True, result[0]))
        base = parsed
        out.append(row)
    return out


def test_token_matcher_equals_match_text_on_generated_texts_and_queries():
    rng = random.Random(1234)
    texts = [_random_text(rng, rng.randint(0, 80)) for _ in range(60)]
    texts += ["ab12 cd", "12ab", "abc1", "k3", "ΑΣ", "x😀y😀z", "İstanbul ıi", "tw" * 40]
    for _ in range(150):
        query = _random_query(rng)
        parsed = parse_search_query(query)
        if parsed.mode != "tokens" or parsed.empty:
            continue
        matcher = TokenMatcher(parsed)
        for text in texts:
            result = matcher.match(lowered_utf16(text))
            got = (False, 0) if result is None else (True, result[0])
            assert got == _slow(query, text), (query, text)


def test_typing_a_query_a_key_at_a_time_gives_the_slow_paths_results():
    rng = random.Random(99)
    texts = [_random_text(rng, rng.randint(5, 120)) for _ in range(80)]
    texts += ["websocket reconnect after the socket closed", "web-sock et re.con/nect", "w e b", "abc12 x", "12abc"]
    queries = ["websocket reconnect", "abc12 x", "12abc", 'web "sock et" re', "ΣΑΣ σ", "😀x 😀", "İi ı", "x/y-z_w"]
    queries += [_random_query(rng) for _ in range(40)]
    for full in queries:
        prefixes = [full[:i] for i in range(1, len(full) + 1)]
        # with a backspace and the key typed again, as people type
        prefixes += [full[: len(full) - 1], full]
        chain = [q for q in prefixes if (p := parse_search_query(q)).mode == "tokens" and not p.empty]
        fast = _fast_chain(chain, texts)
        for query, row in zip(chain, fast, strict=True):
            assert row == [_slow(query, text) for text in texts], query


def test_only_a_query_typed_further_starts_from_another():
    def plan(new: str, old: str):
        return TokenMatcher(parse_search_query(new)).plan(parse_search_query(old))

    assert plan("webs", "web") == [("more", "web")]
    assert plan("web s", "web") == [("same", "")]
    assert plan("a webs", "a web") == [("same", ""), ("more", "web")]
    assert plan("WEBS", "web") == [("more", "web")]  # compared lower-cased
    assert plan("web", "webs") is None  # a backspace
    assert plan("wxb", "web") is None
    assert plan("b a", "a") is None  # the tokens must stay in place
    assert plan('"web s"', '"web"') is None  # a phrase is not typed further
    assert plan("ΑΣΑ", "ΑΣ") is None  # ς then σ: the lower-cased old one is no prefix
    assert plan("webs", "re:web") is None


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

from common_substring import Match, longest_common_substring, longest_match, shared_blocks, similarity


def test_longest_common_substring():
    assert longest_common_substring("xabcdey", "zzbcdq") == "bcd"


def test_no_common_characters():
    assert longest_common_substring("abc", "xyz") == ""
    assert longest_match("", "abc") == Match(0, 0, 0)


def test_match_positions():
    assert longest_match("hello world", "yellow") == Match(1, 1, 4)


def test_ties_prefer_earliest_in_first_text():
    assert longest_common_substring("abxcd", "cdab") == "ab"


def test_match_at_the_end():
    assert longest_common_substring("the quick fox", "a fox") == " fox"


def test_shared_blocks():
    assert shared_blocks("abcXdefYgh", "abcdefgh") == ["abc", "def", "gh"]


def test_similarity():
    assert similarity("abcd", "bcde") == 0.75
    assert similarity("", "") == 1.0
    assert similarity("ab", "") == 0.0

from words import sentence_count, tokenize


def test_tokenize():
    assert tokenize("It's a Test.") == ["it's", "a", "test"]


def test_sentences():
    assert sentence_count("One. Two! Three?") == 3

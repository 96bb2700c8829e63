from slugs import slugify, unique_slug


def test_slugify_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_slugify_numbers():
    assert slugify("Top 10 Tips") == "top-10-tips"


def test_unique_slug_free():
    assert unique_slug("Hello World", set()) == "hello-world"


def test_unique_slug_taken():
    assert unique_slug("Hello World", {"hello-world"}) == "hello-world-2"
    taken = {"hello-world", "hello-world-2"}
    assert unique_slug("Hello World", taken) == "hello-world-3"

from slugs import slugify


def test_slugify_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_slugify_numbers():
    assert slugify("Top 10 Tips") == "top-10-tips"

from blog import Blog


def test_add_post_returns_slug():
    blog = Blog()
    assert blog.add_post("My First Post") == "my-first-post"
    assert blog.url("my-first-post") == "/posts/my-first-post/"


def test_titles_sorted_by_slug():
    blog = Blog()
    blog.add_post("Zebra")
    blog.add_post("Apple")
    assert blog.titles() == ["Apple", "Zebra"]

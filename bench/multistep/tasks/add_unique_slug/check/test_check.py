import os
import sys

sys.path.insert(0, os.getcwd())

import blog
import slugs


def test_unique_slug_when_free():
    assert slugs.unique_slug("Python Tips & Tricks", set()) == "python-tips-tricks"
    assert slugs.unique_slug("Python Tips", {"other"}) == "python-tips"


def test_unique_slug_suffixes():
    assert slugs.unique_slug("Daily Notes", {"daily-notes"}) == "daily-notes-2"
    taken = ["daily-notes", "daily-notes-2", "daily-notes-3"]
    assert slugs.unique_slug("Daily Notes", taken) == "daily-notes-4"


def test_unique_slug_fills_first_gap():
    taken = {"news", "news-3"}
    assert slugs.unique_slug("News", taken) == "news-2"


def test_blog_same_title_twice():
    b = blog.Blog()
    assert b.add_post("Weekly Report") == "weekly-report"
    assert b.add_post("Weekly report!") == "weekly-report-2"
    assert b.add_post("WEEKLY REPORT") == "weekly-report-3"
    assert len(b.posts) == 3
    assert b.posts["weekly-report-2"] == "Weekly report!"


def test_slugify_unchanged():
    assert slugs.slugify("  A  B  ") == "a-b"


def test_tests_mention_unique_slug():
    with open(os.path.join(os.getcwd(), "tests", "test_slugs.py")) as fh:
        assert "unique_slug" in fh.read()

from file_tree import DiskUsage, build_tree, find, render

LISTING = [
    ("README.md", 100),
    ("src/app/main.py", 1200),
    ("src/app/util.py", 300),
    ("src/lib.py", 500),
    ("docs/guide.md", 2000),
]


def test_build_tree_shares_folders():
    root = build_tree(LISTING)
    assert [c.name for c in root.children] == ["README.md", "src", "docs"]
    assert [c.name for c in root.child("src").children] == ["app", "lib.py"]


def test_total_and_file_count():
    usage = DiskUsage(build_tree(LISTING))
    assert usage.total == 4100
    assert usage.file_count == 5


def test_directory_sizes():
    usage = DiskUsage(build_tree(LISTING))
    assert usage.dirs["/src/app"] == 1500
    assert usage.dirs["/src"] == 2000
    assert usage.dirs["/"] == 4100


def test_only_directories_are_listed():
    usage = DiskUsage(build_tree(LISTING))
    assert sorted(usage.dirs) == ["/", "/docs", "/src", "/src/app"]


def test_largest():
    usage = DiskUsage(build_tree(LISTING))
    assert usage.largest(2) == [("/", 4100), ("/docs", 2000)]


def test_find():
    root = build_tree(LISTING)
    assert list(find(root, lambda e: e.name.endswith(".py"))) == ["/src/app/main.py", "/src/app/util.py", "/src/lib.py"]


def test_render():
    root = build_tree([("b/x.txt", 1), ("a.txt", 2), ("b/c/y.txt", 3)])
    assert render(root) == ["b/", "  c/", "    y.txt (3)", "  x.txt (1)", "a.txt (2)"]

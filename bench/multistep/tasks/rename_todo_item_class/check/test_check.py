import os
import re
import sys

sys.path.insert(0, os.getcwd())

import models
import store


def test_new_class_exists():
    item = models.TodoItem("water plants", priority=4)
    assert item.to_line() == "[ ] 4 water plants"
    assert models.TodoItem.from_line("[x] 1 pay rent") == models.TodoItem("pay rent", True, 1)


def test_old_name_gone():
    assert not hasattr(models, "Item")
    assert not hasattr(store, "Item")


def test_store_creates_todo_items():
    s = store.TodoStore()
    made = s.add("read book", 2)
    assert isinstance(made, models.TodoItem)
    s.add("sleep", 7)
    loaded = store.TodoStore.loads(s.dumps())
    assert all(isinstance(i, models.TodoItem) for i in loaded.items)
    assert [i.title for i in loaded.pending()] == ["sleep", "read book"]


def test_no_old_name_left_in_files():
    pattern = re.compile(r"\bItem\b")
    offenders = []
    for folder, _dirs, files in os.walk(os.getcwd()):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as fh:
                    if pattern.search(fh.read()):
                        offenders.append(path)
    assert offenders == []

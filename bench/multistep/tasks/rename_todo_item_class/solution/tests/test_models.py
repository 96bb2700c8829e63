from models import TodoItem


def test_to_line():
    assert TodoItem("milk", done=True, priority=2).to_line() == "[x] 2 milk"


def test_from_line_round_trip():
    item = TodoItem("call mum", priority=5)
    assert TodoItem.from_line(item.to_line()) == item

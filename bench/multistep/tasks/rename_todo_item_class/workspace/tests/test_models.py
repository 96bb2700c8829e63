from models import Item


def test_to_line():
    assert Item("milk", done=True, priority=2).to_line() == "[x] 2 milk"


def test_from_line_round_trip():
    item = Item("call mum", priority=5)
    assert Item.from_line(item.to_line()) == item

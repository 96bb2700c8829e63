"""A tiny todo store that saves to plain text."""
from models import Item


class TodoStore:
    def __init__(self):
        self.items = []

    def add(self, title, priority=0):
        item = Item(title, priority=priority)
        self.items.append(item)
        return item

    def complete(self, title):
        for item in self.items:
            if item.title == title:
                item.done = True
                return True
        return False

    def pending(self):
        todo = [i for i in self.items if not i.done]
        return sorted(todo, key=lambda i: -i.priority)

    def dumps(self):
        return "\n".join(item.to_line() for item in self.items)

    @classmethod
    def loads(cls, text):
        store = cls()
        store.items = [Item.from_line(line) for line in text.splitlines() if line]
        return store

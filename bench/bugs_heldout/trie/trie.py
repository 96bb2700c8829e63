"""A prefix tree of words, for autocompletion."""

from dataclasses import dataclass, field


@dataclass
class TrieNode:
    children: dict = field(default_factory=dict)
    terminal: bool = False


class Trie:
    def __init__(self, words=()):
        self.root = TrieNode()
        self.size = 0
        for word in words:
            self.insert(word)

    def insert(self, word):
        node = self.root
        for ch in word:
            node = node.children.setdefault(ch, TrieNode())
        if not node.terminal:
            node.terminal = True
            self.size += 1

    def _find(self, prefix):
        node = self.root
        for ch in prefix:
            node = node.children.get(ch)
            if node is None:
                return None
        return node

    def __contains__(self, word):
        node = self._find(word)
        return node is not None and node.terminal

    def has_prefix(self, prefix):
        return self._find(prefix) is not None

    def complete(self, prefix, limit=None):
        """Words that start with ``prefix``, in alphabetical order."""
        node = self._find(prefix)
        if node is None:
            return []
        found = []
        for word in self._walk(node, prefix):
            if limit is not None and len(found) >= limit:
                break
            found.append(word)
        return found

    def _walk(self, node, path):
        if node.terminal:
            yield path
        for ch in sorted(node.children):
            yield from self._walk(node.children[ch], path + ch)

    def remove(self, word):
        """Remove ``word``; returns whether it was there. Branches left empty are pruned."""
        return self._remove(self.root, word, 0)

    def _remove(self, node, word, depth):
        if depth == len(word):
            if not node.terminal:
                return False
            node.terminal = False
            self.size -= 1
            return True
        child = node.children.get(word[depth])
        if child is None or not self._remove(child, word, depth + 1):
            return False
        if not child.terminal and not child.children:
            del node.children[word[depth]]
        return True

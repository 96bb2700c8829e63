"""A file tree built from a listing of paths, with disk usage per directory, search and a text rendering."""

from dataclasses import dataclass, field


@dataclass
class Entry:
    name: str
    size: int = 0
    is_dir: bool = False
    children: list = field(default_factory=list)

    def child(self, name):
        return next((c for c in self.children if c.name == name), None)


def build_tree(listing):
    """A root directory from (path, size) pairs such as ("src/app/main.py", 1200)."""
    root = Entry("", is_dir=True)
    for path, size in listing:
        *folders, filename = path.strip("/").split("/")
        node = root
        for folder in folders:
            sub = node.child(folder)
            if sub is None:
                sub = Entry(folder, is_dir=True)
                node.children.append(sub)
            node = sub
        node.children.append(Entry(filename, size))
    return root


class DiskUsage:
    """Total bytes under every directory (keyed by path, "/" for the root) and the number of files."""

    def __init__(self, root):
        self.dirs = {}
        self.file_count = 0
        self.total = self._walk(root, "")

    def _walk(self, node, path):
        if not node.is_dir:
            self.file_count += 1
            return node.size
        total = 0
        for child in node.children:
            total += self._walk(child, f"{path}/{child.name}")
        self.dirs[path or "/"] = total
        return total

    def largest(self, n):
        """The ``n`` biggest directories, biggest first (ties by path)."""
        return sorted(self.dirs.items(), key=lambda item: (-item[1], item[0]))[:n]


def find(node, predicate, path=""):
    """Paths of the files for which ``predicate(entry)`` is true, depth first in listing order."""
    for child in node.children:
        child_path = f"{path}/{child.name}"
        if child.is_dir:
            yield from find(child, predicate, child_path)
        elif predicate(child):
            yield child_path


def render(node, indent=""):
    """Lines like "app/" and "  main.py (1200)", directories first, each level sorted by name."""
    lines = []
    for child in sorted(node.children, key=lambda c: (not c.is_dir, c.name)):
        if child.is_dir:
            lines.append(f"{indent}{child.name}/")
            lines.extend(render(child, indent + "  "))
        else:
            lines.append(f"{indent}{child.name} ({child.size})")
    return lines

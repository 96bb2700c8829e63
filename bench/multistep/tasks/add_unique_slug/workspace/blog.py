"""A tiny in-memory blog keyed by slug."""
from slugs import slugify


class Blog:
    def __init__(self):
        self.posts = {}  # slug -> title

    def add_post(self, title):
        """Store a post and return the slug it was stored under."""
        slug = slugify(title)
        self.posts[slug] = title
        return slug

    def url(self, slug):
        return f"/posts/{slug}/"

    def titles(self):
        return [self.posts[slug] for slug in sorted(self.posts)]

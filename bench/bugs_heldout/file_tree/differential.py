def trial(module, rng):
    folders = ["", "a/", "a/b/", "c/", "a/b/d/"]
    listing = [
        (rng.choice(folders) + rng.choice(["f", "g.py", "h.txt", "i.py"]) + str(i), rng.randint(0, 500))
        for i in range(rng.randint(0, 8))
    ]
    root = module.build_tree(listing)
    usage = module.DiskUsage(root)
    return [
        usage.total,
        usage.file_count,
        sorted(usage.dirs.items()),
        usage.largest(rng.randint(0, 3)),
        list(module.find(root, lambda e: e.size > 250)),
        module.render(root),
    ]

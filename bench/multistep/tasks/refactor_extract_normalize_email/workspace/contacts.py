"""An address book keyed by normalised email address."""


class ContactBook:
    def __init__(self):
        self.by_email = {}

    def add(self, name, email):
        local, _, domain = email.strip().lower().partition("@")
        if not local or not domain:
            raise ValueError(f"not an email address: {email!r}")
        local = local.split("+", 1)[0]
        key = f"{local}@{domain}"
        self.by_email[key] = name
        return key

    def name_for(self, key):
        return self.by_email.get(key)

    def __len__(self):
        return len(self.by_email)

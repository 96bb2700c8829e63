"""An address book keyed by normalised email address."""
from emails import normalize_email


class ContactBook:
    def __init__(self):
        self.by_email = {}

    def add(self, name, email):
        key = normalize_email(email)
        self.by_email[key] = name
        return key

    def name_for(self, key):
        return self.by_email.get(key)

    def __len__(self):
        return len(self.by_email)

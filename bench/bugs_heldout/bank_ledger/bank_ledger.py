"""An in-memory ledger of accounts in integer cents, with an audit trail of every movement."""

from dataclasses import dataclass, field


class LedgerError(Exception):
    pass


class InsufficientFunds(LedgerError):
    pass


@dataclass(frozen=True)
class Entry:
    account: str
    amount: int
    memo: str


@dataclass
class Ledger:
    overdraft: dict = field(default_factory=dict)
    _entries: list = field(default_factory=list)

    def open(self, account, overdraft=0):
        if account in self.overdraft:
            raise LedgerError(f"account {account!r} already exists")
        self.overdraft[account] = overdraft

    def balance(self, account):
        self._require(account)
        return sum(e.amount for e in self._entries if e.account == account)

    def available(self, account):
        return self.balance(account) + self.overdraft[account]

    def deposit(self, account, amount, memo="deposit"):
        self._require(account)
        self._check_amount(amount)
        self._entries.append(Entry(account, amount, memo))

    def withdraw(self, account, amount, memo="withdrawal"):
        self._require(account)
        self._check_amount(amount)
        if amount > self.available(account):
            raise InsufficientFunds(f"{account!r} cannot cover {amount}")
        self._entries.append(Entry(account, -amount, memo))

    def transfer(self, source, target, amount):
        self._require(target)
        self.withdraw(source, amount, memo=f"to {target}")
        self.deposit(target, amount, memo=f"from {source}")

    def history(self, account):
        self._require(account)
        return [(e.amount, e.memo) for e in self._entries if e.account == account]

    def _require(self, account):
        if account not in self.overdraft:
            raise LedgerError(f"no account {account!r}")

    @staticmethod
    def _check_amount(amount):
        if not isinstance(amount, int) or amount <= 0:
            raise LedgerError(f"amount must be a positive number of cents, not {amount!r}")

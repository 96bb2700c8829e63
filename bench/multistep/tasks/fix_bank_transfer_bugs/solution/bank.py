"""Operations that involve several accounts."""
from account import Account


def transfer(source, target, amount):
    """Move amount from source to target; nothing changes if it fails."""
    source.withdraw(amount)
    target.deposit(amount)


def open_accounts(owners, opening_balance=0):
    return {owner: Account(owner, opening_balance) for owner in owners}


def total_deposits(accounts):
    return sum(a.balance for a in accounts.values())

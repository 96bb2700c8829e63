import pytest

from account import Account, InsufficientFunds


def test_deposit_withdraw():
    acc = Account("ann", 100)
    acc.deposit(50)
    acc.withdraw(30)
    assert acc.balance == 120
    assert acc.history == [("deposit", 50), ("withdraw", 30)]


def test_withdraw_everything():
    acc = Account("ann", 40)
    acc.withdraw(40)
    assert acc.balance == 0


def test_overdraw():
    with pytest.raises(InsufficientFunds):
        Account("ann", 10).withdraw(11)

import os
import sys

sys.path.insert(0, os.getcwd())

import pytest

import account
import bank


def test_withdraw_exact_balance():
    acc = account.Account("zoe", 75)
    acc.withdraw(75)
    assert acc.balance == 0
    assert acc.history == [("withdraw", 75)]


def test_withdraw_more_than_balance_fails():
    acc = account.Account("zoe", 75)
    with pytest.raises(account.InsufficientFunds):
        acc.withdraw(76)
    assert acc.balance == 75 and acc.history == []


def test_transfer_whole_balance():
    accs = bank.open_accounts(["x", "y"], 60)
    bank.transfer(accs["x"], accs["y"], 60)
    assert accs["x"].balance == 0
    assert accs["y"].balance == 120


def test_failed_transfer_leaves_both_unchanged():
    src = account.Account("src", 5)
    dst = account.Account("dst", 7)
    with pytest.raises(account.InsufficientFunds):
        bank.transfer(src, dst, 6)
    assert (src.balance, dst.balance) == (5, 7)
    assert src.history == [] and dst.history == []


def test_invalid_amount_transfer_changes_nothing():
    src = account.Account("src", 5)
    dst = account.Account("dst", 7)
    with pytest.raises(ValueError):
        bank.transfer(src, dst, 0)
    assert (src.balance, dst.balance) == (5, 7)

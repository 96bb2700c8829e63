import pytest

from account import InsufficientFunds
from bank import open_accounts, total_deposits, transfer


def test_transfer():
    accs = open_accounts(["a", "b"], 100)
    transfer(accs["a"], accs["b"], 25)
    assert accs["a"].balance == 75
    assert accs["b"].balance == 125


def test_failed_transfer_changes_nothing():
    accs = open_accounts(["a", "b"], 10)
    with pytest.raises(InsufficientFunds):
        transfer(accs["a"], accs["b"], 50)
    assert accs["b"].balance == 10
    assert total_deposits(accs) == 20

import pytest

from bank_ledger import InsufficientFunds, Ledger, LedgerError


@pytest.fixture
def ledger():
    book = Ledger()
    book.open("alice")
    book.open("bob", overdraft=500)
    book.deposit("alice", 1000)
    return book


def test_deposit_and_balance(ledger):
    ledger.deposit("alice", 250)
    assert ledger.balance("alice") == 1250


def test_withdraw_everything(ledger):
    ledger.withdraw("alice", 1000)
    assert ledger.balance("alice") == 0


def test_overdraft_limit(ledger):
    ledger.withdraw("bob", 500)
    assert ledger.balance("bob") == -500
    with pytest.raises(InsufficientFunds):
        ledger.withdraw("bob", 1)


def test_transfer_moves_money_and_records_memos(ledger):
    ledger.transfer("alice", "bob", 300)
    assert ledger.balance("alice") == 700
    assert ledger.balance("bob") == 300
    assert ledger.history("bob") == [(300, "from alice")]


def test_failed_transfer_changes_nothing(ledger):
    with pytest.raises(InsufficientFunds):
        ledger.transfer("alice", "bob", 5000)
    assert ledger.balance("alice") == 1000
    assert ledger.history("bob") == []


def test_bad_amounts_and_accounts(ledger):
    with pytest.raises(LedgerError, match="positive"):
        ledger.deposit("alice", -5)
    with pytest.raises(LedgerError, match="no account"):
        ledger.balance("carol")
    with pytest.raises(LedgerError, match="already exists"):
        ledger.open("alice")

import pytest
from network_components import Network


@pytest.fixture
def office():
    net = Network()
    for a, b in [("db", "web"), ("web", "proxy"), ("laptop", "printer"), ("nas", "nas")]:
        net.link(a, b)
    net.add_host("camera")
    return net


def test_components(office):
    assert office.components() == [["camera"], ["db", "proxy", "web"], ["laptop", "printer"], ["nas"]]


def test_component_of(office):
    assert office.component_of("printer") == ["laptop", "printer"]
    with pytest.raises(KeyError):
        office.component_of("phone")


def test_can_reach(office):
    assert office.can_reach("db", "proxy")
    assert not office.can_reach("db", "laptop")


def test_unlink_splits_component(office):
    office.unlink("web", "proxy")
    assert office.components() == [["camera"], ["db", "web"], ["laptop", "printer"], ["nas"], ["proxy"]]


def test_isolated_and_largest(office):
    assert office.isolated() == ["camera", "nas"]
    assert office.largest() == ["db", "proxy", "web"]


def test_empty_network():
    net = Network()
    assert net.components() == []
    assert net.largest() == []

import pytest

from convert import ABSOLUTE_ZERO_CELSIUS, c_to_f, c_to_k, f_to_c, k_to_c


def test_water():
    assert c_to_f(100) == 212
    assert f_to_c(32) == 0


def test_kelvin():
    assert c_to_k(ABSOLUTE_ZERO_CELSIUS) == 0
    assert k_to_c(0) == ABSOLUTE_ZERO_CELSIUS
    assert c_to_k(0) == pytest.approx(273.15)

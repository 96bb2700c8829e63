import pytest

from convert import ABS_ZERO_C, c_to_f, c_to_k, f_to_c, k_to_c


def test_water():
    assert c_to_f(100) == 212
    assert f_to_c(32) == 0


def test_kelvin():
    assert c_to_k(ABS_ZERO_C) == 0
    assert k_to_c(0) == ABS_ZERO_C
    assert c_to_k(0) == pytest.approx(273.15)

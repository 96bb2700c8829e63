"""Temperature conversion between Celsius, Fahrenheit and Kelvin."""

ABSOLUTE_ZERO_CELSIUS = -273.15


def c_to_f(celsius):
    return celsius * 9 / 5 + 32


def f_to_c(fahrenheit):
    return (fahrenheit - 32) * 5 / 9


def c_to_k(celsius):
    return celsius - ABSOLUTE_ZERO_CELSIUS


def k_to_c(kelvin):
    return kelvin + ABSOLUTE_ZERO_CELSIUS

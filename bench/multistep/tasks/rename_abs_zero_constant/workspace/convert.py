"""Temperature conversion between Celsius, Fahrenheit and Kelvin."""

ABS_ZERO_C = -273.15


def c_to_f(celsius):
    return celsius * 9 / 5 + 32


def f_to_c(fahrenheit):
    return (fahrenheit - 32) * 5 / 9


def c_to_k(celsius):
    return celsius - ABS_ZERO_C


def k_to_c(kelvin):
    return kelvin + ABS_ZERO_C

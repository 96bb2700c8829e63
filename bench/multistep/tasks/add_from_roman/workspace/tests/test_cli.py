from cli import convert, main


def test_convert_number():
    assert convert(" 14 ") == "XIV"


def test_main_prints(capsys):
    assert main(["9", "40"]) == 0
    assert capsys.readouterr().out == "IX\nXL\n"

"""Command-line front end for the converter."""
import sys

from roman import from_roman, to_roman


def convert(text):
    """convert("14") -> "XIV", convert("XIV") -> "14" """
    text = text.strip()
    if text.isdigit():
        return to_roman(int(text))
    return str(from_roman(text))


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    for arg in args:
        print(convert(arg))
    return 0


if __name__ == "__main__":
    sys.exit(main())

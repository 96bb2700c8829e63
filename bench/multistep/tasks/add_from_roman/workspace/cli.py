"""Command-line front end for the converter."""
import sys

from roman import to_roman


def convert(text):
    """convert("14") -> "XIV" """
    text = text.strip()
    return to_roman(int(text))


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    for arg in args:
        print(convert(arg))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run Chrysalis as ``python -m chrysalis``."""

from chrysalis.cli.app import main

main()

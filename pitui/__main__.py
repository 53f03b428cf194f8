import sys

from pitui.cli.main import run

sys.exit(run())

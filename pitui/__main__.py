import sys

from pitui.cli.main import main

sys.exit(main())

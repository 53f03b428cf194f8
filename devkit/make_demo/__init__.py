"""The demo session generator (``python -m devkit.make_demo``); see ``__main__`` for what it writes."""

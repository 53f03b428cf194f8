"""Development-only code: not shipped in the wheel."""

"""Development-only code (not in the wheel): session builders, the pi oracle, generators,
benchmarks and screenshot tools, shared by tests/ and the scripts run as ``python -m devkit.…``."""

"""Demo sessions shipped with pitui (see README.md in this folder)."""

# The fork's parentSession starts with this; the copy step replaces it with the real agent folder.
AGENT_DIR_PLACEHOLDER = "/DEMO_AGENT_DIR"

"""Stand-in for torch in cachelens's tune_compile test: a version, and a print
on import like a chatty real torch build (it must not disturb the protocol)."""
import sys

__version__ = "2.11.0"

print("torch says hi")
sys.stdout.write("torch says no newline")
sys.stdout.flush()

"""A kernel module that fails to import (cachelens's tune_compile test: fatal "module")."""
raise ImportError("cannot import name 'triton_helpers' (this module is broken on purpose)")

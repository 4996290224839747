"""The unit tests' fixtures live in unit_support.py (a uniquely named module the tests can import from;
every test folder has its own conftest, so `from conftest import ...` would find the wrong one)."""

from unit_support import *  # noqa: F401,F403 - registers the fixtures with pytest

"""Which tests the `process` marker (pyproject.toml) covers without a mark of their own: every test in these
folders of tests/ starts processes (Chromium, nats-server, the real clients, a build), so tests/conftest.py marks
them whole; a test elsewhere that starts one is marked where it is written (tests/test_layout.py checks it)."""

PROCESS_FOLDERS = ("web", "sync", "clients", "packaging")

"""Long-lived services: background commands that never finish on their own (servers, followers, tunnels)."""

from __future__ import annotations

import pytest

from lunavect.core.commands import is_long_lived_service

SERVICES = [
    "npm run dev",
    "npm start",
    "pnpm dev",
    "yarn start",
    "bun run dev",
    "cd web && npm run dev",
    "vite",
    "vite --port 3000",
    "vite preview",
    "npx vite",
    "./node_modules/.bin/vite",
    "next dev",
    "npx next dev",
    "python -m http.server 8000",
    "python3 -m http.server",
    "uvicorn app:app",
    "FOO=1 uvicorn app:app --reload --port 8001",
    "gunicorn app:app -w 4",
    "flask run",
    "python manage.py runserver",
    "jekyll serve",
    "bundle exec jekyll serve --livereload",
    "hugo server",
    "tail -f log",
    "tail -F /var/log/syslog",
    "tail -n 100 -f app.log",
    "log stream",
    "log stream --predicate 'process == \"x\"'",
    "journalctl -fu nginx",
    "kubectl logs -f pod/x",
    "kubectl port-forward svc/x 8080:80",
    "docker logs -f web",
    "docker compose logs -f",
    "pytest --watch",
    "tsc --watch",
    "jest --watchAll",
    "ngrok http 80",
    "cloudflared tunnel run",
    "ssh -N -L 8080:localhost:80 host",
    "docker compose up",
    "docker-compose up --build",
    "docker compose up -d && docker compose logs -f",
    "sleep infinity",
    "watch -n 1 ls",
    "tsc -w",
    "sudo -E env PORT=3000 npm run dev",
    "nohup python3 -m http.server 8080 > /dev/null 2>&1",
    "uv run uvicorn app:app",
    "docker-compose logs --follow",
]

NOT_SERVICES = [
    "",
    "docker compose up -d",
    "docker compose up --detach",
    "docker-compose up -d --build",
    "docker compose down",
    "docker compose logs",
    "npm test",
    "npm run build",
    "npm install",
    "sleep 30",
    "sleep 30 && curl localhost:3000",
    "vite build",
    "npx vite build",
    "next build",
    "make",
    "make test",
    "python -m pytest",
    "pytest -x tests",
    "cargo build --release",
    "tail -n 100 log",
    "cat log | tail",
    "grep -r foo .",
    "git log --stat",
    "ls -la",
    "ls -w 80",
    "git commit -m 'tail -f was wrong'",
    "echo npm run dev",
]


@pytest.mark.parametrize("command", SERVICES)
def test_services(command):
    assert is_long_lived_service(command) is True


@pytest.mark.parametrize("command", NOT_SERVICES)
def test_not_services(command):
    assert is_long_lived_service(command) is False


def test_only_the_first_4_kb_is_read():
    assert is_long_lived_service("true " * 2000 + "&& npm run dev") is False
    assert is_long_lived_service("npm run dev " + "x" * 100_000) is True


def test_fast_on_a_long_command():
    import time

    command = " && ".join(["echo hello world"] * 300)
    started = time.perf_counter()
    for _ in range(20):
        assert is_long_lived_service(command) is False
    assert time.perf_counter() - started < 2.0  # no catastrophic backtracking (loose: CI machines are busy)

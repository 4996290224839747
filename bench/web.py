"""The web panel: store change to the browser's DOM (beside the terminal panel, on the same commits), the
server's idle CPU with 50 connected browsers, and what a page load transfers.

Everything runs for real at the same time, each part in a temporary LUNAVECT_HOME seeded directly with snapshot
rows, as bench/panel.py does, and with its own collector (`lunavect daemon`): with no source to read it writes
nothing, but it tells every front end of each commit through the shared change feed, as it does in use.

- Latency: one store with 10 sessions and a pinned probe row, shown at once by the terminal panel (Textual, in a
  120x40 tmux pane) and by the web panel (a `lunavect.frontends.web` server, the page in Debian's Chromium
  through Playwright). The probe row alternates between working and ready; after each commit the script reads
  the pane until the row shows the new state, and the page records (a MutationObserver) the moment its row
  changed. Both panels see the same commits: the terminal panel is the baseline.
- Idle CPU: two servers, one with no browser (the baseline) and one with 50 open Server-Sent Events streams
  (plain HTTP clients that read the stream, as 50 phones would), each process's time on a CPU over the same
  windows (`/proc/<pid>/task/*/schedstat`), per second of wall time.
- Transfer: the bytes on the wire (headers and compressed bodies, from Chromium's own accounting) of a first
  page load, and of the list document with 10 and 1,000 sessions.

Usage: .venv/bin/python bench/web.py [--changes 30] [--window 15] [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import panel as panel_bench  # noqa: E402
from _benchlib import REPO, isolated_home, machine_line, md_table  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "src"))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))

from lunavect import store  # noqa: E402
from lunavect.frontends.web import tokens  # noqa: E402

# A web server without `lunavect web`'s collector start: it serves the store it is given, on a free port.
SERVER = (
    "import sys\n"
    "from lunavect import store\n"
    "from lunavect.frontends.web import server\n"
    "sock = server.bind(server.Listen('127.0.0.1', 0))\n"
    "print(sock.getsockname()[1], flush=True)\n"
    "server.serve(sock, store.connect, allowed_hosts=(), tls_cert=None, tls_key=None)\n"
)
RECORDER = """() => {
  window.seen = [];
  const observe = () => {
    const row = document.querySelector('li.row[data-id="claude:probe"] .state');
    if (!row) { setTimeout(observe, 20); return; }
    new MutationObserver(() => window.seen.push([performance.timeOrigin + performance.now(), row.textContent]))
      .observe(row, {childList: true, characterData: true, subtree: true});
  };
  observe();
}"""


def start_server(data: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], int, str]:
    os.environ["LUNAVECT_HOME"] = str(data)
    conn = store.connect()
    secret, _ = tokens.create(conn, "view", "bench")
    conn.close()
    child_env = dict(env, LUNAVECT_HOME=str(data), PYTHONPATH=os.path.join(REPO, "src"))
    process = subprocess.Popen([sys.executable, "-c", SERVER], env=child_env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    port = int(process.stdout.readline())
    return process, port, secret


def start_collector(data: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    child_env = dict(env, LUNAVECT_HOME=str(data), PYTHONPATH=os.path.join(REPO, "src"))
    process = subprocess.Popen([sys.executable, "-m", "lunavect", "daemon", "--quiet"], env=child_env)
    deadline = time.monotonic() + 30
    while not (data / "changes.sock").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the collector did not start")
        time.sleep(0.05)
    return process


def sse_client(port: int, secret: str, stop: threading.Event, connected: threading.Semaphore) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/api/events", headers={"Cookie": f"lunavect_web={secret}"})
    response = conn.getresponse()
    assert response.status == 200
    response.readline()
    connected.release()
    while not stop.is_set():
        if not response.readline():
            break
    conn.close()


def measure_latency(tmux: panel_bench.Tmux, page, data: Path, changes: int) -> dict[str, list[float]]:
    os.environ["LUNAVECT_HOME"] = str(data)
    conn = store.connect()
    results: dict[str, list[float]] = {"terminal panel": [], "web panel": []}
    state = "ready"
    for _ in range(changes):
        state = "working" if state == "ready" else "ready"
        label = "Working: Bash" if state == "working" else "Response ready"
        page.evaluate("() => { window.seen.length = 0; }")
        committed_epoch = time.time()
        panel_bench.write(conn, [panel_bench.session("probe", state, time.time(), 1)])
        results["terminal panel"].append(panel_bench.wait_for_row(tmux, "panel", label, time.perf_counter()))
        page.wait_for_function(f"() => window.seen.some(s => s[1] === {label!r})", timeout=10_000)
        shown = page.evaluate(f"() => window.seen.find(s => s[1] === {label!r})[0]")
        results["web panel"].append(shown / 1000 - committed_epoch)
        time.sleep(random.uniform(0.3, 0.6))  # never in step with either panel's poll
    conn.close()
    return results


def transfer(browser, port: int, secret: str) -> list[list[str]]:
    context = browser.new_context()
    page = context.new_page()
    sizes: dict[str, int] = {}

    def finished(request) -> None:
        measured = request.sizes()
        path = request.url.split(str(port), 1)[1].split("?")[0]
        sizes[path] = measured["responseBodySize"] + measured["responseHeadersSize"]

    page.on("requestfinished", finished)
    page.goto(f"http://127.0.0.1:{port}/?token={secret}")
    page.wait_for_selector("body[data-loaded='1']")
    page.wait_for_timeout(500)
    context.close()
    rows = [[path, f"{size:,}"] for path, size in sorted(sizes.items())]
    rows.append(["**page load, total** (the list itself arrives on the event stream)", f"**{sum(sizes.values()):,}**"])
    return rows


def document_size(port: int, secret: str) -> tuple[int, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sizes = []
    for encoding in ("identity", "gzip"):
        conn.request("GET", "/api/state", headers={"Cookie": f"lunavect_web={secret}", "Accept-Encoding": encoding})
        sizes.append(len(conn.getresponse().read()))
    conn.close()
    return sizes[0], sizes[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--window", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    from web_support import CHROMIUM_ARGS, chromium_path

    print(machine_line())
    with isolated_home("lunavect-bench-web-") as env:
        root = Path(env["HOME"]).parent
        stores = {name: root / name for name in ("shared", "idle0", "idle50", "big")}
        panel_bench.seed(stores["shared"], 10, 3, probe=True)
        panel_bench.seed(stores["idle0"], 10, 3, probe=False)
        panel_bench.seed(stores["idle50"], 10, 3, probe=False)
        panel_bench.seed(stores["big"], 1000, 100, probe=False)
        collectors = [start_collector(stores[name], env) for name in ("shared", "idle0", "idle50")]
        servers = {name: start_server(data, env) for name, data in stores.items()}
        tmux = panel_bench.Tmux(root, env)
        stop = threading.Event()
        try:
            tmux.start("panel", stores["shared"], panel_bench.PANEL_APP)
            tmux.wait_for("panel", "Benchmark session probe")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                _, port, secret = servers["shared"]
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/?token={secret}")
                page.wait_for_selector('li.row[data-id="claude:probe"]')
                page.evaluate(RECORDER)
                latency = measure_latency(tmux, page, stores["shared"], args.changes)
                sizes = transfer(browser, port, secret)
                browser.close()

            _, port, secret = servers["idle50"]
            connected = threading.Semaphore(0)
            clients = [
                threading.Thread(target=sse_client, args=(port, secret, stop, connected), daemon=True)
                for _ in range(50)
            ]
            for client in clients:
                client.start()
            for _ in clients:
                connected.acquire(timeout=30)
            time.sleep(2)
            pids = {
                "server, no browser (baseline)": servers["idle0"][0].pid,
                "server, 50 open streams": servers["idle50"][0].pid,
            }
            cpu = panel_bench.measure_cpu(pids, args.window, args.rounds)
            ten = document_size(servers["shared"][1], servers["shared"][2])
            thousand = document_size(servers["big"][1], servers["big"][2])
        finally:
            stop.set()
            tmux.kill()
            for process in [s[0] for s in servers.values()] + collectors:
                process.terminate()
                process.wait(10)

    base = panel_bench.summary(latency["terminal panel"])
    rows = []
    for name, values in latency.items():
        median, p90 = panel_bench.summary(values)
        rows.append(
            [name, f"{median * 1000:.0f}", f"{p90 * 1000:.0f}", f"{max(values) * 1000:.0f}", f"{median / base[0]:.2f}x"]
        )
    print(f"\nStore change to the row showing it ({args.changes} changes, both panels on the same commits):\n")
    print(md_table(["panel", "median ms", "p90 ms", "max ms", "vs terminal panel"], rows, "lrrrr"))

    base_cpu = sorted(cpu["server, no browser (baseline)"])[len(cpu["server, no browser (baseline)"]) // 2]
    rows = []
    for name, values in cpu.items():
        median = sorted(values)[len(values) // 2]
        rows.append([name, f"{median * 100:.3f}%", f"{max(values) * 100:.3f}%", f"{median / base_cpu:.2f}x"])
    print(f"\nIdle CPU ({args.rounds} windows of {args.window:g} s):\n")
    print(md_table(["process", "idle CPU, median", "max", "vs baseline"], rows, "lrrr"))

    print("\nPage load, bytes on the wire (headers + compressed bodies):\n")
    print(md_table(["request", "bytes"], sizes, "lr"))
    print("\nThe list document (`/api/state`, also each event of the stream):\n")
    print(
        md_table(
            ["sessions", "JSON bytes", "gzip bytes"],
            [["10", f"{ten[0]:,}", f"{ten[1]:,}"], ["1,000", f"{thousand[0]:,}", f"{thousand[1]:,}"]],
            "lrr",
        )
    )
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

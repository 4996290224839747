"""The hook shim's JSON goes through CPython's private `_json.make_scanner` only while it behaves as the shim
expects: when a new interpreter changes it (it raises, or decodes otherwise), the json module does the work,
and the shim decodes and encodes the same."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lunavect.shim import jsoncodec

BROKEN = {
    "raises": "def make_scanner(context):\n    raise TypeError('make_scanner() takes a JSONDecoder now')",
    "decodes otherwise": "def make_scanner(context):\n    return lambda text, end: ({}, len(text))",
    "is gone": "del make_scanner",
}


def test_this_interpreters_accelerator_is_used():
    assert jsoncodec.ACCELERATED


@pytest.mark.process
@pytest.mark.parametrize("how", BROKEN)
def test_a_changed_accelerator_leaves_the_json_module_in_its_place(how):
    # json has taken its own scanner already: a CPython whose `make_scanner` no longer takes the shim's context
    # still decodes through json's (here its pure-Python scanner stands in, as on an interpreter without `_json`).
    program = (
        "import json, _json\n"
        + "\n".join(f"exec({line!r}, _json.__dict__)" for line in [BROKEN[how]])
        + "\nfrom lunavect.shim import jsoncodec as j\n"
        "print(j.ACCELERATED, j.json_loads('{\"event\": [1, \"\\\\u00e9\"]}'), j.json_dumps({'a': 'é'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False {'event': [1, 'é']} {\"a\":\"\\u00e9\"}"


def test_doctor_names_the_json_fallback(iso_env, monkeypatch):
    from lunavect.collector import doctor

    monkeypatch.setattr(jsoncodec, "ACCELERATED", False)
    assert [f for f in doctor.examine().fallbacks if "_json.make_scanner" in f]

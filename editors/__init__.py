"""lunavect.companions: the editors' companion extensions (not Python), shipped inside the package so that
`lunavect editors install` can build them into the editor (see setup.py)."""

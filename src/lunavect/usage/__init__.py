"""Usage and limits: token counts per session, context fill, rate-limit windows, and their history.

Numbers only: the readers hand over counts, model names and times; no message text reaches this package.
"""

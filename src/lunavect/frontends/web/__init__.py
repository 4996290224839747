"""The web panel (`lunavect web`): the live list in any browser, a phone included, safe to expose.

Starlette on uvicorn, an optional extra (`lunavect[web]`). It reads the list through `lunavect.listing.sessions` like
the terminal panel and changes it through `lunavect.listing.arrangement` like the CLI. `guard` holds the rules of
its walls and `walls` applies them to each request, `problems` its refusals and their statuses, `tokens` its
tokens, `broadcast` the one shared reading per change, `state` what every route shares, `routes/` the
endpoints, `app` their assembly and `server` the start.
"""

"""The web panel's routes, one module per part of the page: `page` (the page and its files), `live` (who am I,
the list, its live stream), `rows` (a row's actions, moving, undo) and `peek` (messages, reply, answer).

Each exports ROUTES, plain Starlette routes whose endpoints read what they share from `request.app.state`
(`state.panel_of`) and pass the `walls` first; `app.create_app` puts them together.
"""

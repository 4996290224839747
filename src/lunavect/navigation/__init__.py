"""Returning to a task: finding where a session runs (`locate`), bringing its terminal tab or window to the
front (`terminals`), or resuming it (`resume`, `clipboard`), with one kind of result (`open_result`).

Not a front end: the panel and the CLI use it alike (`navigate.open_session`). It reads machine facts from
`host` and the clients' own knowledge (`origin`), and never imports a front end.
"""

"""Notifications: the collector tells its person when a session needs them, once, and takes them there.

`kinds` (what notifies, as a table), `decide` (pure: transitions and a clock in, notifications out),
`settings` (the person's choices, in the store), `sent` (what was sent, so nothing is sent twice), `focus`
(is the person already looking at that session?), `deliver` (desktop notification and command hook, off the
collector's thread) and `notifier` (the collector's side: fed committed transitions, never raw events).
"""

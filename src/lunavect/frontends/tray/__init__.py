"""`lunavect tray`: the counts in a tray icon, and a menu of the sessions that need their person."""

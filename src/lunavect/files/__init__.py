"""Reading other programs' files safely: only what was appended (tail), which changed (watching), and the
files a reader failed on, set aside until they change (quarantine)."""

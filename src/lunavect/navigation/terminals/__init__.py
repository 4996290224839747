"""Bringing a terminal tab or pane to the front: tmux, kitty, WezTerm, iTerm2, Terminal and plain X11/Wayland
windows. Each module builds its commands as plain argument lists (unit-tested) and runs them through
`runner`, which gives every scripting request the same 10-second limit and the same distinct failures."""

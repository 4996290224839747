"""The panel: a Textual app showing every session, live, with everything the guide's session list does."""

from lunavect.frontends.tui.app import PanelApp, run_panel

__all__ = ["PanelApp", "run_panel"]

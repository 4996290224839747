"""The panel's settings turn notifications and each kind on and off, in the store the notifier reads."""

from __future__ import annotations

from tui_support import pilot_test

from lunavect.frontends.tui.screens import SettingsScreen
from lunavect.notify import settings

SIZE = (120, 60)


@pilot_test
async def test_the_settings_turn_a_kind_and_all_notifications_off_and_on(conn, make_app):
    assert settings.load(conn).kinds == ["permission", "input", "error", "ready"]  # a new installation
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        await pilot.click("#notify-kind-ready")
        assert "ready" not in settings.load(conn).kinds
        await pilot.click("#notify-kind-stale")
        assert "stale" in settings.load(conn).kinds
        await pilot.click("#notify-on")
        assert settings.load(conn).enabled is False
        await pilot.click("#notify-focus")
        assert settings.load(conn).focus is False
        await pilot.click("#notify-sound")
        assert settings.load(conn).sound == "none"
        await pilot.press("escape")
        await pilot.press("s")
        assert app.screen.query_one("#notify-on").value is False  # type: ignore[attr-defined]


@pilot_test
async def test_the_settings_set_the_usage_warning_s_threshold_and_turn_it_off(conn, make_app):
    assert settings.load(conn).usage_percent == 90.0  # a new installation
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        field = app.screen.query_one("#notify-usage-percent")
        assert field.value == "90"  # type: ignore[attr-defined]
        await pilot.click("#notify-usage-percent")
        await pilot.press("end", "backspace", "backspace", "8", "5")
        await pilot.pause()
        assert settings.load(conn).usage_percent == 85.0
        await pilot.click("#notify-usage")
        assert settings.load(conn).usage_percent is None
        await pilot.click("#notify-usage")
        assert settings.load(conn).usage_percent == 85.0  # back on with the percent typed
        await pilot.press("escape")
        await pilot.press("s")
        assert app.screen.query_one("#notify-usage-percent").value == "85"  # type: ignore[attr-defined]

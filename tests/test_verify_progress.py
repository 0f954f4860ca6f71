"""Issue 47: a long `verify` run shows its progress on a terminal (stderr, one line
rewritten in place, erased at the end) and nothing at all when stderr is not a terminal."""

from __future__ import annotations

import io

from p2p_burraco.commands.verify_progress import terminal_progress


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_is_one_line_erased_at_the_end() -> None:
    out = Tty()
    ticks = iter([0.0, 0.1, 0.5, 1.0])
    with terminal_progress(out, clock=lambda: next(ticks)) as progress:
        assert progress is not None
        progress(0, 300)
        progress(10, 300)          # too soon after the last: not drawn
        progress(120, 300)
    text = out.getvalue()
    assert "\rverifying: 0/300 hands" in text and "120/300" in text and "10/300" not in text
    assert text.endswith("\r\x1b[K") and "\n" not in text


def test_no_progress_when_not_a_terminal() -> None:
    out = io.StringIO()
    with terminal_progress(out) as progress:
        assert progress is None
    assert out.getvalue() == ""

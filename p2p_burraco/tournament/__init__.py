"""A club tournament, pure: movements, victory points and standings (no I/O, no clock).

`net/tournament.py` runs the event over the network and `commands/tournament.py` formats it;
this package only decides who meets whom and what a result is worth (seeds/tournament.md).
"""

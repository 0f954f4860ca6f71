"""Files on disk: secrets, records and journals written so that a crash never lies
(`files`), a seat's durable facts (`seatstore`), a host's match journals (`journal`) and the
keys a player has seen (`known_keys`). No Twisted, no prompt-toolkit: plain blocking I/O
behind small interfaces the sans-IO layers are given."""

"""p2p_burraco: Burraco and Briscola over a LAN, dealt fairly with no trusted dealer."""

__version__ = "0.1.0"

"""tablewatch: a live poker table monitor (cameras + RFID → events → rules → alerts and hand histories)."""

__version__ = "0.1.0"

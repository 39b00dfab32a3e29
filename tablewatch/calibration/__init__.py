"""Calibration: camera pixels ↔ the table's own map in millimetres.

- ``layout``: ``TableLayout`` (zones, betting lines, seats, markers; ``load_layout("oval10")``), the
  table frame's axes; ``templates`` builds the shipped ``layouts/*.toml``.
- ``markers``: ArUco detection, ``calibrate_image``/``calibrate_table``/``calibrate_frames`` → a
  ``TableCalibration``; ChArUco lens fit ``calibrate_lens`` → a ``CameraModel`` (both in ``camera``).
- ``chips``: chip colours from a tray photo (``learn_from_tray``) or named paints (``painted_chip_colours``).
- ``drift``: ``DriftMonitor`` raises ``CameraMoved`` and recalibrates once the camera settles.
- ``profile``: the per-table TOML (``load_profile``/``save_profile``); ``cli``: ``tablewatch calibrate``.
- ``drawing``/``synthetic``: overlay pictures, and test pictures through known cameras.
"""

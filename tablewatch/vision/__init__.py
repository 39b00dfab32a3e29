"""tablewatch.vision: from camera frames to cards.

- ``sources``: frames from images, video files, RTSP/HTTP streams and USB cameras (``open_source``).
- ``stream_clock``: ``StreamClock``, a network stream's frames timed by its own timestamps on the table's clock.
- ``detector``: ``OnnxDetector``, the exported ultralytics model run with ONNX Runtime (no torch).
- ``detections``: ``Detections``, one frame's boxes as parallel numpy arrays.
- ``boxes``: letterbox, IoU, NMS, decoding of the YOLO head.
- ``tiling``: tile pyramids so small card indices in large frames get enough pixels.
- ``cards``: ``Card`` and ``group_cards``: identity from the two corner indices of a card.
- ``reader``: ``CardReader``, all of the above for one image, timed per stage.
- ``bench``, ``annotate``, ``cli``: the ``bench-vision`` and ``cards`` commands.
"""

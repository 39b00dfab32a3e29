"""tablewatch.models: training sets, training (ultralytics, ``train`` extra only), export and evaluation.

- ``dataset``: the real card photos split by source photo (``prepare_dataset``).
- ``train``: offline ultralytics training from a YAML architecture, ONNX export, shipping into ``vision/weights/``.
- ``evaluate``: mAP50 and per-card identity accuracy of an ONNX model on held-out sources.
- ``cli``: the ``train`` and ``evaluate`` commands.
"""

"""The runtime of one table: the pipeline from devices to rules to outputs, the drift watch, ``tablewatch run``."""

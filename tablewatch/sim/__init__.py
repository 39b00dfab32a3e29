"""tablewatch.sim: scripted hands rendered as overhead video, RFID reads and ground truth.

Start at ``tablewatch.sim.session.Simulation`` (scenario in; frames, events, RFID reads, labels, PHH and
injected violations out). Modules: ``scenario`` (the YAML format), ``plan`` (a hand resolved),
``script``/``hand``/``motions`` (pokerkit-driven timeline), ``world`` (keyframed objects), ``camera``,
``render``, ``labels``, ``rfid``, ``output``, ``dataset``, ``cli``.
"""

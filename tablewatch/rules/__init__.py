"""tablewatch.rules: the betting engine, TDA chip reading, procedure checks and rule profiles.

Entry points: ``table.TableRules`` (feed a table's events, get violations and finished hands),
``engine.HandEngine`` (one hand), ``chipreading.read_bet`` (a physical bet → the floor's reading),
``physical.physical_events`` (a PHH action → table events), ``replay.replay_hand`` (PHH through it all);
hi/lo split pots: ``hilo.split_hi_lo`` (TDA-12). Where each rule id is ruled: ``index.RULE_INDEX``.
"""

"""Physically based frames of a simulated run, rendered by Mitsuba 3 (``pip install 'tablewatch[pbr]'``).

The 2D renderer (``tablewatch.sim.render``) paints the table flat: an arm is a bar ending in an oval. This one
builds the same world's objects as solids under pendant lamps and traces light through them: arms with a wrist,
palm, four fingers and a thumb, sleeves of the arm's colour; chips as discs with an edge and a height; cards with
a thickness and a gloss; soft shadows wherever a lamp is hidden. It is slow (seconds a frame), so it serves stills
and short clips that check what perception learned on the flat frames (``python -m tablewatch.bench.pbr``).
"""

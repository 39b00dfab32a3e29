"""``tablewatch snapshot``: a whole table read from one still photo taken from above.

- ``still``: the photo at two sizes (geometry, detail), size-checked before decoding;
- ``table``: the playing surface and what lies on it, found without markers (or with them);
- ``shapes``: card rectangles from straight edges, their size, and which card lies on which;
- ``faces``: a card's face read from the index in a visible corner, or its back;
- ``discs``: chips and the dealer button; ``chipset``: the chip set's colours and values;
- ``seats``: the board and the players' hands; ``reader``: all of it, ``SnapshotReader``;
- ``draw``: the annotated picture; ``cli``: the command.
"""

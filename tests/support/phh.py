"""A small valid hand history, for the commands that read PHH files."""

ONE_HAND = """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [5, 10]
min_bet = 10
starting_stacks = [100.50, 100]
actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cbr 30', 'p1 cc', 'd db AsKsQs', 'p1 cbr 70.50', 'p2 cc',
    'd db 2c', 'd db 3c', 'p1 sm AhAd', 'p2 sm KhKd']
"""

"""tablewatch.sim"""

"""tablewatch.history"""

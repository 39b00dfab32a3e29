"""tablewatch.rules"""

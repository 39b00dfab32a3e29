"""tablewatch.e2e"""

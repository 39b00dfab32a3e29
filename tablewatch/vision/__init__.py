"""tablewatch.vision"""

"""tablewatch.alerts"""

"""tablewatch.models"""

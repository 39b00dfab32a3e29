"""tablewatch.devices"""

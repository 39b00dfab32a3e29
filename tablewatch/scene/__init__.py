"""tablewatch.scene"""

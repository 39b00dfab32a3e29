"""tablewatch.calibration"""

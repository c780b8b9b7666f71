"""Scripts that print speed and cost figures as ratios within one run: python -m perf.<name>."""

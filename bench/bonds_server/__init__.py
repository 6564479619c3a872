"""Support modules of bench/bonds.py (not benchmarks themselves, so `make bench` skips them)."""

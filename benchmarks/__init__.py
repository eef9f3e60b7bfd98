"""Speed benchmarks (not timed tests): ``python -m benchmarks.<game>``."""

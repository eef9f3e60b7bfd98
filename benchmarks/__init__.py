"""Benchmarks that print figures (steps/s, microseconds per call, frames/s); no timed tests."""
